"""Several server processes on one Redis, behind a load balancer: one game, every screen agreeing.

Real processes (`python app.py --redis URL`), a throwaway redis-server,
phones in Chromium and bots over python-socketio. The load balancer
(`conftest.Proxy`) sends each connection to the first process that takes
it, as a proxy with health checks does: when a process dies, its clients'
reconnections land on another one.
"""

import re
import threading
import time

import pytest

from maxchen.client import Player, join_room, simple_move
from tests.conftest import Proxy, Server
from tests.test_browser import join_phones, play_tables, settings

SECRET = {"MAXCHEN_SECRET_KEY": "the-same-key-in-every-process"}  # a page's cookie reads in any process
META = re.compile(r'<div id="table" class="area" data-version="(\d+)".*?data-meta (data-phase="[^"]*"[^>]*)>', re.S)


class Bot:
    """A script's seat over Socket.IO, moving by `simple_move` on a thread of its own."""

    def __init__(self, url, token):
        self.token = token
        self.seen: dict[int, tuple] = {}  # version -> (phase, round, whose turn)
        self.views: list[tuple[float, dict]] = []  # (when it arrived, the view)
        self._stop = threading.Event()
        self.player = None
        self.connect(url)
        self._thread = threading.Thread(target=self._play, daemon=True)
        self._thread.start()

    def connect(self, url):
        """(Re)connect to `url` (a process, or the load balancer)."""
        if self.player is not None:
            self.player.sio.disconnect()
        player = Player(url, self.token)
        keep = player._on_view

        def timed(view):  # when each view arrived, whatever the test's own loop is busy with
            self.views.append((time.monotonic(), view))
            keep(view)

        player.sio.on("view", timed)
        self.player = player.connect()

    def offline_since(self, player_id, moment) -> float | None:
        """Seconds from `moment` to the first view after it that showed `player_id` offline."""
        for arrived, view in list(self.views):
            if arrived >= moment and not next(p["connected"] for p in view["players"] if p["id"] == player_id):
                return arrived - moment
        return None

    def _play(self):
        while not self._stop.is_set():
            player = self.player
            try:
                view = player.wait_for(lambda v: v["phase"] == "over" or simple_move(v) is not None, 1)
            except TimeoutError:
                continue
            self._note(player.view)
            if view["phase"] == "over":
                return
            move = simple_move(view)
            try:
                player.act(move.pop("action"), version=view["version"], **move)
            except Exception:  # noqa: BLE001 - a move the table overtook, or a process that died: look again
                time.sleep(0.1)

    def _note(self, view):
        turn = (view.get("turn") or {}).get("player")
        self.seen.setdefault(view["version"], (view["phase"], view.get("round"), turn))

    def stop(self):
        self._stop.set()
        self.player.sio.disconnect()


def screens(phone) -> dict[int, str]:
    """Version -> what the phone's table said of the game (phase, rules, round, whose turn), from every push."""
    found = {}
    for html in phone.parts():
        for version, meta in META.findall(html):
            found.setdefault(int(version), " ".join(meta.split()))
    return found


def assert_same_end(phones, bot):
    """Every phone shows the standings that the script on the other process was sent."""
    view = bot.player.view
    names = {p["id"]: p["name"] for p in view["players"]}
    expected = [names[player] for player in view["ranking"]]
    for phone in phones:
        phone.page.wait_for_selector(".standings li")
        assert phone.page.locator(".standings .name").all_inner_texts() == expected


def assert_screens_agree(phones, bots):
    """At every version two screens both saw, they say the same: phase, round, whose turn."""
    seen = [screens(phone) for phone in phones]
    for one in seen:
        for other in seen:
            for version in one.keys() & other.keys():
                assert one[version] == other[version], version
    for bot in bots:
        for version, (phase, round_, turn) in bot.seen.items():
            for shown in seen:
                if version in shown:
                    assert f'data-phase="{phase}"' in shown[version], version
                    if phase == "playing":
                        assert f'data-round="{round_}"' in shown[version] and f'data-turn="{turn}"' in shown[version]
    assert sum(len(s) for s in seen) > 10  # they did see the game


@pytest.fixture
def processes(redis_url):
    """Two server processes on one Redis, and a load balancer that prefers the first."""
    one = Server("--redis", redis_url, env=SECRET)
    two = Server("--redis", redis_url, env=SECRET)
    one.wait_ready(), two.wait_ready()
    proxy = Proxy(one.port, two.port)
    yield one, two, proxy
    proxy.close()
    for server in (one, two):
        server.stop()


def test_two_processes_play_one_game_and_every_screen_agrees(browser, processes):
    one, two, proxy = processes
    phones, code = join_phones(browser, proxy, ["Ann", "Ben"], ["en-US", "de-DE"])  # both on process one
    cem = Bot(two.url, join_room(two.url, code, "Cem")["token"])  # a script on process two
    try:
        for phone in phones:
            phone.page.wait_for_function("() => document.querySelectorAll('.lobby-list .dot.on').length === 3")
        phones[0].page.click("#controls button[data-action=start]")
        play_tables([phones])
        cem.player.wait_for(lambda view: view["phase"] == "over", 15)
        assert_same_end(phones, cem)
        assert_screens_agree(phones, [cem])
        assert all(phone.errors == [] for phone in phones), [phone.errors for phone in phones]
    finally:
        cem.stop()
        for phone in phones:
            phone.context.close()


def test_a_process_killed_mid_game_its_players_go_on_on_the_other(browser, processes):
    """kill -9 of a process: its phones reconnect through the balancer and finish; a player who does not
    come back stops showing as connected (once the dead process's heartbeat lapses, EXPIRY: when, on a busy
    machine, is no test's business; tests/test_presence.py has the sweep); nothing of the game is lost."""
    one, two, proxy = processes
    phones, code = join_phones(browser, proxy, ["Ann", "Ben"], ["en-US", "ru-RU"])  # both on process one
    cem = Bot(two.url, join_room(two.url, code, "Cem")["token"])
    dan_seat = join_room(one.url, code, "Dan")
    dan = Bot(one.url, dan_seat["token"])  # a script on process one only: it loses its process
    events = {}

    def meanwhile():
        now = time.monotonic()
        if "killed" not in events and (cem.player.view.get("round") or 0) >= 2:
            one.kill()
            events["killed"] = now
        elif "killed" in events and "back" not in events:
            ann = phones[0].page
            dot_off = ann.locator(f"[data-player='{dan_seat['player']}'] .dot.off").count() > 0
            gone = cem.offline_since(dan_seat["player"], events["killed"])  # pushed by process two
            if gone is not None and dot_off:  # and a phone, reconnected to process two, shows it
                events["gone"] = gone
                dan.connect(proxy.url)  # Dan comes back: the balancer sends him to process two
                events["back"] = now
            assert now - events["killed"] < 30, events

    try:
        for phone in phones:
            phone.page.wait_for_function("() => document.querySelectorAll('.lobby-list .dot.on').length === 4")
        # A short game (out at 3 points): four players to 5 points take about 80 moves, longer than a busy
        # machine's time for a test.
        settings(phones[0].page).select_option("form.options select[name='option.out_at']", "3")
        cem.player.wait_for(lambda view: view["options"].get("out_at") == 3, 15)
        phones[0].page.click("#controls button[data-action=start]")
        play_tables([phones], between=meanwhile)
        cem.player.wait_for(lambda view: view["phase"] == "over", 15)
        assert one.process.poll() is not None and "back" in events  # it died mid-game, and Dan came back
        assert_same_end(phones, cem)
        assert_screens_agree(phones, [cem, dan])
        # A move sent to the process as it died: htmx tells the console the request was cut (the network's
        # complaint, as ERR_CONNECTION_RESET is); the phone moved again on the other process.
        cut = ("htmx:sendError", "htmx:afterRequest")
        errors = [[e for e in phone.errors if not e.startswith(cut)] for phone in phones]
        assert errors == [[] for _ in phones], errors
    finally:
        for bot in (cem, dan):
            bot.stop()
        for phone in phones:
            phone.context.close()


@pytest.mark.parametrize(
    ("proxies", "peer", "believed"), [(0, "127.0.0.1", False), (1, "127.0.0.1", True), (1, "192.0.2.9", False)]
)
def test_behind_a_proxy_the_clients_address_and_scheme_are_the_proxys_word(proxies, peer, believed):
    """--proxies 1 (nginx in front, on this machine): the page's https origin is its own, and each client counts
    as its own address. Without it, or from anywhere but the proxy, a client's X-Forwarded-For is not believed."""
    from maxchen.server import create_app

    app = create_app({"TESTING": True, "SECRET_KEY": "t", "PROXIES": proxies, "MAXCHEN_LIMIT_FAILURES": "2 per minute"})
    client = app.test_client()

    def through_proxy(address):
        return {"Host": "party.example", "X-Forwarded-Proto": "https", "X-Forwarded-For": address}

    made = client.post(
        "/rooms",
        data={"name": "Ann"},
        headers={**through_proxy("203.0.113.5"), "Origin": "https://party.example"},
        environ_base={"REMOTE_ADDR": peer},
    )
    assert made.status_code == (303 if believed else 403)  # an https page's own form, or to a plain server a stranger
    for _ in range(2):
        missing = client.get("/r/ZZZZZ", headers=through_proxy("203.0.113.5"), environ_base={"REMOTE_ADDR": peer})
        assert missing.status_code == 404
    guessed = client.get("/r/ZZZZZ", headers=through_proxy("203.0.113.5"), environ_base={"REMOTE_ADDR": peer})
    assert guessed.status_code == 429
    other = client.get("/r/ZZZZZ", headers=through_proxy("198.51.100.7"), environ_base={"REMOTE_ADDR": peer})
    assert other.status_code == (404 if believed else 429)  # another client behind the proxy is not the guesser


def test_a_comment_left_after_a_number_of_proxies_is_said_not_crashed():
    """systemd's EnvironmentFile keeps a comment after a value: the server says what is wrong in one line."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {**os.environ, "MAXCHEN_PROXIES": "1   # nginx in front"}
    done = subprocess.run([sys.executable, "app.py", "--port", "1"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "'1   # nginx in front' is not a number of proxies" in done.stderr.splitlines()[-1]


def test_scaled_out_pages_and_server_keep_to_websocket(redis_url):
    """On Redis, long-polling is refused (its requests could reach another process) and pages say so."""
    import requests

    server = Server("--redis", redis_url).wait_ready()
    try:
        polling = requests.get(f"{server.url}/socket.io/", params={"EIO": "4", "transport": "polling"}, timeout=10)
        assert polling.status_code == 400
        home = requests.get(server.url + "/", timeout=10).text
        assert '<meta name="maxchen-transports" content="websocket">' in home
    finally:
        server.stop()


def test_one_process_pages_may_fall_back_to_long_polling(client):
    """The default (one process): a network that refuses WebSocket still plays, over long-polling."""
    assert b"maxchen-transports" not in client.get("/").data
    assert client.get("/socket.io/", query_string={"EIO": "4", "transport": "polling"}).status_code == 200
