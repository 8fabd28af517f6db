"""Where the server finds its pages, static files and catalogues, and where it keeps its own files."""

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# A wheel carries templates/, static/, translations/ and docs/openapi.yaml inside the package
# (pyproject.toml); a clone has them at its top, beside the package.
INSTALLED = (PACKAGE / "templates").is_dir()
ROOT = PACKAGE if INSTALLED else PACKAGE.parent
CLONE_INSTANCE = PACKAGE.parent / "instance"  # `make run` and `python app.py` in a clone keep their files here


def instance(default: Path | None = None) -> Path:
    """The instance folder unless --instance says otherwise: MAXCHEN_INSTANCE, `default`, else the user's data
    folder (~/.local/share/maxchen, ~/Library/Application Support/maxchen, %LOCALAPPDATA%\\maxchen)."""
    if os.environ.get("MAXCHEN_INSTANCE"):
        return Path(os.environ["MAXCHEN_INSTANCE"])
    if default is not None:
        return default
    import platformdirs

    return Path(platformdirs.user_data_dir("maxchen", appauthor=False))
