"""The package a teacher installs: the wheel, `maxchen run`, `python -m maxchen`, without make.

The wheel is built as CI builds it (`python -m build`, the backend pinned in
requirements-dev.txt) and installed into a new venv outside the clone, from
the package index like any user's; the server then runs from that venv in a
folder of its own, with nothing of the clone on its path.
"""

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import platformdirs
import requests
from packaging.requirements import Requirement

from maxchen import __version__, cli, paths
from maxchen.client import act, create_room, fetch, join_room, simple_move

from .conftest import ROOT, Server

# Run first in a server's process: no module of ours gets what Windows lacks. (Only ours: eventlet and
# ifaddr take their Windows ways on Windows, and their POSIX ways need fcntl here.) No module at all
# gets `resource`, which only we use.
WINDOWS_LIKE = """
import builtins, sys
sys.modules["resource"] = None
_import = builtins.__import__
def _guarded(name, globals=None, locals=None, fromlist=(), level=0):
    importer = (globals or {}).get("__name__") or ""
    if name.partition(".")[0] in {"fcntl", "termios", "pwd", "grp"} and importer.startswith("maxchen"):
        raise ImportError(f"No module named {name!r}")
    return _import(name, globals, locals, fromlist, level)
builtins.__import__ = _guarded
"""


def play_over_http(url) -> dict:
    """Two scripted players, a whole game of Mäxchen through the JSON API alone; the final view."""
    ann = create_room(url, "Ann")
    code = ann["code"]
    seats = [ann, join_room(url, code, "Ben")]
    act(url, code, ann["token"], "start")
    for _ in range(400):
        views = [fetch(url, code, seat["token"]) for seat in seats]
        if views[0]["phase"] == "over":
            return views[0]
        for seat, view in zip(seats, views, strict=True):
            move = simple_move(view)
            if move:
                act(url, code, seat["token"], **move, version=view["version"])
                break
    raise AssertionError("the game never ended")


def test_the_wheel_installs_outside_the_clone_and_its_server_plays_a_game(tmp_path):
    """What a teacher without make does: install the package, `maxchen run`, play; `python -m maxchen` too."""
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("maxchen-*.whl")
    assert wheel.name == f"maxchen-{__version__}-py3-none-any.whl"
    # One list of dependencies: the wheel's are requirements.txt's, pin for pin.
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"maxchen-{__version__}.dist-info/METADATA").decode()
    pins = [line for line in (ROOT / "requirements.txt").read_text().splitlines() if line and line[0] != "#"]
    wanted = re.findall(r"^Requires-Dist: (.+)$", metadata, re.M)
    assert {str(Requirement(pin)) for pin in wanted} == {str(Requirement(pin)) for pin in pins}
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bin_ = venv / ("Scripts" if os.name == "nt" else "bin")
    installing = subprocess.run(
        [bin_ / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        capture_output=True,
        text=True,
    )
    assert installing.returncode == 0, installing.stderr
    # A teacher's account: its own home, a folder outside the clone, nothing of the clone on the path.
    home, folder = tmp_path / "home", tmp_path / "somewhere"
    folder.mkdir()
    env = {key: None for key in os.environ if key.startswith(("MAXCHEN_", "PYTHONPATH", "PYTHONHOME", "XDG_"))}
    env.update(HOME=str(home), PATH=f"{bin_}{os.pathsep}{os.environ.get('PATH', '')}")
    version = subprocess.run([bin_ / "maxchen", "--version"], cwd=folder, capture_output=True, text=True)
    assert version.stdout.strip() == f"maxchen {__version__}"

    server = Server(command=[bin_ / "maxchen", "run"], cwd=folder, env=env, instance=False).wait_ready()
    try:
        final = play_over_http(server.url)
        assert final["phase"] == "over" and final["winner"] in {p["id"] for p in final["players"]}
        # The package data: the room's page and its styles, a catalogue, the API document, the vendored htmx.
        room = requests.get(f"{server.url}/r/{final['room']}", headers={"Accept-Language": "de"}, timeout=5)
        assert room.status_code == 200 and "Spielregeln" in room.text
        styles = re.search(r'href="(/static/style\.css[^"]*)"', room.text).group(1)
        assert requests.get(server.url + styles, timeout=5).status_code == 200
        assert requests.get(server.url + "/static/vendor/htmx.min.js", timeout=5).status_code == 200
        openapi = requests.get(server.url + "/api/openapi.yaml", timeout=5)
        assert openapi.content == (ROOT / "docs" / "openapi.yaml").read_bytes()
    finally:
        said = server.stop()
    # Its files went to the user's data folder (platformdirs), as the banner says: not to where it was started.
    data = home / ".local" / "share" / "maxchen"
    assert f"Its files (rooms, certificate, session key): {data}" in said
    assert (data / "maxchen.db").is_file() and (data / "secret_key").is_file()
    assert list(folder.iterdir()) == []

    again = Server(command=[bin_ / "python", "-m", "maxchen", "run"], cwd=folder, env=env, instance=False)
    again.wait_ready()
    try:
        page = requests.get(again.url + "/", headers={"Accept-Language": "ru"}, timeout=5)
        assert page.status_code == 200 and "Создать комнату" in page.text
        assert play_over_http(again.url)["phase"] == "over"
    finally:
        again.stop()


def test_a_clone_keeps_its_files_in_its_own_instance_folder(monkeypatch):
    """`make run` and `python app.py` in a clone: ./instance of the clone, as always; `maxchen run` and
    `python -m maxchen run`, from a clone too: the user's data folder; MAXCHEN_INSTANCE and --instance win."""
    monkeypatch.delenv("MAXCHEN_INSTANCE", raising=False)
    assert not paths.INSTALLED and paths.ROOT == ROOT
    assert cli.parser(paths.CLONE_INSTANCE).parse_args(["run"]).instance == ROOT / "instance"
    assert cli.parser().parse_args(["run"]).instance == Path(platformdirs.user_data_dir("maxchen", appauthor=False))
    monkeypatch.setenv("MAXCHEN_INSTANCE", "/srv/maxchen")
    assert cli.parser(paths.CLONE_INSTANCE).parse_args(["run"]).instance == Path("/srv/maxchen")
    assert cli.parser().parse_args(["run", "--instance", "elsewhere"]).instance == "elsewhere"


def test_the_server_starts_and_plays_without_the_unix_only_modules(tmp_path):
    """Windows has no resource, fcntl, termios, pwd or grp: the server starts without them, says what it
    skipped, and plays a game."""
    start = WINDOWS_LIKE + "from maxchen.cli import main; sys.exit(main(['run', *sys.argv[1:]]))"
    server = Server(instance=str(tmp_path), command=[sys.executable, "-c", start]).wait_ready()
    try:
        assert play_over_http(server.url)["phase"] == "over"
    finally:
        said = server.stop()
    assert "no open-file limit to raise on this system (no 'resource' module): skipped" in said
    assert "Traceback" not in said
