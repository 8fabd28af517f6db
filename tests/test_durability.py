"""Nothing lost: kill -9 the real server at chosen moments, start it again, play on.

The script is built so that its outcome does not depend on the dice: the
opener always announces 31 (nothing is lower, so a check always finds it
true and the checker pays), and once a round Mäxchen is accepted. So the
game with restarts must end exactly like the game without.
"""

import csv
import io
import json
import os
import random
import sqlite3
import threading
import time
from pathlib import Path

import pytest
import requests

from maxchen.client import Player, create_room, join_room
from maxchen.errors import IllegalMove

from .conftest import Server
from .test_fair import CHECK

NAMES = ["Ann", "Ben", "Cem"]
SEED = int(os.environ.get("MAXCHEN_KILL_SEED", random.randrange(10**6)))
FAST_RECONNECT = {"reconnection_delay": 0.1, "reconnection_delay_max": 0.5}


def summary(view) -> dict:
    """The final state, by names, without the dice (they are random)."""
    names = {p["id"]: p["name"] for p in view["players"]}
    return {
        "phase": view["phase"],
        "version": view["version"],
        "round": view["round"],
        "winner": names.get(view["winner"]),
        "host": names[view["host"]],
        "players": [(p["name"], p["points"], p["out"]) for p in view["players"]],
        "reveal": view["reveal"]
        and {
            k: names.get(view["reveal"][k], view["reveal"][k])
            for k in ("kind", "announcer", "checker", "loser", "penalty", "value")
        },
    }


def play(server, kill_at=None):
    """Play the script; kill -9 and restart after step `kill_at` = (kind, nth)."""
    url = server.url
    seats = [create_room(url, NAMES[0])]
    code = seats[0]["code"]
    seats += [join_room(url, code, name) for name in NAMES[1:]]
    players = {seat["player"]: Player(url, seat["token"], **FAST_RECONNECT).connect() for seat in seats}
    host = players[seats[0]["player"]]
    counts = {}
    checked = []

    def step_done(kind, holder=None):
        counts[kind] = counts.get(kind, 0) + 1
        if kill_at != (kind, counts[kind]):
            return
        dice_before = holder.view["dice"] if holder else None
        cup_before = host.fetch().get("fair")  # the commit of the cup to come, or of the cup on the table
        server.kill()
        server.restart()
        for player in players.values():
            deadline = time.monotonic() + 15
            while not player.sio.connected and time.monotonic() < deadline:
                time.sleep(0.05)
            assert player.sio.connected, "the client reconnected by itself"
        # The same commit after the restart: the cup to come is rolled from the seed committed before.
        assert host.fetch().get("fair") == cup_before
        if holder is not None:
            # The hidden dice of the current cup came back exactly.
            assert holder.fetch()["dice"] == dice_before
            checked.append(("dice", dice_before))

    step_done("lobby")
    host.act("start")
    accepted = False
    for _ in range(200):
        view = host.fetch()
        if view["phase"] == "over":
            break
        mover = players[view["turn"]["player"]]
        mine = mover.fetch()
        step = mine["turn"]["step"]
        if step == "shake":
            mover.act("shake")
            step_done("shake", mover)
        elif step == "announce":
            value = 21 if not accepted and mine["round"] == 2 else 31
            mover.act("announce", value=value)
            step_done("announce", mover)
        elif "accept" in mine["allowed"] and not accepted:
            mover.act("accept")
            accepted = True
            step_done("accept")
        else:
            mover.act("check")
            step_done("check")
    final = host.fetch()
    for player in players.values():
        player.disconnect()
    # Every cup of the game, believed ones too, from its own commit: none rolled twice, none from another seed.
    rows = list(
        csv.DictReader(io.StringIO(requests.get(f"{url}/r/{code}/stats.csv", timeout=10).text.lstrip("\ufeff")))
    )
    assert rows and all(CHECK.check_row(row) is None for row in rows)
    assert len({row["commit"] for row in rows}) == len(rows)
    return final, checked


@pytest.fixture(scope="module")
def reference():
    server = Server().wait_ready()
    try:
        final, _ = play(server)
    finally:
        server.stop()
    assert final["phase"] == "over"
    return summary(final)


@pytest.mark.parametrize("kind", ["lobby", "shake", "announce", "check"])
def test_kill_9_and_restart_loses_nothing(reference, kind):
    nth = 1 if kind == "lobby" else random.Random(f"{SEED}-{kind}").randint(1, 4)
    server = Server().wait_ready()
    try:
        final, checked = play(server, kill_at=(kind, nth))
        output = server.output()
    finally:
        server.stop()
    assert summary(final) == reference, f"seed {SEED}: kill after {kind} #{nth}"
    if kind in ("shake", "announce"):
        assert checked and checked[0][1] is not None
    assert "Traceback" not in output


def test_ten_clients_hammering_one_room_agree_with_the_file():
    # Double taps as fast as ten threads go: far past the flood limits, which are not what this checks.
    unlimited = dict.fromkeys(("EVENTS", "PACKETS", "ADDRESS_PACKETS"), "100000 per second")
    server = Server(env={f"MAXCHEN_LIMIT_{name}": limit for name, limit in unlimited.items()}).wait_ready()
    url = server.url
    try:
        seats = [create_room(url, "P0")]
        code = seats[0]["code"]
        seats += [join_room(url, code, f"P{i}") for i in range(1, 10)]
        players = [Player(url, s["token"]).connect() for s in seats]
        start = players[0].act("start")["version"]
        accepted = []
        refused = []
        lock = threading.Lock()
        stop = threading.Event()

        def hammer(me: Player):
            while not stop.is_set():
                view = me.view
                if view["phase"] == "over":
                    return
                mine = view["turn"] and view["turn"]["player"] == view["you"]
                step = view["turn"]["step"] if mine else None
                move = {"shake": {"action": "shake"}, "announce": {"action": "announce", "value": 31}}.get(
                    step, {"action": "check"}
                )
                # Every client fires the same move twice with the version it saw: a double tap.
                for _ in range(2):
                    try:
                        me.act(**move, version=view["version"])
                        with lock:
                            accepted.append(move["action"])
                    except IllegalMove as error:
                        with lock:
                            refused.append(error.code)
                time.sleep(0.001)

        threads = [threading.Thread(target=hammer, args=(p,)) for p in players]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and players[0].view["phase"] != "over":
            time.sleep(0.05)
        stop.set()
        for thread in threads:
            thread.join(10)
        final = players[0].view
        assert final["phase"] == "over"
        # Every accepted action moved the version by exactly one: none counted twice.
        assert final["version"] - start == len(accepted)
        assert set(refused) <= {"stale", "not_your_turn", "not_allowed"}
        assert refused.count("stale") > 0
        print(f"accepted {len(accepted)}, refused {len(refused)} ({refused.count('stale')} stale)")
        for player in players:
            view = player.wait_for(lambda v, version=final["version"]: v["version"] == version)
            assert [p["points"] for p in view["players"]] == [p["points"] for p in final["players"]]
        # The SQLite file says the same as the clients.
        db = sqlite3.connect(Path(server.instance) / "maxchen.db")
        data = json.loads(db.execute("SELECT data FROM rooms WHERE code = ?", (code,)).fetchone()[0])
        assert data["version"] == final["version"]
        assert [data["game"]["score"][p["id"]] for p in final["players"]] == [p["points"] for p in final["players"]]
        assert data["game"]["winner"] == final["winner"]
        for player in players:
            player.disconnect()
    finally:
        server.stop()


@pytest.mark.parametrize("kind", ["shake", "check"])
def test_kill_9_and_restart_with_redis_loses_nothing(reference, redis_url, kind):
    nth = random.Random(f"{SEED}-redis-{kind}").randint(1, 4)
    server = Server("--redis", redis_url).wait_ready()
    try:
        final, checked = play(server, kill_at=(kind, nth))
        output = server.output()
        assert not (Path(server.instance) / "maxchen.db").exists()  # the rooms were in Redis, not in SQLite
    finally:
        server.stop()
    assert summary(final) == reference, f"seed {SEED}: kill after {kind} #{nth}"
    assert "Traceback" not in output


@pytest.mark.parametrize("url", ["bogus://x", "redis://:hunter2@127.0.0.1:1/0"])
def test_a_redis_that_cannot_be_used_stops_the_server_with_one_line(url):
    server = Server("--redis", url)
    assert server.process.wait(60) == 1
    output = server.stop()
    assert output.startswith("maxchen: cannot use Redis at ") and output.count("\n") == 1
    assert "Traceback" not in output and "hunter2" not in output


def test_with_redis_a_push_to_another_process_travels_through_its_message_queue_as_json(redis_url):
    """Several processes reach each other's sockets through Redis: a push for a socket of another process goes
    out on the queue's channel (a socket of its own process is sent to straight)."""
    import redis

    one, two = Server("--redis", redis_url), Server("--redis", redis_url)
    one.wait_ready(), two.wait_ready()
    listener = redis.Redis.from_url(redis_url).pubsub()
    try:
        listener.subscribe("maxchen")
        ann = create_room(one.url, "Ann")
        ben = join_room(one.url, ann["code"], "Ben")
        with Player(one.url, ann["token"]) as host, Player(two.url, ben["token"]) as guest:
            sids = {"ben": guest.sio.get_sid()}
            host.act("start")
            guest.wait_for(lambda view: view["phase"] == "playing")  # Ben's view came through the queue
        published = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            message = listener.get_message(timeout=1)
            if message is None:
                break
            if message["type"] == "message":
                published.append(json.loads(message["data"]))  # JSON, not pickle (CVE-2025-61765)
        sent_to = {m["room"] for m in published if m["method"] == "emit" and m["event"] == "view"}
        assert sids["ben"] in sent_to
    finally:
        listener.close()
        one.stop()
        two.stop()


def test_two_processes_on_one_redis_count_simultaneous_checks_once(redis_url):
    """The same check sent to two server processes at once: one counts, the other is refused."""
    import requests

    one, two = Server("--redis", redis_url), Server("--redis", redis_url)
    one.wait_ready(), two.wait_ready()
    try:
        ann = create_room(one.url, "Ann")
        code = ann["code"]
        ben = join_room(two.url, code, "Ben")  # a seat made by the other process
        seats = {"Ann": ann, "Ben": ben}

        def act(server, who, **body):
            headers = {"Authorization": f"Bearer {seats[who]['token']}"}
            return requests.post(f"{server.url}/api/rooms/{code}/actions", json=body, headers=headers, timeout=10)

        assert act(one, "Ann", action="start").status_code == 200
        counted = 0
        for _ in range(12):
            view = requests.get(f"{two.url}/api/rooms/{code}", headers={"Authorization": f"Bearer {ann['token']}"})
            view = view.json()
            if view["phase"] != "playing":
                break
            turn = view["turn"]
            who = next(name for name, seat in seats.items() if seat["player"] == turn["player"])
            if turn["step"] == "shake":
                assert act(one, who, action="shake").status_code == 200
                continue
            if turn["step"] == "announce":
                mine = {"Authorization": f"Bearer {seats[who]['token']}"}
                choices = requests.get(f"{one.url}/api/rooms/{code}", headers=mine, timeout=10).json()["choices"]
                assert act(two, who, action="announce", value=choices[0]).status_code == 200
                continue
            # The decider's check goes to both processes at the same moment.
            start, answers = threading.Barrier(2), []

            def check(server, who=who, version=view["version"], start=start, answers=answers):
                start.wait()
                answers.append(act(server, who, action="check", version=version).status_code)

            threads = [threading.Thread(target=check, args=(server,)) for server in (one, two)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(answers) == [200, 409], answers  # one counts, the other is told the table moved on
            counted += 1
        final = requests.get(f"{one.url}/api/rooms/{code}", headers={"Authorization": f"Bearer {ann['token']}"})
        assert counted >= 2 and final.json()["round"] == counted + 1  # each check ended one round, once
    finally:
        one.stop()
        two.stop()


def _start(base, code, token):
    """The host's start over the API (a slow machine, or Redis just back: a generous timeout)."""
    return requests.post(
        f"{base}/api/rooms/{code}/actions",
        json={"action": "start"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=20,
    )


def test_after_a_redis_restart_a_socket_on_another_process_hears_the_change(tmp_path):
    """Redis restarts while two processes serve one room: a change made on process one as soon as Redis is
    back reaches Ben's socket on process two (python-socketio's queue waited up to a minute to listen again,
    and what was published meanwhile was lost: Ben waited for ever)."""
    from tests.conftest import RedisServer, need_redis_server, wait_until

    need_redis_server()
    aof = ("--appendonly", "yes", "--appendfsync", "always")
    redis_server = RedisServer(tmp_path, *aof).start()
    one = Server("--redis", redis_server.url).wait_ready()
    two = Server("--redis", redis_server.url).wait_ready()
    ben = None
    try:
        ann = create_room(one.url, "Ann")
        ben = Player(two.url, join_room(two.url, ann["code"], "Ben")["token"]).connect()
        ben.wait_for(lambda view: len(view["players"]) == 2)
        redis_server.shutdown()
        time.sleep(4)  # python-socketio's listener backs off 1, 2, 4 s…
        redis_server = RedisServer(tmp_path, *aof, port=redis_server.port).start()
        answer = _start(one.url, ann["code"], ann["token"])
        assert answer.status_code == 200, answer.text
        assert ben.wait_for(lambda view: view["phase"] == "playing", 20)["phase"] == "playing"
        # Ben may have heard it by another way first (his socket connected again): the queue listens within 1 s.
        assert wait_until(lambda: "listens again" in two.output(), 5), two.output()
    finally:
        if ben:
            ben.disconnect()
        one.stop()
        two.stop()
        redis_server.stop()


def test_with_redis_away_every_change_is_refused_with_a_reason_and_none_half_made(tmp_path):
    """Redis stops under a running server: the API, a page's form and a socket are told `store_down`;
    when Redis is back (its AOF kept the room), the room plays on where it was."""
    from tests.conftest import RedisServer, need_redis_server

    need_redis_server()
    aof = ("--appendonly", "yes", "--appendfsync", "always")
    redis_server = RedisServer(tmp_path, *aof).start()
    server = Server("--redis", redis_server.url).wait_ready()
    try:
        ann = create_room(server.url, "Ann")
        code = ann["code"]
        ben = join_room(server.url, code, "Ben")
        bot = Player(server.url, ben["token"]).connect()
        redis_server.shutdown()
        refused = _start(server.url, code, ann["token"])
        assert refused.status_code == 503 and refused.json()["error"]["reason"] == "store_down"
        with pytest.raises(IllegalMove) as told:
            bot.act("leave")
        assert told.value.reason == "store_down"
        page = requests.get(f"{server.url}/r/{code}", timeout=20)
        assert page.status_code == 503 and "storage" in page.text
        redis_server = RedisServer(tmp_path, *aof, port=redis_server.port).start()
        answer = _start(server.url, code, ann["token"])
        assert answer.status_code == 200 and answer.json()["phase"] == "playing"
        assert [p["name"] for p in answer.json()["players"]] == ["Ann", "Ben"]  # Ben did not leave
        bot.disconnect()
    finally:
        server.stop()
        redis_server.stop()
