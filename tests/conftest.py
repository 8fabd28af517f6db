"""Fixtures: the app, its clients, fixed dice and a real server process."""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
import requests

from maxchen.dice import FixedDice, SeededDice  # noqa: F401 - the tests take seeded dice from here
from maxchen.errors import IllegalMove
from maxchen.rooms import Rooms
from maxchen.server import create_app, socketio

ROOT = Path(__file__).resolve().parent.parent

# Our pages load no web font: a screenshot need not wait on `document.fonts.ready`, which Chromium on a
# busy machine left pending for 30 s once (a look test's screenshot timed out "waiting for fonts to load").
os.environ.setdefault("PW_TEST_SCREENSHOT_NO_FONTS_READY", "1")


def refused(game, player, action, code, **payload):
    """Assert that the game refuses the move with `code` and changes nothing."""
    before = game.to_dict()
    with pytest.raises(IllegalMove) as caught:
        game.apply(player, action, payload)
    assert caught.value.code == code
    assert game.to_dict() == before
    return caught.value


@pytest.fixture
def dice():
    return FixedDice()


@pytest.fixture
def rooms(dice):
    return Rooms(dice=dice)


@pytest.fixture
def app(rooms):
    return create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test"})


@pytest.fixture
def client(app):
    return app.test_client()


class Api:
    """A thin JSON API client over Flask's test client."""

    def __init__(self, client):
        self.client = client

    def create(self, name="Ann", rules=None):
        body = {"name": name} if rules is None else {"name": name, "rules": rules}
        response = self.client.post("/api/rooms", json=body)
        assert response.status_code == 201, response.json
        return response.json

    def join(self, code, name):
        response = self.client.post(f"/api/rooms/{code}/players", json={"name": name})
        assert response.status_code == 201, response.json
        return response.json

    def view(self, code, token):
        return self.client.get(f"/api/rooms/{code}", headers={"Authorization": f"Bearer {token}"})

    def act(self, code, token, action, **body):
        return self.client.post(
            f"/api/rooms/{code}/actions",
            json={"action": action, **body},
            headers={"Authorization": f"Bearer {token}"},
        )


@pytest.fixture
def api(client):
    return Api(client)


@pytest.fixture
def table(api):
    """A room with Ann (host), Ben and Cem seated, not started."""
    ann = api.create("Ann")
    code = ann["code"]
    ben = api.join(code, "Ben")
    cem = api.join(code, "Cem")
    return code, ann, ben, cem


@pytest.fixture
def doubt_race():
    """A Lügen room where Cem's doubt has just won; Ben's doubt answers the bid before it."""
    rooms = Rooms(dice=FixedDice([[2, 3, 4]] * 3))
    ann = rooms.create("Ann", "luegen")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    cem = rooms.join(code, "Cem")
    rooms.act(code, ann["player"], {"action": "start"})
    for seat in (ann, ben, cem):
        rooms.act(code, seat["player"], {"action": "shake"})
    view = rooms.act(code, ann["player"], {"action": "bid", "count": 1, "face": 5})
    rooms.act(code, cem["player"], {"action": "doubt", "version": view["version"]})
    return rooms, code, ben, view["version"]


@pytest.fixture
def sio(app):
    """Make Socket.IO test clients for tokens; disconnects them afterwards."""
    made = []

    def connect(token=None, **kwargs):
        auth = {"token": token} if token is not None else kwargs.pop("auth", None)
        client = socketio.test_client(app, auth=auth, **kwargs)
        made.append(client)
        return client

    yield connect
    for client in made:
        if client.is_connected():
            client.disconnect()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`python app.py` as a user starts it, on a free loopback port. `command` and `cwd`: another way to
    start it (the installed `maxchen run`); `instance=False`: its default folder; an `env` value None unsets."""

    def __init__(self, *args, port=None, instance=None, host="127.0.0.1", env=None, command=None, cwd=ROOT):
        self.port = port or free_port()
        self.own_instance = instance is None  # made here, so removed by stop()
        self.instance = instance or (tempfile.mkdtemp(prefix="maxchen-") if instance is None else None)
        self.args, self.host, self.command, self.cwd = args, host, command, cwd
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = env or {}
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - lives as long as the server
        folder = ["--instance", self.instance] if self.instance else []
        self.process = subprocess.Popen(
            [*(command or [sys.executable, "app.py"]), "--host", host, "--port", str(self.port), *folder, *args],
            cwd=cwd,
            env={key: value for key, value in env.items() if value is not None},
            stdout=self.log,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def output(self) -> str:
        """Everything the server printed so far."""
        self.log.seek(0)
        return self.log.read()

    def wait_ready(self, timeout=60):  # a busy machine (CI beside other jobs) starts it slowly
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("server exited:\n" + self.output())
            try:
                requests.get(self.url + "/", timeout=2)
                # Its own banner, printed once it holds the port: another worker's server may have taken the
                # same free port first (this one then exits with "cannot listen"), and answered in its place.
                if " is up. " in self.output():
                    return self
            except (requests.ConnectionError, requests.Timeout):  # not listening yet, or busy starting
                pass
            time.sleep(0.1)
        raise TimeoutError("server did not come up")

    def kill(self):
        """kill -9: no chance to clean up."""
        self.process.kill()
        self.process.wait()

    def restart(self):
        """Start again with the same command (port, instance folder)."""
        again = Server(
            *self.args,
            port=self.port,
            instance=self.instance or False,
            host=self.host,
            env=self.env,
            command=self.command,
            cwd=self.cwd,
        )
        self.process, self.log = again.process, again.log
        return self.wait_ready()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        output = self.output()
        self.log.close()
        if self.own_instance:
            shutil.rmtree(self.instance, ignore_errors=True)
        return output


@pytest.fixture
def server():
    """The real server process with the default (eventlet) async mode."""
    started = Server().wait_ready()
    yield started
    started.stop()


class Proxy:
    """A load balancer on a free loopback port: each connection goes to the first of `ports` that accepts.

    A process that died refuses, so its clients' reconnections land on the next one.
    """

    def __init__(self, *ports):
        self.ports = ports
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        for port in self.ports:
            try:
                upstream = socket.create_connection(("127.0.0.1", port), timeout=2)
                break
            except OSError:
                continue
        else:
            client.close()
            return
        upstream.settimeout(None)
        threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
        self._pipe(upstream, client)

    @staticmethod
    def _pipe(source, target):
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def close(self):
        self.listener.close()


def wait_until(check, seconds) -> bool:
    """Whether `check()` came true within `seconds` (polled; for what a test waits on)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


REDIS_SERVER = "redis-server"  # Debian's package of that name; .ci/run installs it


class RedisServer:
    """`redis-server` on a free loopback port with its files in `folder`; persistence off unless asked."""

    def __init__(self, folder, *options, port=None):
        self.folder, self.options = Path(folder), options
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None

    def start(self, timeout=20):
        """Start it and wait until it answers PING."""
        import redis

        default = ("--save", "", "--appendonly", "no")
        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        self.process = subprocess.Popen(
            [*command, *default, *self.options], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                time.sleep(0.05)
            finally:
                client.close()
        raise TimeoutError("redis-server did not answer PING")

    def shutdown(self):
        """SHUTDOWN: Redis writes what it keeps, then exits."""
        import redis

        redis.Redis.from_url(self.url).shutdown()
        self.process.wait(10)

    def stop(self):
        """Stop it, whatever it is doing."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def need_redis_server():
    """Skip without redis-server on a developer's machine; fail under CI=true (as the browser tests do)."""
    if shutil.which(REDIS_SERVER) is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs redis-server (apt-get install redis-server) for the Redis tests", pytrace=False)
        pytest.skip("redis-server is not installed (apt-get install redis-server)")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """One throwaway redis-server for the session (no persistence)."""
    need_redis_server()
    started = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield started
    started.stop()


@pytest.fixture
def redis_url(redis_server):
    """The URL of an empty Redis: flushed before each test."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url


@pytest.fixture
def steady_limits(monkeypatch):
    """The limits' clock stopped in the middle of a minute while a test runs: a sliding window counter lets one
    more through when the requests happen to straddle a window's edge, and a busy machine makes that likely."""
    import types

    import limits.storage.memory
    import limits.strategies

    now = time.time()
    stopped = types.SimpleNamespace(time=lambda: now // 60 * 60 + 30, monotonic=time.monotonic, sleep=time.sleep)
    for module in (limits.storage.memory, limits.strategies):
        monkeypatch.setattr(module, "time", stopped)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, one per test module (tests/test_browser.py says why it may be missing)."""
    from .test_browser import CHROMIUM, CHROMIUM_ARGS, sync_api

    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def look_server():
    """A server of the module's own, for the look tests' rooms."""
    started = Server().wait_ready()
    yield started
    started.stop()
