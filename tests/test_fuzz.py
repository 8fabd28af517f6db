"""A fuzzer at every door of the real server: nothing breaks, every room still plays to the end.

Random HTTP API calls, htmx form posts and Socket.IO events (reserved names,
random and deeply nested JSON, odd Unicode digits, every action in every
phase, rule switches after a game), mixed with legal moves so that games pass
through every phase. Then: no 5xx, no traceback in the server's log, and every
room loads and plays to its end. Seed: MAXCHEN_FUZZ_SEED (default 7).
"""

import contextlib
import os
import random

import requests
import socketio

from maxchen.client import Player, create_room, join_room
from maxchen.errors import IllegalMove
from maxchen.rulesets import RULESETS
from maxchen.table import ROOM_ACTIONS

from .conftest import Server

SEED = int(os.environ.get("MAXCHEN_FUZZ_SEED", "7"))
STEPS = 360  # with the other doors below about 1,200 inputs a run (MAXCHEN_FUZZ_SEED picks another run)
ACTIONS = sorted({*ROOM_ACTIONS, *(a for r in RULESETS.values() for a in r.ACTIONS), "fly", ""})
EVENTS = ["action", "signal", "connect", "disconnect", "message", "join", "", "x" * 300]
ODD = ["²", "⁵", "٣", "５", "5" * 5000, "-", "1e9", "", "NaN", "\u202e65", "<b>x</b>", "\u200b", "65", "3", "-1", "0"]
KEYS = ["action", "value", "version", "options", "rules", "player", "seat", "count", "face", "lives", "mats"]
# The fuzzer fails a lot from one address: far past the flood limits, which are not what this checks.
UNLIMITED = {"MAXCHEN_LIMIT_FAILURES": "100000 per second", "MAXCHEN_LIMIT_EVENTS": "100000 per second"}
# At the end the host removes the seats the fuzzer left stalled, without the grace a reload gets.
UNLIMITED["MAXCHEN_OFFLINE_GRACE"] = "0"


def random_json(rng, depth=0):
    kind = rng.randrange(10)
    if depth > 3 or kind < 4:
        return rng.choice([None, True, 0, -1, 2**63, 1.5, "", "x", *ODD[:4], *ACTIONS])
    if kind < 6:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(KEYS): random_json(rng, depth + 1) for _ in range(rng.randrange(5))}


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def legal_move(view, rng) -> dict | None:
    allowed = [a for a in view["allowed"] if a not in ("remove", "seat", "configure", "leave")]
    if not allowed:
        return None
    move = {"action": rng.choice(allowed), "version": view["version"]}
    if move["action"] == "announce":
        move["value"] = rng.choice(view["choices"])
    if move["action"] == "bid":
        move.update(rng.choice(view["choices"]))
    return move


class Table:
    """One room of three: API seats, their sockets, and a browser session holding the host's seat."""

    def __init__(self, url, rules):
        self.url = url
        host = create_room(url, "Ann", rules)
        self.code = host["code"]
        self.seats = [host] + [join_room(url, self.code, name) for name in ("Ben", "Cem")]
        self.players = [Player(url, seat["token"]).connect() for seat in self.seats]
        self.browser = requests.Session()
        self.browser.post(f"{url}/r/{self.code}/join", data={"name": "Dora"}, timeout=10)  # waits or seats

    def close(self):
        for player in self.players:
            player.disconnect()
        self.browser.close()


def test_fuzzing_every_door_breaks_nothing():
    rng = random.Random(SEED)
    server = Server(env=UNLIMITED).wait_ready()
    url = server.url
    answers = []
    tables = [Table(url, rules) for rules in sorted(RULESETS)]
    try:
        for step in range(STEPS):
            table = rng.choice(tables)
            player = rng.choice(table.players)
            token = player.token if rng.random() < 0.8 else rng.choice(["", "x", "Bearer", "²"])
            door = rng.randrange(7)
            if door == 0:  # the JSON API with random bodies
                path = rng.choice(
                    ["/api/rooms", f"/api/rooms/{table.code}/players", f"/api/rooms/{table.code}/actions"]
                )
                extra = random_json(rng, 2)
                action = rng.choice([a for a in ACTIONS if a != "leave"])  # the API players stay to finish
                body = rng.choice([extra, {"action": action, **(extra if isinstance(extra, dict) else {})}])
                answers.append(requests.post(url + path, json=body, headers={"Authorization": f"Bearer {token}"}))
            elif door == 1:  # raw bodies: broken, deep, not JSON
                raw = rng.choice([deep(5000), deep(40), "{", "\xff\xfe", "null", '{"action":' * 50])
                answers.append(
                    requests.post(
                        f"{url}/api/rooms/{table.code}/actions",
                        data=raw.encode("utf-8", "surrogatepass"),
                        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
                    )
                )
            elif door == 2:  # the page's htmx forms, odd fields
                form = {"action": rng.choice(ACTIONS), "version": rng.choice(ODD)}
                for key in rng.sample(["value", "seat", "player", "rules", "count", "face", "option.lives"], 3):
                    form[key] = rng.choice([*ODD, *RULESETS])
                act_url = f"{url}/r/{table.code}/act"
                answers.append(table.browser.post(act_url, data=form, headers={"HX-Request": "true"}))
            elif door == 3:  # Socket.IO events, reserved names included
                with contextlib.suppress(socketio.exceptions.BadNamespaceError):
                    player.sio.emit(rng.choice(EVENTS), random_json(rng))
            elif door == 4:  # raw Socket.IO packets: deep, broken
                player.sio.eio.send(rng.choice(["2" + deep(5000), "2[", '2["action",' + deep(40) + "]", "9x", "2"]))
            elif door == 5:  # the host switches rules or starts again, whatever the phase
                options = {"rules": rng.choice([*RULESETS, "skat"])}
                answers.append(
                    requests.post(
                        f"{url}/api/rooms/{table.code}/actions",
                        json={"action": rng.choice(["configure", "start"]), "options": options},
                        headers={"Authorization": f"Bearer {table.players[0].token}"},
                    )
                )
            else:  # a legal move moves the game on
                view = player.fetch()
                move = legal_move(view, rng)
                if move:
                    answers.append(
                        requests.post(
                            f"{url}/api/rooms/{table.code}/actions",
                            json=move,
                            headers={"Authorization": f"Bearer {player.token}"},
                        )
                    )
            if step % 100 == 99:
                assert server.process.poll() is None, server.output()

        broken = [
            (a.request.method, a.request.url, a.status_code, a.text[:200]) for a in answers if a.status_code > 499
        ]
        assert broken == []
        for table in tables:
            _play_to_the_end(table, rng)
    finally:
        for table in tables:
            table.close()
        output = server.stop()
    assert "Traceback" not in output and "handler error" not in output, output[-3000:]


def _play_to_the_end(table: Table, rng):
    """The room loads, and its API players play a new game to its end (Dora's idle seat and bots removed)."""
    host = table.players[0]
    view = host.fetch()
    for seat in view["players"]:
        # Dora's idle seat and the bots the fuzzing seated go (unless gone already).
        if (seat["name"] == "Dora" or seat.get("bot")) and not seat["left"]:
            host.act("remove", player=seat["id"])
    started = False
    for _ in range(3000):
        views = [p.fetch() for p in table.players]
        phase = views[0]["phase"]
        if phase == "over" and started:
            return
        if phase in ("lobby", "over"):
            # The shortest game of whatever rule set the fuzzing left (fewest lives or mats): it must end.
            shortest = {name: o.low for name, o in RULESETS[views[0]["rules"]].OPTIONS.items() if o.low is not None}
            host.act("configure", options=shortest)
            host.act("start")
            started = True
            continue
        movers = [(p, legal_move(v, rng)) for p, v in zip(table.players, views, strict=True)]
        movers = [(p, m) for p, m in movers if m]
        assert movers, f"nobody can move in {table.code}: {views[0]}"
        mover, move = rng.choice(movers)
        try:
            mover.act(**move)
        except IllegalMove as error:  # a race with the pushes: look again
            if error.code not in ("stale", "not_allowed"):
                raise
    raise AssertionError(f"room {table.code} did not finish")
