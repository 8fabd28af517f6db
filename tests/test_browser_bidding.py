"""Waiting in liar's dice (Lügen, Perudo), on a phone and on the party's TV.

A phone that has shaken names whose cups the round still waits for, fewer as they shake; the round's bids are listed
newest first on a waiting phone and, where there is room, on the bidder's own, never at the cost of a player's row,
the line of whose turn it is or the bid's button. The TV keeps its turn line on the screen with ten players, every
word at least 32 px, without scrolling, to the game's end. The other players are scripts on the JSON API.
Screenshots: tests/artifacts/bidding-*.png.
"""

import pytest
import requests

from maxchen.client import join_room

from . import look
from .test_browser import ARTIFACTS, BOARD_SIZES, OVERFLOWS
from .test_look import TEN, _api, _check, _claim, _shake, _view, phone_context


@pytest.fixture(scope="module")
def server():
    from .conftest import Server

    # The scripted players have no page: offline to the table the whole test, and no host's ✕ comes on their rows.
    started = Server(env={"MAXCHEN_OFFLINE_GRACE": "600"}).wait_ready()
    yield started
    started.stop()


# The bids a screen shows, as (name, count, face): of each list a player sees (the copy under a waiting phone's
# line of whose turn it is, or the table's own on the bidder's phone and the TV), the chips wholly in sight.
SHOWN_BIDS = """() => [...document.querySelectorAll("#controls > .bid-history, #table .bid-history")]
  .filter((list) => list.checkVisibility() && list.getBoundingClientRect().height > 2)
  .map((list) => {
    const box = list.getBoundingClientRect();
    const whole = (r) => r.width > 0 && r.top >= Math.max(box.top, 0) - 1
      && r.bottom <= Math.min(box.bottom, innerHeight) + 1 && r.left >= Math.max(box.left, 0) - 1
      && r.right <= Math.min(box.right, innerWidth) + 1;
    return [...list.children].filter((li) => li.checkVisibility() && whole(li.getBoundingClientRect())).map((li) => [
      li.querySelector(".name").textContent, parseInt(li.querySelector(".what").textContent),
      +li.querySelector(".what .die").className.match(/face-(\\d)/)[1]]);
  })"""

STILL_SHAKING = """() => { const line = document.querySelector("#controls [data-shaking]");
  return line && {names: [...line.querySelectorAll("bdi")].map((b) => b.textContent), text: line.textContent}; }"""


def shown_bids(page) -> list[list]:
    """The bids the one list a screen shows has wholly in sight (none where it shows none)."""
    lists = page.evaluate(SHOWN_BIDS)
    assert len(lists) <= 1, lists
    return lists[0] if lists else []


def newest_first(base, code, token) -> list[list]:
    """The round's bids as the API tells them, newest first, as SHOWN_BIDS reads them."""
    view = _view(base, code, token)
    names = {p["id"]: p["name"] for p in view["players"]}
    return [[names[b["player"]], b["count"], b["face"]] for b in reversed(view["bids"])]


def rows_in_sight(page, players, tag):
    for row in range(players):
        assert look.in_view(page, f"#stage .table-list .player >> nth={row}"), f"{tag}: row {row}"


# Each rule set at each size, each language at two sizes; three players, and a full table of ten. How many chips at
# least a waiting phone and the bidder's own show (the smallest phone with ten keeps its room for the rows).
PHONES = [
    ("luegen", "phone", "en", 3, 1, 1),
    ("perudo", "small", "de", 3, 1, 0),
    ("luegen", "landscape", "ru", 10, 1, 1),
    ("perudo", "phone", "ru", 10, 1, 0),
    ("perudo", "landscape", "en", 3, 1, 1),
    ("luegen", "small", "de", 10, 0, 0),
]


@pytest.mark.parametrize(("rules", "size", "lang", "players", "waiting", "bidding"), PHONES)
def test_a_shaken_phone_names_who_shakes_then_lists_the_bids_newest_first(
    browser, server, rules, size, lang, players, waiting, bidding
):
    """Zoe's phone, the table's second seat (Anke, a script, hosts and opens each round): every moment of a round."""
    base = server.url
    host = requests.post(f"{base}/api/rooms", json={"name": "Anke", "rules": rules}, timeout=10).json()
    code = host["code"]
    context = phone_context(browser, size, lang)
    page = context.new_page()
    page.goto(f"{base}/r/{code}")
    page.fill("main input[name=name]", "Zoe")
    page.click("main form button[type=submit]")
    page.wait_for_selector(".lobby-list .player.me")
    seats = {host["player"]: host["token"]}
    for name in TEN[: players - 2]:
        seat = join_room(base, code, name)
        seats[seat["player"]] = seat["token"]
    page.wait_for_function("(n) => document.querySelectorAll('.lobby-list .player').length === n", arg=players)
    _api(base, code, host["token"], action="start")
    page.wait_for_selector("#cup.my-turn")
    tag = f"bidding-{rules}-{size}-{lang}-{players}"

    # I shake first: my phone names the others, in the table's order, up to three (else two, and how many more).
    _shake(page)
    others = ["Anke", *TEN[: players - 2]]
    for shaken, token in enumerate(seats.values()):
        left = others[shaken:]
        named = left if len(left) <= 3 else left[:2]
        page.wait_for_function(
            f"(named) => {{ const s = ({STILL_SHAKING})(); return !!s && s.names.join() === named.join(); }}", arg=named
        )
        said = page.evaluate(STILL_SHAKING)
        assert len(left) <= 3 or f" {len(left) - 2} " in said["text"], said
        assert look.in_view(page, "#controls [data-shaking]"), f"{tag}: who still shakes"
        rows_in_sight(page, players, tag)
        if shaken in (0, len(others) - 1):
            _check(page, f"{tag}-shaking-{len(left)}")
        _api(base, code, token, action="shake")
    # The last cup: the bidding begins, and nobody is named still shaking.
    page.wait_for_selector("#controls [data-watching]")
    assert page.locator("#controls [data-shaking]").count() == 0

    # The bids go round (three at the table: twice), each bidding the least: my phone waits, then bids.
    rounds = 2 if players == 3 else 1
    waited = 0
    for _ in range(rounds * players + 2):  # my turn comes a last time
        turn = _view(base, code, host["token"])["turn"]["player"]
        if turn not in seats:  # mine: the bids above the rows where there is room, but for the standing one
            page.wait_for_selector("form[data-claim]")  # (its card says it); every row and the bid's button in sight
            page.wait_for_function(look.AT_REST)
            bids = newest_first(base, code, host["token"])
            shown = shown_bids(page)
            assert len(shown) >= min(bidding, len(bids) - 1) and shown == bids[1 : 1 + len(shown)], (tag, shown, bids)
            rows_in_sight(page, players, tag)
            assert look.in_view(page, "form[data-claim] button[type=submit]"), f"{tag}: the bid's button"
            _check(page, f"{tag}-bidding-{len(bids)}")
            _claim(page)
            page.wait_for_selector("form[data-claim]", state="detached")
            continue
        token = seats[turn]
        _api(base, code, token, action="bid", **_view(base, code, token)["choices"][0])
        bids = newest_first(base, code, token)
        if _view(base, code, token)["turn"]["player"] not in seats or waited >= 3:
            continue
        # Waiting: under the line of whose turn it is, the newest bids that fit, newest first.
        waited += 1
        page.wait_for_function(
            "(n) => document.querySelectorAll('#controls > .bid-history li').length === n", arg=len(bids)
        )
        page.wait_for_function(look.AT_REST)
        shown = shown_bids(page)
        assert len(shown) >= waiting and shown == bids[: len(shown)], (tag, shown, bids)
        rows_in_sight(page, players, tag)
        assert look.in_view(page, "#controls [data-watching]"), f"{tag}: whose turn it is"
        _check(page, f"{tag}-waiting-{len(bids)}")

    # A doubt: the reveal, then a new round, whose cups are to shake: no bid of the last round is listed.
    view = _view(base, code, host["token"])
    caller = seats.get(view["turn"]["player"], host["token"])
    _api(base, code, caller, action="doubt" if rules == "luegen" else "dudo")
    page.wait_for_selector("#reveal-overlay:not([hidden]) .verdict")
    page.keyboard.press("Shift")  # put away, as a tap does
    page.wait_for_selector("#reveal-overlay[hidden]", state="attached")
    page.wait_for_selector("#cup.my-turn")
    assert shown_bids(page) == [] and page.locator(".bid-history").count() == 0
    rows_in_sight(page, players, tag)
    _check(page, f"{tag}-next-round")
    context.close()


# Ten at Perudo, the long names the TV must show, the teaching hint on (its line takes the round's room).
TV_NAMES = ["Friedrich-Wilhelm", "Bernd", "Clara", "Dmitri", "Eva", "Gül", "Hanna", "Ilse", "Jonas"]


def _tv_sizes(page, tag):
    """Every word at least 32 px, no scrolling and nothing cut, on the TV as it shows now."""
    page.wait_for_function(look.AT_REST)
    sizes = page.evaluate(BOARD_SIZES)
    assert sizes["smallest"] >= 32 and sizes["scroll"] <= 0, (tag, sizes)
    assert page.evaluate(OVERFLOWS) == [], (tag, page.evaluate(OVERFLOWS))


@pytest.mark.parametrize(("size", "lang"), [((1280, 720), "ru-RU"), ((1920, 1080), "de-DE")])
def test_the_tv_keeps_the_turn_line_and_every_word_large_with_ten_at_perudo(browser, server, size, lang):
    base = server.url
    host = requests.post(f"{base}/api/rooms", json={"name": "Anke", "rules": "perudo"}, timeout=10).json()
    code = host["code"]
    tokens = [host["token"], *(join_room(base, code, name)["token"] for name in TV_NAMES)]
    _api(base, code, tokens[0], action="configure", options={"hint": "on"})
    tv = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale=lang).new_page()
    tv.goto(f"{base}/r/{code}/board?show=table")
    tv.wait_for_selector("body[data-show=table] .lobby-list .player >> nth=9")
    tag = f"bidding-tv-{size[0]}x{size[1]}"

    # Seven cups shaken, three to go.
    _api(base, code, tokens[0], action="start")
    for token in tokens[:7]:
        _api(base, code, token, action="shake")
    tv.wait_for_selector("#players .to-shake >> nth=2")
    _tv_sizes(tv, f"{tag} shaking")
    tv.screenshot(path=str(ARTIFACTS / f"{tag}-shaking.png"))

    # Eight bids: the turn line on the screen, the earlier bids under the hint as many as fit, newest first.
    for token in tokens[7:]:
        _api(base, code, token, action="shake")
    for _ in range(8):
        bidder = next(t for t in tokens if "bid" in _view(base, code, t)["allowed"])
        _api(base, code, bidder, action="bid", **_view(base, code, bidder)["choices"][0])
    tv.wait_for_function("() => document.querySelectorAll('#table .bid-history li').length === 8")
    tv.wait_for_selector("#table .status")
    _tv_sizes(tv, f"{tag} bidding")
    assert look.in_view(tv, "#table .status"), f"{tag}: the turn line"
    assert look.in_view(tv, ".odds-short") and look.in_view(tv, ".announce-row"), f"{tag}: the bid and its odds"
    for row in range(10):
        assert look.in_view(tv, f"#players .player >> nth={row}"), f"{tag}: row {row}"
    bids = newest_first(base, code, tokens[0])
    shown = shown_bids(tv)
    least = 1 if size[1] >= 1080 else 0  # a 1280×720 screen with the hint has room for the turn line, not the chips
    assert len(shown) >= least and shown == bids[1 : 1 + len(shown)], (tag, shown, bids)
    tv.screenshot(path=str(ARTIFACTS / f"{tag}-bids.png"))

    # Everyone else leaves: the winner's moment, then the standings of ten and the game's numbers, all on screen.
    for token in tokens[1:]:
        _api(base, code, token, action="leave")
    tv.wait_for_selector("#reveal-overlay:not([hidden]) .moment .standings li >> nth=9")
    tv.wait_for_function(look.AT_REST)
    moment = tv.locator("#reveal-overlay .moment").bounding_box()
    assert moment["y"] >= 0 and moment["y"] + moment["height"] <= size[1], (tag, moment)
    assert moment["x"] >= 0 and moment["x"] + moment["width"] <= size[0], (tag, moment)
    names = tv.eval_on_selector_all("#reveal-overlay .standings .name", "(ns) => ns.map((n) => n.clientWidth)")
    assert len(names) == 10 and min(names) >= 56, (tag, names)  # a name, not its first letter
    sizes = tv.evaluate(BOARD_SIZES)
    assert sizes["smallest"] >= 32, (tag, sizes)
    tv.screenshot(path=str(ARTIFACTS / f"{tag}-moment.png"))
    tv.keyboard.press("Shift")
    tv.wait_for_selector("#reveal-overlay[hidden]", state="attached")
    _tv_sizes(tv, f"{tag} over")
    assert look.in_view(tv, "#table .tally") and look.in_view(tv, "#table .standings li >> nth=9"), tag
    tv.screenshot(path=str(ARTIFACTS / f"{tag}-over.png"))
    tv.context.close()
