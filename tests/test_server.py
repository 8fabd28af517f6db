"""End to end: the real server process (`python app.py`) and real clients."""

import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import requests
import socketio

from maxchen import paths
from maxchen.client import Player, create_room, join_room, simple_move
from maxchen.errors import IllegalMove

from .conftest import ROOT, Server

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import play_bots  # noqa: E402


class RecordingPlayer(Player):
    """A Player that keeps every view it was sent."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.received = []
        self.sio.on("view", self._record)

    def _record(self, view):
        self.received.append(view)
        self._on_view(view)


def test_three_clients_play_a_whole_game_with_a_reconnect_and_a_host_handover(server):
    url = server.url
    seats = [create_room(url, "Ann")]
    code = seats[0]["code"]
    seats += [join_room(url, code, "Ben"), join_room(url, code.lower(), "Cem")]
    ann, ben, cem = players = [RecordingPlayer(url, s["token"]).connect() for s in seats]
    by_id = {p.view["you"]: p for p in players}
    ann.act("start")
    dice_seen = []  # (owner, dice) for every cup, checked against other players' messages
    reconnected = False
    while True:
        view = ann.fetch()  # what the server holds now; pushes may still be on their way
        if view["phase"] == "over":
            break
        mover = by_id[view["turn"]["player"]]
        mine = mover.fetch()
        if mine["turn"]["step"] == "decide" and not reconnected and mover is cem:
            # Cem's phone drops and comes back: same seat, the game waited.
            cem.disconnect()
            cem_id = seats[2]["player"]
            others = ann.wait_for(
                lambda v, cem_id=cem_id: not next(p for p in v["players"] if p["id"] == cem_id)["connected"]
            )
            assert others["turn"]["player"] == cem_id
            cem = RecordingPlayer(url, seats[2]["token"]).connect()
            by_id[cem.view["you"]] = cem
            players[2] = cem
            assert cem.view["you"] == seats[2]["player"]
            assert cem.view["turn"] == mine["turn"]
            reconnected = True
            continue
        move = simple_move(mine)
        after = mover.act(**move, version=mine["version"])
        if move["action"] == "shake":
            dice_seen.append((mine["you"], after["dice"]))
    assert reconnected
    final = ann.wait_for(lambda v: v["phase"] == "over")
    winner = final["winner"]
    assert winner in by_id
    assert [p["out"] for p in final["players"]].count(False) == 1
    assert next(p for p in final["players"] if p["id"] == winner)["points"] < 5
    # Nobody was ever sent another player's hidden dice.
    for player in players:
        for view in player.received:
            if view["dice"] is not None:
                assert any(owner == view["you"] and dice == view["dice"] for owner, dice in dice_seen)
    # The host leaves: the role passes to the next connected player.
    ann.act("leave")
    handed = ben.wait_for(lambda v: v["host"] != seats[0]["player"])
    assert handed["host"] == seats[1]["player"]
    assert "start" in handed["allowed"]
    for player in players[1:]:
        player.disconnect()


def test_the_bots_script_plays_to_a_winner(server):
    lines = []
    final = play_bots.play(server.url, 3, say=lines.append)
    assert final["phase"] == "over"
    assert lines[0].startswith("room ") and lines[-1].startswith("winner: ")


def test_an_online_poschen_game_through_the_api_and_sockets(server):
    lines = []
    final = play_bots.play(server.url, 3, "poschen", say=lines.append)
    assert (final["rules"], final["phase"], final["options"]) == ("poschen", "over", {"lives": 5, "hint": "off"})
    assert all("lives" in p and "points" not in p for p in final["players"])
    winner = next(p for p in final["players"] if p["id"] == final["winner"])
    assert winner["lives"] > 0 and not winner["out"]
    assert sorted(p["lives"] for p in final["players"] if p["out"]) == [0, 0]
    assert lines[-2].startswith("lives: ")
    assert not any("accept" in line for line in lines)


def test_pages_and_api_over_real_http(server):
    assert requests.get(server.url + "/", timeout=5).status_code == 200
    response = requests.post(server.url + "/api/rooms", json={"name": "Ann"}, timeout=5)
    assert response.status_code == 201
    bad = requests.post(server.url + "/api/rooms", data="{", headers={"Content-Type": "application/json"}, timeout=5)
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "bad_request")


def test_a_foreign_origin_cannot_open_a_socket(server):
    seat = create_room(server.url, "Ann")
    # Engine.IO handshake by long-polling, as a page on another site would do it.
    query = {"EIO": "4", "transport": "polling"}
    same = requests.get(server.url + "/socket.io/", params=query, headers={"Origin": server.url}, timeout=5)
    foreign = requests.get(server.url + "/socket.io/", params=query, headers={"Origin": "http://evil.test"}, timeout=5)
    assert same.status_code == 200
    assert foreign.status_code == 400
    assert seat["code"]


def test_oversized_socket_messages_are_refused(server):
    seat = create_room(server.url, "Ann")
    with Player(server.url, seat["token"]) as ann:
        big = {"action": "configure", "options": {}, "pad": "x" * 20000}
        with pytest.raises(socketio.exceptions.TimeoutError):
            ann.sio.call("action", big, timeout=3)
    view = requests.get(
        f"{server.url}/api/rooms/{seat['code']}", headers={"Authorization": f"Bearer {seat['token']}"}, timeout=5
    ).json()
    assert view["version"] == 0  # the action never reached the room


def test_the_start_banner_names_the_urls(server):
    assert f"http://127.0.0.1:{server.port}/" in server.output()


@pytest.mark.parametrize("mode", ["gevent", "threading"])
def test_other_async_modes_play_a_game(mode):
    other = Server("--async-mode", mode).wait_ready()
    try:
        final = play_bots.play(other.url, 2, say=lambda line: None)
        assert final["phase"] == "over"
    finally:
        other.stop()


def test_a_busy_port_fails_loudly(server):
    second = Server(port=server.port)
    assert second.process.wait(20) == 1
    assert "cannot listen on port" in (said := second.stop()) and "start with --port 5001" in said
    # The first server still answers alone.
    assert requests.get(server.url + "/", timeout=5).status_code == 200


def test_ctrl_c_stops_the_server_in_one_line():
    """The banner says Ctrl+C stops it; it does, without a traceback."""
    server = Server().wait_ready()
    assert "Press Ctrl+C to stop it." in server.output()
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(20) == 0
    said = server.stop()
    assert said.rstrip().endswith("maxchen stopped.") and "Traceback" not in said


@pytest.mark.parametrize("where", ["a file", "under a file", "a key of bytes", "a key that is a folder"])
def test_an_instance_folder_it_cannot_use_is_one_line(tmp_path, where):
    """--instance at a file, below one, or holding a session key that is no text: one line, exit 1, nothing
    changed (a traceback of 20 lines before, or "cannot listen on port")."""
    folder = tmp_path / "instance"
    if where in ("a file", "under a file"):
        folder.write_text("notes")
        folder = folder / "sub" if where == "under a file" else folder
    else:
        folder.mkdir(mode=0o700)  # private already: a looser one says so in a line more (tests/test_private.py)
        key = folder / "secret_key"
        paths.write_private(key, bytes(range(128, 192))) if where == "a key of bytes" else key.mkdir()
    before = sorted((p.name, p.stat().st_size) for p in tmp_path.rglob("*"))
    done = subprocess.run(
        [sys.executable, "app.py", "--host", "127.0.0.1", "--port", "1", "--instance", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stderr.startswith(f"maxchen: cannot keep its files in {folder}: ")
    assert len(done.stderr.splitlines()) == 1 and "elsewhere: --instance DIR" in done.stderr
    assert sorted((p.name, p.stat().st_size) for p in tmp_path.rglob("*")) == before


def test_an_empty_session_key_file_is_made_anew(tmp_path):
    """A key file left empty (a write cut short): a new key, and pages that need a session work."""
    (tmp_path / "secret_key").write_text("")
    server = Server(instance=str(tmp_path)).wait_ready()
    try:
        made = requests.post(
            server.url + "/rooms", data={"name": "Ann"}, headers={"Origin": server.url}, allow_redirects=False
        )
        assert made.status_code == 303
        assert len((tmp_path / "secret_key").read_text()) == 64
    finally:
        server.stop()


def test_two_doubts_in_the_same_instant_count_once(server):
    seats = [create_room(server.url, "Ann", "luegen")]
    code = seats[0]["code"]
    seats += [join_room(server.url, code, name) for name in ("Ben", "Cem", "Dora")]
    players = [Player(server.url, seat["token"]).connect() for seat in seats]
    ann, ben, cem, dora = players
    ann.act("start")
    for player in players:
        player.act("shake")
    view = ann.act("bid", count=1, face=2)
    # Cem and Dora lift the cups at once, answering the same view.
    results = {}
    barrier = threading.Barrier(2)

    def doubt(player, name):
        barrier.wait()
        try:
            player.act("doubt", version=view["version"])
            results[name] = "ok"
        except IllegalMove as error:
            results[name] = error.message

    threads = [threading.Thread(target=doubt, args=(p, n)) for p, n in ((cem, "Cem"), (dora, "Dora"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winner = next(name for name, result in results.items() if result == "ok")
    loser = next(name for name in results if name != winner)
    assert results[loser] == f"\u2068{winner}\u2069 was faster."
    final = ann.fetch()
    assert final["stack"] == 11 and sum(p["mats"] for p in final["players"]) == 1  # one mat moved
    assert final["reveal"]["doubter"] == next(
        s["player"] for s, n in zip(seats, ["Ann", "Ben", "Cem", "Dora"], strict=True) if n == winner
    )
    for player in players:
        player.disconnect()


def test_the_bot_client_waits_out_its_seats_event_budget():
    """A bot that plays faster than its seat's budget (MAXCHEN_LIMIT_EVENTS) waits as the refusal says and
    sends again: it gets the answer to its move, never `rate_limited`."""
    server = Server(env={"MAXCHEN_LIMIT_EVENTS": "4 per second"}).wait_ready()
    try:
        seat = create_room(server.url, "Ann")
        with Player(server.url, seat["token"]) as ann:
            for _ in range(10):  # a refusal of its own each time, answered; the budget waited out on the way
                with pytest.raises(IllegalMove) as refused:
                    ann.act("no-such-action")
                assert refused.value.reason == "unknown_action"
    finally:
        server.stop()


def test_the_clients_http_calls_wait_out_a_short_retry_after(monkeypatch):
    from maxchen import client

    class Answer:
        def __init__(self, status, headers=None, body=None):
            self.status_code, self.headers, self._body = status, headers or {}, body or {}

        def json(self):
            return self._body

    limited = {"error": {"code": "rate_limited", "reason": "rate_limited", "params": {"seconds": 1}, "message": ""}}
    answers = iter([Answer(429, {"Retry-After": "0"}, limited), Answer(201, body={"code": "ABCDE"})])
    monkeypatch.setattr(client.requests, "post", lambda *a, **k: next(answers))
    assert client.create_room("http://x", "Ann") == {"code": "ABCDE"}
    slow = iter([Answer(429, {"Retry-After": "3600"}, limited)])  # an hour is not waited out: said
    monkeypatch.setattr(client.requests, "post", lambda *a, **k: next(slow))
    with pytest.raises(IllegalMove) as refused:
        client.create_room("http://x", "Ann")
    assert refused.value.reason == "rate_limited"
