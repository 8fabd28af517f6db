"""The live table: what each socket is sent, for every registered rule set.

Secrets are stripped by what is rendered, so the test reads what was
actually pushed: the public parts (the room's channel, which a watcher
without a seat receives) and each page's private part.
"""

import json
import random
import re

import pytest

from maxchen.presence import RedisPresence
from maxchen.rooms import Rooms
from maxchen.rulesets import RULESETS
from maxchen.server import socketio
from maxchen.store import RedisStore
from tests.conftest import SeededDice

FACE = re.compile(r'class="die face-(\d)"')
CUP = re.compile(r'id="cup-view">(.*?)</script>', re.S)


@pytest.fixture(params=["one process", "redis"])
def rooms(request, dice):
    """Every test here also on Redis: presence and what each page holds shared there."""
    if request.param == "one process":
        return Rooms(dice=dice)
    store = RedisStore(request.getfixturevalue("redis_url"))
    return Rooms(dice=dice, store=store, presence=RedisPresence(store.client, store.prefix))


def public_dice(view) -> int:
    """How many dice the public view may show: the last reveal's, the face of a standing bid and of each of
    the round's bids (their history)."""
    reveal = view.get("reveal") or {}
    shown = reveal.get("dice") or []
    count = sum(len(cup) for cup in shown.values()) if isinstance(shown, dict) else len(shown)
    bids = len(view.get("bids") or []) if view["phase"] == "playing" else 0
    return count + (1 if view["phase"] == "playing" and view.get("bid") else 0) + bids


def parts(client) -> list[str]:
    return [m["args"][0]["html"] for m in client.get_received() if m["name"] == "parts"]


def closed_salts(game) -> set[str]:
    """The secrets of the cups on the table now and of those about to be rolled: the salts of cups rolled
    before the seeds, and the server seeds (maxchen/fair.py). As secret as their dice."""
    seals = [game.seal] if getattr(game, "seal", None) else list(getattr(game, "seals", {}).values())
    records = game.records.values() if isinstance(getattr(game, "records", None), dict) else [game.record]
    pending = game.pending.values() if isinstance(game.pending, dict) and "seed" not in game.pending else [game.pending]
    return (
        {seal["salt"] for seal in seals}
        | {record["server_seed"] for record in records if record}
        | {cup["seed"] for cup in pending if cup}
    )


def opened_salts(view) -> set[str]:
    """The salts and server seeds a reveal has shown to everyone."""
    reveal = view.get("reveal") or {}
    salt = reveal.get("salt") or {}
    records = reveal.get("fair") or {}
    records = [records] if "commit" in records else list(records.values())
    salts = set(salt.values()) if isinstance(salt, dict) else {salt}
    return salts | {record["server_seed"] for record in records if record and "server_seed" in record}


def page(app, code, token):
    """A room page's socket: the browser's session cookie holds the seat."""
    browser = app.test_client()
    with browser.session_transaction() as session:
        session["seats"] = {code: token}
    return socketio.test_client(app, auth={"room": code}, flask_test_client=browser)


def some_move(rooms, code, seats, rng) -> tuple[str, dict] | None:
    """A legal move of some player, chosen at random."""
    for seat in rng.sample(seats, len(seats)):
        view = rooms.view(code, seat["player"])
        allowed = [a for a in view["allowed"] if a != "start"]
        if not allowed:
            continue
        action = rng.choice(allowed)
        move = {"action": action}
        if action == "announce":
            move["value"] = rng.choice(view["choices"])
        if action == "bid":
            move.update(rng.choice(view["choices"]))
        return seat["player"], move
    return None


@pytest.mark.parametrize("rules", sorted(RULESETS))
@pytest.mark.parametrize("seed", [1, 2])
def test_pushed_parts_and_views_never_hold_a_hidden_die_salt_or_seed(app, rooms, rules, seed):
    rooms.dice = SeededDice(seed)
    rng = random.Random(seed)
    ruleset = RULESETS[rules]
    host = rooms.create("Ann", rules)
    code = host["code"]
    seats = [host] + [rooms.join(code, name) for name in ("Ben", "Cem", "Dora")[: max(2, ruleset.MIN_PLAYERS)]]
    watcher = socketio.test_client(app, auth={"room": code, "watch": True})
    pages = {seat["player"]: page(app, code, seat["token"]) for seat in seats}
    bot = socketio.test_client(app, auth={"token": seats[1]["token"]})  # a JSON client gets views
    assert watcher.is_connected() and bot.is_connected() and all(p.is_connected() for p in pages.values())
    rooms.act(code, host["player"], {"action": "start"})
    drawn, opened = set(), set()
    stranger, told = app.test_client(), None
    app.config["MAXCHEN_LIMIT_PAGES"] = (
        "100000 per second"  # asked for after every move  # the statistics as JSON, for anyone with the code
    )
    for _ in range(600):
        room = rooms.load(code)
        public = room.public_view(rooms.connected(code))
        # The statistics' JSON changes only when the whole table saw dice: a reveal, or the end of the game.
        answer = stranger.get(f"/api/rooms/{code}/stats")
        assert answer.status_code == 200
        numbers = answer.get_json()
        now = (json.dumps(numbers, sort_keys=True), (public.get("reveal") or {}).get("round"), room.phase)
        if told is not None and now[0] != told[0]:
            assert now[1:] != told[1:], "the statistics changed with no dice shown to the table"
        told = now
        # No salt of a closed cup in anything sent: not in a part, not in a view (its owner's neither).
        drawn |= closed_salts(room.game)
        opened |= opened_salts(public)
        secret = drawn - opened
        watched, paged = parts(watcher), {player: parts(client) for player, client in pages.items()}
        sent = [*watched, *(html for htmls in paged.values() for html in htmls)]
        sent += [json.dumps(m["args"][0]) for m in bot.get_received() if m["name"] == "view"]
        sent.append(told[0])
        assert sent, "every move pushes something"
        assert not any(salt in text for salt in secret for text in sent)
        # The watcher holds exactly the public parts: no cup, no die but the public ones.
        for html in watched:
            assert "cup-view" not in html
            if 'id="table"' in html:
                assert len(FACE.findall(html)) == public_dice(public), html
        # Each page's private part holds its own dice, or none.
        for player, htmls in paged.items():
            own = room.view_for(player, {})["dice"]
            for html in htmls:
                for cup in CUP.findall(html):
                    assert json.loads(cup)["dice"] in (None, own)
                if 'id="table"' in html:
                    assert len(FACE.findall(html)) == public_dice(public)
        if room.phase != "playing":
            break
        move = some_move(rooms, code, seats, rng)
        assert move, "somebody can always move while a game runs"
        rooms.act(code, *move)
    assert rooms.load(code).phase == "over"


def test_a_watcher_gets_the_public_parts_and_nothing_else(app, rooms, dice):
    host = rooms.create("Ann")
    code = host["code"]
    ben = rooms.join(code, "Ben")
    watcher = socketio.test_client(app, auth={"room": code.lower(), "watch": True})
    (welcome,) = parts(watcher)
    assert 'id="players"' in welcome and 'id="table"' in welcome and 'id="controls"' not in welcome
    # A watcher is nobody at the table: not counted, cannot act or signal.
    assert rooms.connected(code) == {}
    assert watcher.emit("action", {"action": "start"}, callback=True)["error"]["code"] == "bad_token"
    assert watcher.emit("signal", {"activity": "peeking"}, callback=True)["error"]["code"] == "bad_token"
    dice.add((6, 3))
    rooms.act(code, host["player"], {"action": "start"})
    rooms.act(code, host["player"], {"action": "shake"})
    pushed = parts(watcher)
    assert pushed and not any("face-6" in html or "face-3" in html for html in pushed)
    rooms.act(code, host["player"], {"action": "announce", "value": 63})
    rooms.act(code, ben["player"], {"action": "check"})
    reveal = [html for html in parts(watcher) if 'id="table"' in html][-1]
    assert FACE.findall(reveal) == ["6", "3"]  # a check shows the dice to everyone
    assert not socketio.test_client(app, auth={"room": "ZZZZZ", "watch": True}).is_connected()


def test_a_peek_touches_the_players_area_and_nothing_else(app, rooms, dice):
    host = rooms.create("Ann")
    code = host["code"]
    ben = rooms.join(code, "Ben")
    ann_page, ben_page = page(app, code, host["token"]), page(app, code, ben["token"])
    dice.add((5, 2))
    rooms.act(code, host["player"], {"action": "start"})
    rooms.act(code, host["player"], {"action": "shake"})
    parts(ann_page), parts(ben_page)
    assert ann_page.emit("signal", {"activity": "peeking"}, callback=True) == {"ok": True}
    (pushed,) = parts(ben_page)
    assert re.findall(r'<(?:div|section) id="(\w+)"', pushed) == ["players"]
    assert 'data-activity="peeking"' in pushed
    assert parts(ann_page) == [pushed]  # the peeker's own controls are not sent again


def test_the_board_page_shows_the_table_and_never_a_hidden_die(app, rooms, dice):
    """A projector opens /r/CODE/board: no seat, no controls, only what the whole table may see."""
    host = rooms.create("Ann")
    code = host["code"]
    ben = rooms.join(code, "Ben")
    board = app.test_client()

    def shown():
        response = board.get(f"/r/{code.lower()}/board")
        assert response.status_code == 200
        return response.get_data(as_text=True)

    html = shown()
    assert code in html and "<svg" in html and 'id="players"' in html and 'id="table"' in html
    assert 'id="controls"' not in html and "cup-view" not in html and 'data-board="1"' in html
    assert rooms.connected(code) == {} and len(rooms.load(code).members()) == 2  # nobody sat down
    dice.add((6, 3), (5, 4))
    rooms.act(code, host["player"], {"action": "start"})
    rooms.act(code, host["player"], {"action": "shake"})
    assert FACE.findall(shown()) == []  # Ann's cup is hers
    rooms.act(code, host["player"], {"action": "announce", "value": 63})
    rooms.act(code, ben["player"], {"action": "believe"})  # the cup passes on unseen
    rooms.act(code, ben["player"], {"action": "shake"})
    assert FACE.findall(shown()) == []
    rooms.act(code, ben["player"], {"action": "announce", "value": 65})
    rooms.act(code, host["player"], {"action": "check"})
    assert FACE.findall(shown()) == ["5", "4"]  # a check shows Ben's dice to all; Ann's 6-3 never
    assert board.get("/r/ZZZZZ/board").status_code == 404


def test_a_one_phone_table_has_no_board(app, rooms):
    table = rooms.create_shared(["Anna", "Boris"])
    response = app.test_client().get(f"/r/{table['code']}/board")
    assert response.status_code == 409 and "This table plays on one phone" in response.get_data(as_text=True)


def test_the_boards_statistics_never_tell_on_a_believed_roll(app, rooms, dice):
    """Ann's 4-1 behind a believed "62" must not tick the board's 41 before her game is over."""
    host = rooms.create("Ann")
    code = host["code"]
    ben = rooms.join(code, "Ben")
    cem = rooms.join(code, "Cem")
    board = app.test_client()
    watcher = socketio.test_client(app, auth={"room": code, "watch": True})
    parts(watcher)

    def counted():
        html = board.get(f"/r/{code}/board").get_data(as_text=True)
        stats = html[html.index('id="stats"') :]
        return {int(v): int(n) for v, n in re.findall(r"<title>(\d+): [\d.]+ % \((\d+)\)</title>", stats) if n != "0"}

    dice.add((4, 1), (6, 5))
    rooms.act(code, host["player"], {"action": "start"})
    rooms.act(code, host["player"], {"action": "shake"})
    rooms.act(code, host["player"], {"action": "announce", "value": 62})
    rooms.act(code, ben["player"], {"action": "believe"})
    assert counted() == {}
    assert not any('id="stats"' in html for html in parts(watcher))  # nothing pushed to the board either
    rooms.act(code, ben["player"], {"action": "shake"})
    rooms.act(code, ben["player"], {"action": "announce", "value": 65})
    rooms.act(code, cem["player"], {"action": "check"})  # Ben's 65 is shown to all: this game's checked cups
    assert counted() == {}  # the dice are judged on games that are over, never on the checked cups alone
    assert "1 checked cup" in board.get(f"/r/{code}/board").get_data(as_text=True)
    assert any('id="stats"' in html for html in parts(watcher))
    # The game ends (the others leave): now every roll of it counts, Ann's unseen 41 too.
    rooms.act(code, ben["player"], {"action": "leave"})
    rooms.act(code, cem["player"], {"action": "leave"})
    assert counted() == {65: 1, 41: 1}


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_a_part_drawn_for_another_language_speaks_it_throughout(app, rules):
    """The end of a game drawn in Russian while an English player's request runs: the standings and numbers too."""
    from maxchen import live

    from .test_verdict import _move, _table

    rng, dice = random.Random(2), SeededDice(2)
    room, seats = _table(rules, rng)
    _move(room, seats, dice, rng)
    while _move(room, seats, dice, rng):
        pass
    with app.test_request_context(headers={"Accept-Language": "en"}):
        parts = live.render_public(room.public_view({}), lang="ru")
    text = re.sub(r"<[^>]+>", " ", parts["players"] + parts["table"])
    assert "раунд" in text  # the game's numbers under the standings
    english = re.findall(r"\b(?:rounds?|points?|lives|life|beer mats?|dice|die|checks?|doubts?|dudos?)\b", text)
    assert english == [], english


def test_a_reaction_reaches_every_screen_a_few_at_a_time_and_nothing_else(app, rooms):
    """An emoji of Ann's goes to every socket of the room (pages, a board, a bot's), changes nothing and is
    kept nowhere; anything but one of the five is refused and sent to nobody; a seat sends a few, then waits."""
    host = rooms.create("Ann")
    code = host["code"]
    ben = rooms.join(code, "Ben")
    ann_page, ben_page = page(app, code, host["token"]), page(app, code, ben["token"])
    board = socketio.test_client(app, auth={"room": code, "watch": True})
    bot = socketio.test_client(app, auth={"token": ben["token"]})
    screens = (ann_page, ben_page, board, bot)

    def reactions(client):
        return [m["args"][0] for m in client.get_received() if m["name"] == "reaction"]

    for client in screens:
        client.get_received()
    before = rooms.load(code).to_dict()
    assert ann_page.emit("react", {"emoji": "🎉"}, callback=True) == {"ok": True}
    for client in screens:
        assert reactions(client) == [{"player": host["player"], "emoji": "🎉"}]
    assert rooms.load(code).to_dict() == before
    for bad in ({"emoji": "hello <b>"}, {"emoji": ["🎉"]}, {"emoji": "🎉🎉"}, {}, "🎉", None):
        answer = ann_page.emit("react", bad, callback=True)
        assert answer["error"]["code"] == "bad_request" and "emoji" in answer["error"]["message"], answer
    assert board.emit("react", {"emoji": "👍"}, callback=True)["error"]["code"] == "bad_token"
    assert [reactions(client) for client in screens] == [[]] * 4
    answers = [ben_page.emit("react", {"emoji": "😂"}, callback=True) for _ in range(5)]
    assert answers[:3] == [{"ok": True}] * 3
    assert [answer["error"]["code"] for answer in answers[3:]] == ["rate_limited"] * 2
    assert len(reactions(ann_page)) == 3


def test_leaving_and_sitting_down_again_starts_no_new_budget_of_emoji(app, rooms):
    """One address that leaves and takes a seat again, and again, sends the table no more emoji than the
    address's budget (12), whatever the seats' own budgets (3 each)."""
    # The windows of the defaults (5 s) as hours: a slow machine's six turns stay in one window.
    app.config["MAXCHEN_LIMIT_REACTIONS"] = "3 per hour"
    app.config["MAXCHEN_LIMIT_ADDRESS_REACTIONS"] = "12 per hour"
    host = rooms.create("Ann")
    code = host["code"]
    ann_page = page(app, code, host["token"])
    sent = 0
    for turn in range(6):
        seat = rooms.join(code, f"Flooder{turn}")
        flooder = page(app, code, seat["token"])
        answers = [flooder.emit("react", {"emoji": "🙈"}, callback=True) for _ in range(3)]
        sent += sum(answer == {"ok": True} for answer in answers)
        flooder.disconnect()
        rooms.act(code, seat["player"], {"action": "leave"})
    shown = [m for m in ann_page.get_received() if m["name"] == "reaction"]
    assert sent == len(shown) == 12, (sent, len(shown))  # six seats of 3 would be 18
