"""Every screen a new player meets, at three phone sizes and in three languages, passes the look checks.

Small and tall, common, and on its side (a shaken phone turns easily);
English, German and Russian. The other players are scripts on the JSON API;
the phone under test plays its own move. Screenshots: tests/artifacts/look-*.png.
"""

import pytest
import requests

from maxchen.client import join_room
from maxchen.rulesets import RULESETS

from . import look
from .test_browser import ARTIFACTS, CHROMIUM_ARGS, sync_api  # noqa: F401 - skips without Chromium

SIZES = {"small": (360, 640), "phone": (390, 844), "landscape": (844, 390)}
LANGUAGES = {"en": "en-US", "de": "de-DE", "ru": "ru-RU"}
OTHERS = ["Bernd", "Clara", "Dieter"]


def phone_context(browser, size, lang):
    """A phone of `size` (SIZES) in `lang` (LANGUAGES): touch, a mobile viewport, less motion."""
    width, height = SIZES[size]
    return browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=True,
        is_mobile=True,
        reduced_motion="reduce",
        locale=LANGUAGES[lang],
    )


def _check(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"look-{name}.png"))
    assert look.problems(page) == [], name


# Each size in two languages and each language at two sizes (the nine pairs took a minute and a half of the
# suite's ten; the rows' and the reveal's tests below cover the sizes and languages whole).
@pytest.mark.parametrize(
    ("lang", "size"),
    [("en", "small"), ("ru", "small"), ("en", "phone"), ("de", "phone"), ("de", "landscape"), ("ru", "landscape")],
)
def test_every_first_screen_and_each_rule_sets_turn_looks_right(browser, look_server, size, lang):
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=True,
        is_mobile=True,
        locale=LANGUAGES[lang],
        reduced_motion="reduce",  # the screens at rest at once: the look is of the layout, not the motion
    )
    page = context.new_page()
    base = look_server.url
    tag = f"{lang}-{size}"
    page.goto(base + "/")
    _check(page, f"{tag}-home")
    page.goto(base + "/r/ZZZZZ")
    _check(page, f"{tag}-missing")
    # A class at this size too: the teacher's desk, its name form, a student's wait for a table.
    teacher = context.browser.new_page(viewport={"width": width, "height": height}, locale=LANGUAGES[lang])
    teacher.goto(base + "/")
    teacher.click("form[action='/classes'] button[type=submit]")
    teacher.wait_for_load_state("load")  # its styles and scripts too
    klass = teacher.inner_text(".big-code").strip()
    _check(teacher, f"{tag}-desk")
    page.goto(f"{base}/c/{klass}")
    _check(page, f"{tag}-class-join")
    page.fill("main input[name=name]", "Zoe")
    page.click("main form button[type=submit]")
    page.wait_for_selector(".waiting-card")
    _check(page, f"{tag}-class-wait")
    teacher.close()
    # Each cell plays half the rule sets (every rule set still meets every size and every language), and the
    # reveal and the end for one of them (each rule set's at two sizes and in two languages): the whole
    # matrix would cost the suite minutes.
    cell = list(SIZES).index(size) + list(LANGUAGES).index(lang)
    played = [rules for turn, rules in enumerate(RULESETS) if (cell + turn) % 2 == 0]
    for turn, rules in enumerate(RULESETS):
        if rules not in played:
            continue
        game, players = RULESETS[rules], RULESETS[rules].MIN_PLAYERS
        code = _create_room(page, base, rules)
        if rules == played[0]:
            stranger = context.browser.new_page(viewport={"width": width, "height": height}, locale=LANGUAGES[lang])
            stranger.goto(f"{base}/r/{code}")
            _check(stranger, f"{tag}-join")
            stranger.close()
        tokens = [join_room(base, code, name)["token"] for name in OTHERS[: players - 1]]
        page.wait_for_function(f"() => document.querySelectorAll('.lobby-list .player').length === {players}")
        _check(page, f"{tag}-{rules}-lobby")
        page.click("button[data-action=start]")
        page.wait_for_selector("#cup.my-turn")
        _others_shake(base, code, tokens)
        _check(page, f"{tag}-{rules}-shake")
        _shake(page)
        picker = "form[data-claim]"
        page.wait_for_selector(picker)
        # What matters on one's own move: the round and the picker's button, both on screen.
        assert look.in_view(page, "#table > :not([hidden]):not(.sr-only)"), f"{tag}-{rules}: the round is off screen"
        assert look.in_view(page, f"{picker} button[type=submit]"), f"{tag}-{rules}: the picker's button is off screen"
        _check(page, f"{tag}-{rules}-move")
        if turn != cell % len(RULESETS):
            continue
        # The reveal: my claim is challenged by the next player.
        _claim(page)
        page.wait_for_selector(picker, state="detached")
        _api(base, code, tokens[0], action=game.CHALLENGE)
        page.wait_for_selector("#reveal-overlay:not([hidden]) .verdict")
        # After its animations (the verdict lands scaled up), while it stays up (4.5 s): then the look checks.
        page.wait_for_function(look.AT_REST)
        assert look.in_view(page, "#reveal-overlay .verdict"), f"{tag}-{rules}: the verdict is off screen"
        _check(page, f"{tag}-{rules}-reveal")
        # Touches go through the reveal to what lies below (the next player's cup or buttons).
        through = page.evaluate(
            """() => {
                const r = document.getElementById("reveal-overlay").getBoundingClientRect();
                const below = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                return !!below && !below.closest("#reveal-overlay");
            }"""
        )
        assert through, f"{tag}-{rules}: the reveal catches touches meant for the table"
        page.keyboard.press("Escape")  # any key or touch puts the reveal away
        page.wait_for_selector("#reveal-overlay", state="hidden")
        # The end: the others leave, the game is over; standings and numbers for all to see.
        for token in tokens:
            _api(base, code, token, action="leave")
        page.wait_for_selector(".result")
        assert look.in_view(page, ".result h2"), f"{tag}-{rules}: the result is off screen"
        _check(page, f"{tag}-{rules}-over")
        # The table's statistics, from the game-over screen: the check or doubt on its charts.
        with page.expect_popup() as opened:
            page.click(f".result ~ .links a[href='/r/{code}/stats']")
        stats = opened.value
        stats.wait_for_selector("#stats figure.chart.rates")
        _check(stats, f"{tag}-{rules}-stats")
        stats.close()
    # Back home: the way back to the tables this phone sits at.
    page.goto(base + "/")
    assert page.locator(".my-room").count() == len(played)
    _check(page, f"{tag}-home-back")
    context.close()


def _shake(page, tries=5):
    """Shake by the arrow keys until the dice lie under the coaster. A busy machine can space the key presses
    further apart than a shake allows (600 ms): then the cup stops, and a player shakes again."""
    for _ in range(tries):
        page.focus("#cup")
        for i in range(8):
            page.keyboard.press("ArrowLeft" if i % 2 else "ArrowRight")
            page.wait_for_timeout(40)
        try:
            page.wait_for_selector("#coaster:not([hidden])", timeout=5000)
            return
        except sync_api.TimeoutError:
            continue
    raise AssertionError("the cup never rolled")


def _others_shake(base, code, tokens):
    """The scripted players shake where the round waits for their cups (everyone shakes at once)."""
    for token in tokens:
        if "shake" in _view(base, code, token)["allowed"]:
            _api(base, code, token, action="shake")


def _claim(page):
    """The lowest claim the picker offers: the first open choice of each of its groups, then submit."""
    form = page.locator("form[data-claim]")
    groups = form.evaluate("f => [...new Set([...f.querySelectorAll('input[type=radio]')].map((i) => i.name))]")
    for name in groups:
        if not form.locator(f"input[name={name}]:checked").count():
            form.locator(f"label:has(input[name={name}]:enabled)").first.click()
    form.locator("button[type=submit]").click()


def _view(base, code, token) -> dict:
    answer = requests.get(f"{base}/api/rooms/{code}", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    answer.raise_for_status()
    return answer.json()


def _create_room(page, base, rules) -> str:
    """Anke creates a room of `rules` on the home page; its code."""
    page.goto(base + "/")
    page.fill("form[action='/rooms'] input[name=name]", "Anke")
    page.select_option("form[action='/rooms'] select[name=rules]", rules)
    page.click("form[action='/rooms'] button[type=submit]")
    page.wait_for_selector(".big-code")
    return page.inner_text(".big-code").strip()


def _started(browser, look_server, size, rules, players, lang="en", names=None, lobby=None):
    """Anke's phone at `size` (motion reduced, in `lang`) hosts `players` (the others scripted, `names` or
    TEN), calls `lobby(code)` when all are in, starts, and the others shake where the round waits for their
    cups: (context, page, base, code, the others' tokens)."""
    context = phone_context(browser, size, lang)
    page = context.new_page()
    base = look_server.url
    code = _create_room(page, base, rules)
    tokens = [join_room(base, code, name)["token"] for name in (names or TEN)[: players - 1]]
    page.wait_for_function("(n) => document.querySelectorAll('.lobby-list .player').length === n", arg=players)
    if lobby:
        lobby(code)
    page.click("button[data-action=start]")
    page.wait_for_selector("#cup.my-turn")
    _others_shake(base, code, tokens)
    return context, page, base, code, tokens


def _api(base, code, token, **action):
    requests.post(
        f"{base}/api/rooms/{code}/actions", json=action, headers={"Authorization": f"Bearer {token}"}, timeout=10
    ).raise_for_status()


TEN = ["Bernd", "Clara", "Dieter", "Emil", "Frida", "Gustav", "Hanna", "Ida", "Jonas"]


@pytest.mark.parametrize("size", ["small", "landscape"])
@pytest.mark.parametrize("rules", RULESETS)
def test_with_ten_players_the_round_and_my_choice_stay_in_sight(browser, look_server, size, rules):
    """A full table: my move and my decision with the round above them, without scrolling."""
    context, page, base, code, tokens = _started(browser, look_server, size, rules, 10)
    page.focus("#cup")
    for i in range(8):
        page.keyboard.press("ArrowLeft" if i % 2 else "ArrowRight")
        page.wait_for_timeout(40)
    picker = "form[data-claim]"
    page.wait_for_selector(picker)
    tag = f"ten-{rules}-{size}"
    shown = page.eval_on_selector_all(
        "#table > :not([hidden]):not(.sr-only)", "(es) => es.filter((e) => e.getClientRects().length).length"
    )
    for part in range(shown):  # the round (at the first turn, the rows and the controls may say it all)
        assert look.in_view(page, f"#table > :not([hidden]):not(.sr-only):visible >> nth={part}"), (
            f"{tag}: the round is off screen"
        )
    assert look.in_view(page, f"{picker} button[type=submit]"), f"{tag}: the picker's button is off screen"
    _check(page, f"{tag}-move")
    # My claim, then the nine others in turn (each believes and claims the least it may) back to me.
    _claim(page)
    page.wait_for_selector(picker, state="detached")
    for token in tokens:
        for _ in range(3):
            view = _view(base, code, token)
            claim = RULESETS[rules].CLAIM
            if "believe" in view["allowed"]:
                _api(base, code, token, action="believe")
            elif "shake" in view["allowed"]:
                _api(base, code, token, action="shake")
            elif claim in view["allowed"]:
                least = view["choices"][0]
                _api(base, code, token, action=claim, **(least if isinstance(least, dict) else {"value": least}))
                break
    # My turn again: what stands (the card or the bid) and what I may do, all on screen.
    answer = f"button[data-action={RULESETS[rules].CHALLENGE}]"
    page.wait_for_selector(answer)
    card = ".announce-row"
    page.screenshot(path=str(ARTIFACTS / f"look-{tag}-decide.png"))
    assert look.in_view(page, card), f"{tag}: the standing claim is off screen"
    assert look.in_view(page, answer), f"{tag}: the answer is off screen"
    _check(page, f"{tag}-decide")
    context.close()


# Every player's row and the cup, from two players to ten, upright and on its side, in three languages: the
# tables that once hid rows (a short phone with ten at Lügen or Perudo, my own bid with the picker open).
TABLES = {
    "maexchen": [("phone", 2, "en"), ("small", 6, "de"), ("small", 10, "ru"), ("landscape", 10, "de")],
    "luegen": [("small", 3, "en"), ("phone", 6, "de"), ("small", 10, "de"), ("landscape", 10, "ru")],
    "perudo": [("small", 2, "ru"), ("phone", 10, "ru"), ("small", 10, "en"), ("landscape", 6, "de")],
}

ROWS_AND_CUP = """() => {
  const box = (e) => e.getBoundingClientRect();
  const cup = document.querySelector("#cup-area:not([hidden]) #cup");
  const rows = [...document.querySelectorAll("#stage .table-list .player")];
  const apart = (a, b) =>
    a.right <= b.left + 1 || b.right <= a.left + 1 || a.bottom <= b.top + 1 || b.bottom <= a.top + 1;
  const c = cup && box(cup);
  return {
    rows: rows.length,
    cup: c ? Math.round(Math.min(c.width, c.height)) : null,
    over: c ? rows.filter((r) => !apart(box(r), c)).length
      + [...document.querySelectorAll("#controls button, #controls label")].filter((b) => !apart(box(b), c)).length : 0,
  };
}"""


@pytest.mark.parametrize(
    ("rules", "size", "players", "lang"), [(rules, *table) for rules, tables in TABLES.items() for table in tables]
)
def test_every_players_row_stays_in_sight_and_the_cup_takes_the_rest(browser, look_server, rules, size, players, lang):
    """My move (the cup shaken, the picker open) and the wait after it: each player's row whole on screen,
    whose turn it is among them, its name not cut to nothing; the cup at least 110 px and over no row and no
    button. A waiting phone at liar's dice shows the round's bids under the line of who bids."""
    context, page, base, code, tokens = _started(browser, look_server, size, rules, players, lang)
    _shake(page)
    page.wait_for_selector("form[data-claim]")
    tag = f"rows-{rules}-{players}-{size}-{lang}"
    for moment in ("move", "wait"):
        page.screenshot(path=str(ARTIFACTS / f"look-{tag}-{moment}.png"))
        found = page.evaluate(ROWS_AND_CUP)
        assert found["rows"] == players, (tag, moment, found)
        for row in range(players):
            assert look.in_view(page, f"#stage .table-list .player >> nth={row}"), f"{tag} {moment}: row {row}"
        assert look.in_view(page, "#stage .table-list .player.active"), f"{tag} {moment}: whose turn"
        names = page.eval_on_selector_all("#stage .table-list .name", "(ns) => ns.map((n) => n.clientWidth)")
        assert min(names) >= 28, (tag, moment, names)  # at least a name's first letters and its ellipsis
        assert found["over"] == 0 and (found["cup"] is None or found["cup"] >= 110), (tag, moment, found)
        _check(page, f"{tag}-{moment}")
        if moment == "move":
            _claim(page)
            page.wait_for_selector("form[data-claim]", state="detached")
    if RULESETS[rules].CLAIM == "bid":  # my bid, heard: the first chip of the history, under who bids next
        page.wait_for_selector("#controls .watching + .bid-history li.standing")
        assert page.locator("#controls .bid-history li").count() == 1
        assert page.inner_text("#controls .bid-history li.standing .name") == "Anke"
        assert look.in_view(page, "#controls .bid-history li.standing")
    context.close()


@pytest.mark.parametrize(("rules", "lang"), [("luegen", "de"), ("perudo", "ru")])
def test_my_answer_in_a_later_round_keeps_every_row_in_sight(browser, look_server, rules, lang):
    """The densest moment of a short phone: ten at the table, round 2, a bid standing against me (a doubt or a
    dudo, calza in Perudo, and the picker): every row whole, my answer and the bid's button in view, the cup
    at least 110 px over nothing."""
    context, page, base, code, tokens = _started(browser, look_server, "small", rules, 10, lang)
    host = _view(base, code, tokens[0])["host"]
    challenge = RULESETS[rules].CHALLENGE
    bids = 0
    for _ in range(200):  # each scripted player bids the least; round 1's third bid is challenged
        view = _view(base, code, tokens[0])
        turn = (view["turn"] or {}).get("player")
        if turn == host and view["round"] >= 2 and view["bid"]:
            break
        me = next(p for p in view["players"] if p["id"] == host)
        if turn is None and not me["rolled"]:  # everyone shakes at once: my phone too
            _shake(page)
        elif turn == host:
            page.wait_for_selector("form[data-claim]")
            _claim(page)
            page.wait_for_selector("form[data-claim]", state="detached")
            bids += 1
        for token in tokens:
            theirs = _view(base, code, token)
            if "shake" in theirs["allowed"]:
                _api(base, code, token, action="shake")
            elif challenge in theirs["allowed"] and bids >= 2 and view["round"] == 1:
                _api(base, code, token, action=challenge)
                bids = 0
            elif "bid" in theirs["allowed"]:
                _api(base, code, token, action="bid", **theirs["choices"][0])
                bids += 1
    else:
        raise AssertionError("round 2 never came to me")
    answer = f"button[data-action={challenge}]"
    page.wait_for_selector(answer)
    if page.locator("#reveal-overlay:not([hidden])").count():
        page.keyboard.press("Shift")  # round 1's reveal, put away
        page.wait_for_selector("#reveal-overlay[hidden]", state="attached")
    tag = f"later-{rules}-{lang}"
    page.screenshot(path=str(ARTIFACTS / f"look-{tag}.png"))
    found = page.evaluate(ROWS_AND_CUP)
    for row in range(10):
        assert look.in_view(page, f"#stage .table-list .player >> nth={row}"), f"{tag}: row {row}"
    names = page.eval_on_selector_all("#stage .table-list .name", "(ns) => ns.map((n) => n.clientWidth)")
    assert min(names) >= 28, (tag, names)
    assert look.in_view(page, answer) and look.in_view(page, "form[data-claim] button[type=submit]"), tag
    assert found["over"] == 0 and found["cup"] >= 110, (tag, found)
    label = page.eval_on_selector("#coaster .coaster-label", "(e) => parseFloat(getComputedStyle(e).fontSize)")
    assert label >= 12, (tag, label)  # "peek →" on the smallest cup still read at arm's length
    _check(page, tag)
    context.close()


# Twenty characters each (the longest a name may be), wide letters, the same but for the initial at the end.
ALIKE = [f"Wilhelmine Wagner {initial}." for initial in "ABCDEFGHI"]

NAMES_SHOWN = """(names) => names.filter((n) => n.checkVisibility()).map((n) => ({
  shown: n.dataset.short || n.textContent.trim(),
  cut: n.scrollWidth > n.clientWidth,  // by the style's ellipsis, at its end
}))"""


def _names_apart(page, selector, tag, count=10):
    """Every name `selector` finds is whole or shortened in its middle, and no two look the same."""
    found = page.eval_on_selector_all(selector, NAMES_SHOWN)
    shown = [name["shown"] for name in found]
    assert len(found) == count and len(set(shown)) == count, (tag, shown)
    assert not [name for name in found if name["cut"]], (tag, found)


def test_ten_long_names_that_begin_alike_stay_apart_on_a_phone_and_the_tv(browser, look_server):
    """Ten names of twenty characters, alike but for their ends: each row on the smallest phone and on the
    TV (1280×720, in the lobby and in play) keeps the start and the end of its name, so no two look alike;
    the TV's table fits its screen without scrolling, every word at least 32 px."""
    from .test_browser import BOARD_SIZES, OVERFLOWS

    tv = browser.new_context(viewport={"width": 1280, "height": 720}, locale=LANGUAGES["en"]).new_page()

    def on_the_tv(moment):
        tv.wait_for_function(look.AT_REST)
        tv.screenshot(path=str(ARTIFACTS / f"look-alike-tv-{moment}.png"))
        _names_apart(tv, "#players .name", f"tv {moment}")
        sizes = tv.evaluate(BOARD_SIZES)
        assert sizes["smallest"] >= 32 and sizes["scroll"] <= 0, (moment, sizes)
        assert tv.evaluate(OVERFLOWS) == [], (moment, tv.evaluate(OVERFLOWS))
        for row in range(10):
            assert look.in_view(tv, f"#players .player >> nth={row}"), (moment, row)

    def lobby(code):
        tv.goto(f"{look_server.url}/r/{code}/board?show=table")
        tv.wait_for_selector("body[data-phase=lobby] .lobby-list .player >> nth=9")
        on_the_tv("lobby")

    context, page, base, code, tokens = _started(browser, look_server, "small", "perudo", 10, "de", ALIKE, lobby)
    _shake(page)
    page.wait_for_selector("form[data-claim]")
    _names_apart(page, "#stage .table-list .name", "phone")
    for row in range(10):
        assert look.in_view(page, f"#stage .table-list .player >> nth={row}"), row
    _check(page, "alike-phone")
    tv.wait_for_selector("body[data-phase=playing] #players .player >> nth=9")
    tv.wait_for_function("() => !document.querySelector('#players .to-shake')")  # every cup shaken
    on_the_tv("playing")
    tv.context.close()
    context.close()


@pytest.mark.parametrize(("rules", "size", "players"), [("perudo", "small", 10), ("luegen", "landscape", 6)])
def test_a_reveal_of_long_names_stays_whole_on_the_screen(browser, look_server, rules, size, players):
    """Fifty dice under ten long names on the smallest phone, six cups on a phone on its side: the reveal's card
    on the screen, every die and the verdict in it, each name shortened in its middle."""
    context, page, base, code, tokens = _started(browser, look_server, size, rules, players, "en", ALIKE)
    _shake(page)
    page.wait_for_selector("form[data-claim]")
    _claim(page)
    page.wait_for_selector("form[data-claim]", state="detached")
    challenge, bids = RULESETS[rules].CHALLENGE, 0
    for token in tokens * 2:  # the next players bid the least, the third calls it
        view = _view(base, code, token)
        if challenge in view["allowed"] and bids == 2:
            _api(base, code, token, action=challenge)
            break
        if "bid" in view["allowed"]:
            _api(base, code, token, action="bid", **view["choices"][0])
            bids += 1
    page.wait_for_selector("#reveal-overlay:not([hidden]) .verdict")
    page.wait_for_function(look.AT_REST)
    card = page.locator("#reveal-overlay .reveal").bounding_box()
    width, height = SIZES[size]
    assert card["x"] >= 0 and card["x"] + card["width"] <= width + 1, card
    assert card["y"] >= 0 and card["y"] + card["height"] <= height + 1, card
    assert page.locator("#reveal-overlay .cups li").count() == players
    _names_apart(page, "#reveal-overlay .cups .name", "reveal", players)
    _check(page, f"reveal-alike-{rules}-{size}")
    context.close()


def test_a_keyboard_is_told_its_keys_and_a_phone_is_not(browser, look_server):
    """At a computer the cup says which keys shake and peek (below it, in sight); a phone's cup does not."""
    base = look_server.url
    for touch, (width, height) in ((False, (1280, 800)), (True, SIZES["phone"])):
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch)
        page = context.new_page()
        code = _create_room(page, base, "maexchen")
        join_room(base, code, "Bernd")
        page.wait_for_function("() => document.querySelectorAll('.lobby-list .player').length === 2")
        page.click("button[data-action=start]")
        page.wait_for_selector("#cup.my-turn")
        if touch:
            assert not page.locator(".keys-hint").is_visible()
        else:
            assert look.in_view(page, ".keys-hint") and "Space" in page.inner_text(".keys-hint")
            hint, cup = page.locator(".keys-hint").bounding_box(), page.locator("#cup").bounding_box()
            assert hint["y"] >= cup["y"] + cup["height"] - 1, (hint, cup)
            _check(page, "keys-hint")
        context.close()


@pytest.mark.parametrize("size", ["phone", "small"])
def test_the_lobby_shares_in_one_tap_and_its_qr_code_reads_across_a_table(browser, look_server, size):
    """The share button hands the link to the phone's sharing where it has one, else copies it; the QR code
    is at least 60 % of the phone's width, on a short phone after a tap on it."""
    width, height = SIZES[size]
    for sharing in (True, False):
        context = browser.new_context(
            viewport={"width": width, "height": height},
            has_touch=True,
            is_mobile=True,
            permissions=["clipboard-read", "clipboard-write"],
        )
        page = context.new_page()
        if sharing:
            page.add_init_script("navigator.share = async (data) => { window.shared = data; }")
        else:
            page.add_init_script("delete Navigator.prototype.share")
        code = _create_room(page, look_server.url, "maexchen")
        link = page.inner_text("#join-link").strip()
        assert link.endswith(f"/r/{code}")
        # The page's scripts have run (a busy machine runs them well after the page shows): the button answers.
        page.wait_for_function("() => !!(window.maxchen && window.maxchen.afterSwap)")
        page.click("#share-button")
        if sharing:
            page.wait_for_function("() => window.shared !== undefined")
            assert page.evaluate("window.shared.url") == link
        else:
            page.wait_for_selector("#toast.info")
            assert page.evaluate("navigator.clipboard.readText()") == link
            assert "copied" in page.inner_text("#toast")
        qr = page.locator(".share .qr svg")
        if qr.bounding_box()["width"] < 0.6 * width:
            page.click(".share .qr")
            page.wait_for_selector("body.qr-big")
        assert qr.bounding_box()["width"] >= 0.6 * width and look.in_view(page, ".share .qr svg")
        _check(page, f"share-{size}-{'web' if sharing else 'copy'}")
        context.close()


def test_on_its_side_the_reveal_leaves_the_controls_clear(browser, look_server):
    """A phone on its side: a check's reveal comes up over the table and the cup, never over the controls
    column, where the next move's buttons are."""
    width, height = SIZES["landscape"]
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True, is_mobile=True)
    page = context.new_page()
    base = look_server.url
    code = _create_room(page, base, "maexchen")
    bernd = join_room(base, code, "Bernd")["token"]
    page.wait_for_function("() => document.querySelectorAll('.lobby-list .player').length === 2")
    page.click("button[data-action=start]")
    page.wait_for_selector("#cup.my-turn")
    _shake(page)
    page.wait_for_selector("form[data-claim]")
    _claim(page)
    page.wait_for_selector("form[data-claim]", state="detached")
    _api(base, code, bernd, action="check")
    page.wait_for_selector("#reveal-overlay:not([hidden]) .reveal")
    overlay, controls = page.locator("#reveal-overlay").bounding_box(), page.locator("#controls").bounding_box()
    assert overlay["x"] + overlay["width"] <= controls["x"] + 1, (overlay, controls)
    assert look.in_view(page, "#reveal-overlay .reveal .verdict")
    page.screenshot(path=str(ARTIFACTS / "look-landscape-reveal.png"))
    context.close()


@pytest.mark.parametrize(("size", "lang"), [("small", "ru"), ("phone", "de"), ("landscape", "en")])
def test_the_winners_moment_of_ten_shows_every_place(browser, look_server, size, lang):
    """Ten at the table, and the nine others leave: the winner's moment on Anke's phone holds the result and
    all ten places, each whole on the screen, without scrolling; the look checks pass over it."""
    context, page, base, code, tokens = _started(browser, look_server, size, "maexchen", 10, lang)
    for token in tokens:
        _api(base, code, token, action="leave")
    page.wait_for_selector("#reveal-overlay:not([hidden]) .moment .standings li >> nth=9")
    assert look.in_view(page, "#reveal-overlay .moment .result h2")
    for place in range(10):
        assert look.in_view(page, f"#reveal-overlay .moment .standings li >> nth={place}"), place
    assert look.in_view(page, "#reveal-overlay .moment .tally")
    _check(page, f"moment-ten-{size}-{lang}")
    context.close()


# The hand: every rule set (2, 3 and 5 dice) at each size, the languages taking turns.
HANDS = [
    (rules, size, lang)
    for i, rules in enumerate(RULESETS)
    for j, size in enumerate(SIZES)
    for lang in [list(LANGUAGES)[(i + j) % 3]]
]
HAND = """() => {
  const dice = [...document.querySelectorAll("#hand .die")].map((d) => d.getBoundingClientRect());
  const apart = (a, b) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
  const hand = document.getElementById("hand");
  hand.style.pointerEvents = "auto"; // hit-testing skips what a tap passes through
  const covered = dice.filter((r) => {
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    return !document.elementFromPoint(x, y)?.closest("#hand");
  }).length;
  hand.style.pointerEvents = "";
  const opacity = (el) => (el ? +getComputedStyle(el).opacity * opacity(el.parentElement) : 1);
  const seen = (pip) => getComputedStyle(pip).visibility === "visible" && opacity(pip) > 0.01;
  return {
    floor: [...document.querySelectorAll("#floor .die i")].filter(seen).length,
    faces: [...document.querySelectorAll("#hand .die")].map((d) => +d.className.match(/face-(\\d)/)[1]),
    smallest: Math.min(...dice.map((r) => Math.min(r.width, r.height))),
    overlaps: dice.filter((a, i) => dice.some((b, j) => j > i && !apart(a, b))).length,
    outside: dice.filter((r) => r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight).length,
    covered,
  };
}"""


@pytest.mark.parametrize(("rules", "size", "lang"), HANDS)
def test_while_i_peek_my_hand_lies_side_by_side_readable_at_a_glance(browser, look_server, rules, size, lang):
    """Held to peek, my dice lie in a row (or two), highest first: each at least 44 px, none on another, none
    hidden by anything, all on the screen; let go, the hand is gone."""
    players = max(RULESETS[rules].MIN_PLAYERS, 3)
    context, page, base, code, tokens = _started(browser, look_server, size, rules, players, lang)
    _shake(page)
    # Space held on the coaster, or on the cup itself (what a keyboard has focused after the arrows' shake).
    page.focus("#coaster" if RULESETS[rules].DICE % 2 else "#cup")
    page.keyboard.down("Space")
    page.wait_for_selector("#hand:not([hidden]) .die")
    found = page.evaluate(HAND)
    page.screenshot(path=str(ARTIFACTS / f"look-hand-{rules}-{size}-{lang}.png"))
    mine = [
        int(c.split("face-")[1][0]) for c in page.eval_on_selector_all("#floor .die", "ds => ds.map(d => d.className)")
    ]
    assert found["faces"] == sorted(mine, reverse=True), found
    assert len(found["faces"]) == RULESETS[rules].DICE, found
    assert found["smallest"] >= 44 and found["overlaps"] == 0, found
    assert found["outside"] == 0 and found["covered"] == 0, found
    assert found["floor"] == 0, found  # the dice in the cup under the hand: not a pip of them shows
    page.keyboard.up("Space")
    page.wait_for_selector("#hand", state="hidden")
    context.close()
