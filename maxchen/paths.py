"""Where the server finds its pages, static files and catalogues, and where it keeps its own files."""

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# A wheel carries templates/, static/, translations/ and docs/openapi.yaml inside the package
# (pyproject.toml); a clone has them at its top, beside the package.
INSTALLED = (PACKAGE / "templates").is_dir()
ROOT = PACKAGE if INSTALLED else PACKAGE.parent


def instance() -> Path:
    """The instance folder by default: MAXCHEN_INSTANCE, a clone's ./instance, else the user's data folder."""
    if os.environ.get("MAXCHEN_INSTANCE"):
        return Path(os.environ["MAXCHEN_INSTANCE"])
    if not INSTALLED:
        return ROOT / "instance"
    import platformdirs

    # ~/.local/share/maxchen, ~/Library/Application Support/maxchen, %LOCALAPPDATA%\maxchen
    return Path(platformdirs.user_data_dir("maxchen", appauthor=False))
