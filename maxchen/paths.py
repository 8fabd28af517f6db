"""Where the server finds its pages, static files and catalogues, and where it keeps its own files."""

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

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


def private_folder(folder: Path) -> Path:
    """`folder`, made if missing, for this user only (0700); an existing one of ours is tightened."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _tighten(folder, folder=True)
    return folder


def private_file(path: Path) -> Path:
    """`path`, made empty if missing, for this user only (0600); an existing one is tightened."""
    if not os.path.exists(path):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600))
    _tighten(path, folder=False)
    return path


def write_private(path: Path, data: bytes):
    """Write a secret readable by the owner only."""
    private_file(path)
    with open(path, "wb") as out:
        out.write(data)


def _tighten(path: Path, folder: bool) -> None:
    """Take every permission of other users from a folder or file (POSIX only); a log line if it had any.

    Something else (a folder where a file belongs) is left for its reader to
    refuse; a folder not ours too (`--instance /srv`); a file that cannot be
    changed (a read-only disk) is logged and left.
    """
    if os.name != "posix":  # Windows: no such bits (chmod sets read-only); the profile folder keeps others out
        return
    found = os.stat(path)
    kind = stat.S_ISDIR if folder else stat.S_ISREG
    if not kind(found.st_mode) or (folder and found.st_uid != os.geteuid()):
        return
    was = stat.S_IMODE(found.st_mode)
    now = was & ~0o077  # the owner's own bits stay: 0755 becomes 0700, 0644 becomes 0600
    if now == was:
        return
    try:
        os.chmod(path, now)
    except OSError as error:
        log.warning("%s is open to other users (%03o) and stays so: %s", path, was, error.strerror or error)
    else:
        log.warning("%s was open to other users (%03o): now %03o", path, was, now)
