"""The small looks of a party table (issue 44): each die of a reveal readable, a shake's "too short" left up to be
read, a reaction beside its row, no word broken in Russian (nor German, nor English), the host's ✕ a thumb's size.

Phones at 390×844, 360×640 and 844×390, the languages taking turns; the other players are scripts on the JSON API.
Screenshots: tests/artifacts/small-*.png.
"""

import pytest

from maxchen.client import join_room
from maxchen.rulesets import RULESETS

from . import look
from .test_browser import ARTIFACTS
from .test_look import (  # noqa: F401 - look_server is a fixture
    HAND,
    LANGUAGES,
    SIZES,
    _api,
    _claim,
    _create_room,
    _others_shake,
    _shake,
    _started,
    phone_context,
)

TAP = look.TAP


def _shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"small-{name}.png"))


# The dice of a reveal card (`card`: its selector) as a player sees them: how many, the smallest of all and of the
# page's own cup (Mäxchen's two dice are the one cup shown), boxes that overlap, dice off the screen or outside what
# clips them (the overlay scrolls), dice that something else covers (five points of each, hit-tested).
REVEAL_DICE = """(card) => {
  const el = document.querySelector(card);
  const me = document.querySelector("#players .player.me")?.dataset.player;
  const overlay = el.closest("#reveal-overlay");
  if (overlay) overlay.style.pointerEvents = "auto"; // hit-testing skips what a tap passes through
  const dice = [...el.querySelectorAll(".die")].map((d) => {
    const cup = d.closest(".cups li");
    return {el: d, r: d.getBoundingClientRect(), mine: !cup || cup.dataset.player === me};
  });
  const apart = (a, b) =>
    a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
  const inside = (d) => {
    let top = 0, bottom = innerHeight, left = 0, right = innerWidth;
    for (let a = d.el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== "visible" || s.overflowY !== "visible") {
        const b = a.getBoundingClientRect();
        [top, bottom] = [Math.max(top, b.top), Math.min(bottom, b.bottom)];
        [left, right] = [Math.max(left, b.left), Math.min(right, b.right)];
      }
      if (s.position === "fixed") break; // the overlay, the cover: no box further out clips it
    }
    return d.r.left >= left - 1 && d.r.right <= right + 1 && d.r.top >= top - 1 && d.r.bottom <= bottom + 1;
  };
  const seen = (d) => {
    const {left, right, top, bottom} = d.r, x = (left + right) / 2, y = (top + bottom) / 2;
    return [[x, y], [left + 4, top + 4], [right - 4, top + 4], [left + 4, bottom - 4], [right - 4, bottom - 4]]
      .every(([px, py]) => { const hit = document.elementFromPoint(px, py); return !!hit && d.el.contains(hit); });
  };
  const side = (r) => Math.round(Math.min(r.width, r.height) * 10) / 10;
  const found = {
    cups: el.querySelectorAll(".cups li").length,
    dice: dice.length,
    mine: dice.filter((d) => d.mine).length,
    smallest: Math.min(...dice.map((d) => side(d.r))),
    smallest_mine: Math.min(...dice.filter((d) => d.mine).map((d) => side(d.r))),
    overlaps: dice.filter((a, i) => dice.some((b, j) => j > i && !apart(a.r, b.r))).length,
    outside: dice.filter((d) => !inside(d)).length,
    covered: dice.filter((d) => !seen(d)).length,
  };
  if (overlay) overlay.style.pointerEvents = "";
  return found;
}"""


# The first shown element of a selector wholly on the screen, inside every box that clips it up to the fixed layer
# it lies on (a cover or the overlay, which the boxes around it in the page do not clip).
ON_SCREEN = """(els) => {
  const el = els.find((e) => e.getClientRects().length > 0);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  let top = 0, bottom = innerHeight, left = 0, right = innerWidth;
  for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX !== "visible" || s.overflowY !== "visible") {
      const b = a.getBoundingClientRect();
      [top, bottom] = [Math.max(top, b.top), Math.min(bottom, b.bottom)];
      [left, right] = [Math.max(left, b.left), Math.min(right, b.right)];
    }
    if (s.position === "fixed") break;
  }
  return r.height > 0 && r.top >= top - 1 && r.bottom <= bottom + 1 && r.left >= left - 1 && r.right <= right + 1;
}"""


def _on_screen(page, selector) -> bool:
    return page.eval_on_selector_all(selector, ON_SCREEN)


def _assert_dice_readable(found, tag, all_of_them=True):
    """Every die (or my own cup's, with many cups) at least a thumb's 44 px, none on another, none covered, all
    on the screen."""
    assert found["dice"] and found["mine"], f"{tag}: {found}"
    assert found["smallest_mine"] >= TAP, (tag, found)
    if all_of_them:
        assert found["smallest"] >= TAP, (tag, found)
    assert found["overlaps"] == 0 and found["outside"] == 0 and found["covered"] == 0, f"{tag}: {found}"


# Each rule set at each size, the languages taking turns; with three at the table (six on a tall phone) every cup's
# dice are 44 px, with ten (fifty dice on a small phone) my own cup's are.
REVEALS = [
    (rules, size, lang, 3)
    for i, rules in enumerate(RULESETS)
    for j, size in enumerate(SIZES)
    for lang in [list(LANGUAGES)[(i + j) % 3]]
] + [
    ("perudo", "small", "ru", 10),
    ("luegen", "landscape", "de", 10),
    ("perudo", "phone", "en", 6),
    ("perudo", "landscape", "en", 4),
    ("luegen", "landscape", "ru", 4),
    ("perudo", "small", "de", 4),
]


@pytest.mark.parametrize(("rules", "size", "lang", "players"), REVEALS)
def test_a_reveals_dice_are_each_readable_and_my_own_cup_always(browser, look_server, rules, size, lang, players):
    """My claim is challenged: the reveal comes up over the table, every die in it at least 44 px (my own cup's
    always, among ten), none on another, none hidden, all on the screen."""
    context, page, base, code, tokens = _started(browser, look_server, size, rules, players, lang)
    _shake(page)
    page.wait_for_selector("form[data-claim]")
    _claim(page)
    page.wait_for_selector("form[data-claim]", state="detached")
    _api(base, code, tokens[0], action=RULESETS[rules].CHALLENGE)
    page.wait_for_selector("#reveal-overlay:not([hidden]) .verdict")
    page.wait_for_function(look.AT_REST)
    tag = f"reveal-{rules}-{size}-{lang}-{players}"
    _shot(page, tag)
    found = page.evaluate(REVEAL_DICE, "#reveal-overlay .reveal")
    _assert_dice_readable(found, tag, all_of_them=players <= (6 if size == "phone" else 4))
    assert look.in_view(page, "#reveal-overlay .verdict"), tag
    if size == "landscape" and players <= 4:  # cups side by side: each one's dice right after its name, not elsewhere
        for cup in page.evaluate(CUPS_BESIDE_NAMES):
            assert 0 <= cup["gap"] <= 24 and cup["level"], (tag, cup)
    context.close()


# Each opened cup's name (its letters, not its box) and its first die: the room between them, and whether they lie
# on one line.
CUPS_BESIDE_NAMES = """() => [...document.querySelectorAll("#reveal-overlay .cups li")].map((li) => {
  const letters = document.createRange();
  letters.selectNodeContents(li.querySelector(".name"));
  const name = letters.getBoundingClientRect();
  const die = li.querySelector(".die").getBoundingClientRect();
  const level = die.top < name.bottom && die.bottom > name.top;
  return {name: li.textContent.trim(), gap: Math.round(die.left - name.right), level};
})"""


def _phone(browser, size, lang):
    context = phone_context(browser, size, lang)
    return context, context.new_page()


def _peek_hand(page, tag, dice):
    """Hold the space bar on the coaster: my dice on the tray, highest first, each 44 px, apart, seen, on screen."""
    page.focus("#coaster")
    page.keyboard.down("Space")
    page.wait_for_selector("#hand:not([hidden]) .die")
    found = page.evaluate(HAND)
    _shot(page, f"{tag}-hand")
    assert len(found["faces"]) == dice and found["faces"] == sorted(found["faces"], reverse=True), (tag, found)
    assert found["smallest"] >= TAP and found["overlaps"] == 0, (tag, found)
    assert found["outside"] == 0 and found["covered"] == 0, (tag, found)
    page.keyboard.up("Space")
    page.wait_for_selector("#hand", state="hidden")


@pytest.mark.parametrize(("size", "lang"), [("phone", "de"), ("small", "ru"), ("landscape", "en"), ("landscape", "ru")])
def test_one_phone_shows_the_hand_and_the_covers_reveal_readable(browser, look_server, size, lang):
    """Poschen on one phone, passed around: the player's peek lays the hand out as on their own phone, and the
    cover after a check shows the two dice whole, each 44 px, none covered, on the screen."""
    context, page = _phone(browser, size, lang)
    page.goto(look_server.url + "/")
    page.fill("form[action='/table'] textarea[name=names]", "Anna\nBoris\nCarla")
    page.check("form[action='/table'] input[name=rules][value=poschen]")
    page.click("form[action='/table'] button[type=submit]")
    tag = f"shared-{size}-{lang}"
    page.wait_for_function("() => !!(window.maxchen && window.maxchen.afterSwap)")  # its scripts have run
    page.wait_for_selector(".cover button[data-action=uncover]").click()
    page.wait_for_selector("#cup.my-turn")
    _shake(page)
    _peek_hand(page, tag, 2)
    _claim(page)
    # Boris takes the phone and checks Anna's claim: the cover that follows shows what her cup held.
    page.wait_for_selector(".cover button[data-action=uncover]").click()
    page.wait_for_selector("#controls button[data-action=check]").click()
    page.wait_for_selector(".cover .reveal .die")
    page.wait_for_function(look.AT_REST)
    _shot(page, f"{tag}-cover")
    _assert_dice_readable(page.evaluate(REVEAL_DICE, ".cover .reveal"), tag)
    assert _on_screen(page, ".cover .reveal .verdict") and _on_screen(page, ".cover button[data-action=uncover]"), tag
    context.close()


# What the cup's hint line says from now on, each change with the page's own time (performance.now()).
HINT_LOG = """() => {
  window.hints = [];
  const hint = document.getElementById("cup-hint");
  new MutationObserver(() => hints.push([performance.now(), hint.textContent]))
    .observe(hint, {childList: true, characterData: true, subtree: true});
}"""


@pytest.mark.parametrize(("rules", "size", "lang"), [("maexchen", "phone", "en"), ("perudo", "small", "ru")])
def test_a_too_short_drag_says_so_and_the_words_stay_to_be_read(browser, look_server, rules, size, lang):
    """A drag of three turns, with a pause on the way (a finger turning slowly), then let go: the cup says "keep
    shaking" while it goes on, whatever the pushes redraw meanwhile, and "too short" once the finger lets go; those
    words stay, alone, for two seconds of the page's own clock."""
    context, page, base, code, tokens = _started(browser, look_server, size, rules, 3, lang)
    texts = page.evaluate("() => JSON.parse(document.getElementById('i18n').textContent)")
    page.evaluate(HINT_LOG)
    box = page.locator("#cup").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 40, y, steps=2)
    page.mouse.move(x - 40, y, steps=2)
    page.wait_for_function("(t) => hints.some(([, text]) => text === t)", arg=texts["keep_shaking"])
    # The finger rests longer than a shake's pause (350 ms), on the page's clock, then turns once more.
    start = page.evaluate("performance.now()")
    page.wait_for_function("(t) => performance.now() > t + 600", arg=start)
    page.mouse.move(x + 40, y, steps=2)
    page.mouse.up()
    page.wait_for_function("(t) => hints.some(([, text]) => text === t)", arg=texts["too_short"])
    said = page.evaluate("(t) => hints.find(([, text]) => text === t)[0]", texts["too_short"])
    page.wait_for_function("(t) => performance.now() > t + 2000", arg=said)
    log = page.evaluate("hints")
    _shot(page, f"too-short-{rules}-{size}-{lang}")
    before = [text for at, text in log if at < said]
    after = [text for at, text in log if said <= at <= said + 2000]
    assert set(before) == {texts["keep_shaking"]}, log  # the shake's own words, never the prompt over them
    assert set(after) == {texts["too_short"]}, log
    assert page.inner_text("#cup-hint") == texts["too_short"]
    assert page.locator("#cup.my-turn").count() == 1  # no roll: the cup is still to be shaken
    context.close()


@pytest.fixture(scope="module")
def quick_grace():
    """A server whose host may remove an offline player one second after their phone went."""
    from .conftest import Server

    started = Server(env={"MAXCHEN_OFFLINE_GRACE": "1"}).wait_ready()
    yield started
    started.stop()


# Each shown ✕ of the host's: its size, what of its row it lies over (the dot, the name, a tag, the standing), whether
# the row's dot still shows, and whether it lies inside its row.
REMOVES = """() => [...document.querySelectorAll("#stage .table-list .player")].flatMap((row) => {
  const button = row.querySelector("button[data-action=remove]");
  if (!button || !button.checkVisibility({visibilityProperty: true})) return [];
  const b = button.getBoundingClientRect(), box = row.getBoundingClientRect();
  const apart = (a) =>
    a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
  const parts = [...row.querySelectorAll(":scope > .dot, :scope > .name, :scope > .tag, .pips, .hearts, .mats")]
    .filter((p) => p.checkVisibility({visibilityProperty: true}));
  const dot = row.querySelector(".dot");
  return [{
    name: row.querySelector(".name").textContent.trim(),
    size: [Math.round(b.width), Math.round(b.height)],
    over: parts.filter((p) => !apart(p.getBoundingClientRect())).map((p) => p.className),
    dot: !!dot && dot.checkVisibility({visibilityProperty: true}),
    inside: b.left >= box.left - 1 && b.right <= box.right + 1 && b.top >= box.top - 1 && b.bottom <= box.bottom + 1,
    covers: b.left <= box.left + 3 && b.right >= box.right - 3 && b.top <= box.top + 3 && b.bottom >= box.bottom - 3,
  }];
})"""


@pytest.mark.parametrize(
    ("rules", "size", "lang", "players"),
    [
        ("maexchen", "phone", "en", 3),
        ("perudo", "small", "ru", 6),
        ("luegen", "landscape", "de", 6),
        ("perudo", "small", "ru", 10),
    ],
)
def test_the_hosts_remove_is_a_thumbs_target_beside_the_row_not_over_it(
    browser, quick_grace, rules, size, lang, players
):
    """The others' phones are gone, their grace over: on the host's phone each of their rows carries a ✕ of at least
    44 × 44 px, inside the row, over none of it (the offline dot shows beside it); where nine such rows leave no
    room for a ✕ beside each, the whole row is its target; every row still on the screen."""
    context, page, base, code, tokens = _started(browser, quick_grace, size, rules, players, lang)
    page.wait_for_function(
        "(n) => [...document.querySelectorAll('#stage button[data-action=remove]')]"
        ".filter((b) => b.checkVisibility({visibilityProperty: true})).length === n",
        arg=players - 1,
    )
    page.wait_for_function(look.AT_REST)
    tag = f"remove-{rules}-{size}-{lang}"
    _shot(page, tag)
    found = page.evaluate(REMOVES)
    assert len(found) == players - 1, found
    whole_row = "7" in page.evaluate("document.body.dataset.fit || ''").split()
    assert whole_row == (players == 10), tag
    for row in found:
        if whole_row:
            assert row["covers"] and row["dot"] and row["size"][0] >= 88 and row["size"][1] >= 28, (tag, row)
        else:
            assert min(row["size"]) >= TAP and row["over"] == [] and row["dot"] and row["inside"], (tag, row)
    for row in range(players):
        assert look.in_view(page, f"#stage .table-list .player >> nth={row}"), (tag, row)
    assert look.problems(page) == [], tag
    context.close()


# Each row in turn sends 🎉 (the page's own handler of a pushed reaction): where its bubble shows, what of any row it
# lies over (a standing, a tag, the host's ✕), and whether it is on the screen and by its row.
BUBBLES = """(emoji) => [...document.querySelectorAll("#players .player")].map((row) => {
  document.querySelectorAll(".reaction-bubble").forEach((b) => b.remove());
  window.maxchen.reaction({player: row.dataset.player, emoji});
  const b = document.querySelector(".reaction-bubble").getBoundingClientRect();
  const r = row.getBoundingClientRect();
  const apart = (a) =>
    a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
  const covered = [...document.querySelectorAll("#players :is(.tag, .pips, .hearts, .mats, [data-grace] form)")]
    .filter((e) => e.checkVisibility({visibilityProperty: true}) && !apart(e.getBoundingClientRect()))
    .map((e) => `${e.closest(".player").querySelector(".name").textContent.trim()}: ${e.className}`);
  return {
    name: row.querySelector(".name").textContent.trim(),
    covered,
    shown: b.width > 0 && b.height >= 16 && b.left >= 0 && b.right <= innerWidth && b.top >= 0
      && b.bottom <= innerHeight,
    by: b.bottom > r.top && b.top < r.bottom && b.right >= r.left - 8 && b.left <= r.right + 8, // on it or beside
    box: [b.left, b.top, b.width, b.height].map(Math.round),
  };
})"""


@pytest.mark.parametrize(
    ("rules", "size", "lang", "players"),
    [("maexchen", "phone", "en", 3), ("perudo", "small", "ru", 10), ("luegen", "landscape", "de", 6)],
)
def test_a_reaction_shows_by_its_row_over_no_standing_and_no_tag(browser, look_server, rules, size, lang, players):
    """Every player sends the table an emoji: each bubble shows on the screen by the sender's row (after the name, or
    beside the row), over no row's standing (points, dice, mats), no tag ("still shaking") and no ✕."""
    context, page, base, code, tokens = _started(browser, look_server, size, rules, players, lang)
    page.wait_for_function(look.AT_REST)
    found = page.evaluate(BUBBLES, "🎉")
    _shot(page, f"bubble-{rules}-{size}-{lang}")
    assert len(found) == players, found
    for bubble in found:
        assert bubble["covered"] == [] and bubble["shown"] and bubble["by"], f"{rules} {size}: {bubble}"
    context.close()


# Words broken or cut in what `selector` finds (shown): a word whose letters lie on two lines (no hyphen of ours),
# or that runs out of its own box or out of what clips it. The coaster's label is also held to the round cup: its
# box inside the circle.
WORDS_WHOLE = """(selector) => [...document.querySelectorAll(selector)]
  .filter((el) => el.checkVisibility({visibilityProperty: true, opacityProperty: true}))
  .flatMap((el) => {
    const found = [];
    const box = el.getBoundingClientRect();
    let clip = {left: 0, right: innerWidth, top: 0, bottom: innerHeight};
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === "visible" && s.overflowY === "visible") continue;
      const b = a.getBoundingClientRect();
      clip = {left: Math.max(clip.left, b.left), right: Math.min(clip.right, b.right),
              top: Math.max(clip.top, b.top), bottom: Math.min(clip.bottom, b.bottom)};
    }
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode()); ) {
      const parent = node.parentElement;
      if (!parent.checkVisibility({visibilityProperty: true}) || parent.getBoundingClientRect().width <= 1) continue;
      for (const m of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        if (new Set(rects.map((r) => Math.round(r.top))).size > 1) found.push(`broken: ${m[0]}`);
        const out = (r) => r.left < Math.max(box.left, clip.left) - 1 || r.right > Math.min(box.right, clip.right) + 1
          || r.top < clip.top - 1 || r.bottom > clip.bottom + 1;
        if (rects.some(out)) found.push(`cut: ${m[0]}`);
      }
    }
    const cup = el.closest(".cup");
    if (cup) { // the label inside the round cup (its corners within the circle inside the border)
      const c = cup.getBoundingClientRect(), radius = cup.clientWidth / 2;
      const [x, y] = [c.left + c.width / 2, c.top + c.height / 2];
      const corners = [[box.left, box.top], [box.right, box.top], [box.left, box.bottom], [box.right, box.bottom]];
      if (corners.some(([px, py]) => Math.hypot(px - x, py - y) > radius + 1)) found.push("out of the cup");
    }
    return found.map((f) => `${el.className}: ${f}`);
  })"""


def _peeking(base, token):
    """A scripted player's phone connects and holds its coaster aside: every page shows them peeking."""
    from maxchen.client import Player

    player = Player(base, token).connect()
    assert player.sio.call("signal", {"activity": "peeking"}, timeout=10) == {"ok": True}
    return player


@pytest.mark.parametrize(
    ("rules", "size", "lang", "players"),
    [
        ("perudo", "landscape", "ru", 6),
        ("luegen", "landscape", "de", 6),
        ("perudo", "small", "ru", 10),
        ("luegen", "small", "en", 10),
    ],
)
def test_the_rows_tags_keep_their_words_whole(browser, look_server, rules, size, lang, players):
    """A player peeks while I have yet to shake: every tag of the rows ("peeking", "still shaking", "offline")
    shows its words whole, none broken over two lines or cut."""
    context, page, base, code, tokens = _started(browser, look_server, size, rules, players, lang)
    peeker = _peeking(base, tokens[0])
    page.wait_for_selector("#players .player[data-activity=peeking] .tag.live")
    page.wait_for_function(look.AT_REST)
    _shot(page, f"tags-{rules}-{size}-{lang}")
    assert page.evaluate(WORDS_WHOLE, "#players .tag:not(.you-tag)") == [], (rules, size, lang)
    peeker.disconnect()
    context.close()


@pytest.mark.parametrize(
    ("rules", "lang", "players"),
    [("maexchen", "ru", 3), ("perudo", "ru", 3), ("luegen", "de", 3), ("poschen", "en", 3), ("maexchen", "de", 10)],
)
def test_the_coasters_word_is_whole_on_the_smallest_cup(browser, look_server, rules, lang, players):
    """360 × 640, my move after I peeked (the cup small, the smallest with ten at the table; the coaster says only its
    word, and its arrow where there is room): the word whole inside the cup, at least 12 px."""
    context, page, base, code, tokens = _started(browser, look_server, "small", rules, players, lang)
    _shake(page)
    page.focus("#coaster")
    page.keyboard.down("Space")
    page.wait_for_selector("#hand:not([hidden])")
    page.keyboard.up("Space")
    page.wait_for_selector("form[data-claim]")
    page.wait_for_selector("body.peeked")
    page.wait_for_function(look.AT_REST)
    _shot(page, f"coaster-{rules}-{lang}-{players}")
    assert page.evaluate(WORDS_WHOLE, "#coaster .coaster-label") == [], (rules, lang)
    size = page.eval_on_selector("#coaster .coaster-label", "(e) => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 12, size
    context.close()


# From the frame the reveal comes up, each frame's opacity of the dimmed backdrop and of the card on it, until both
# stand (window.fades; window.faded once done).
FADES = """() => {
  window.fades = [];
  const overlay = document.getElementById("reveal-overlay");
  const watch = new MutationObserver(() => {
    if (overlay.hidden) return;
    watch.disconnect();
    const frame = () => {
      const card = overlay.querySelector(".reveal");
      const [o, c] = [+getComputedStyle(overlay).opacity, card ? +getComputedStyle(card).opacity : 0];
      fades.push([o, c]);
      if (fades.length < 120 && !(o === 1 && c === 1)) requestAnimationFrame(frame);
      else window.faded = true;
    };
    frame();
  });
  watch.observe(overlay, {attributes: true});
}"""


@pytest.mark.parametrize(("rules", "lang"), [("maexchen", "ru"), ("luegen", "de"), ("perudo", "en")])
def test_on_its_side_a_reveal_card_comes_only_over_a_dimmed_table(browser, look_server, rules, lang):
    """A phone on its side, motion on, just after a check: while the table dims, no half-seen card lies over its rows
    and cup; the card comes once the backdrop is dark, and it fits the screen."""
    width, height = SIZES["landscape"]
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=True, is_mobile=True, locale=LANGUAGES[lang]
    )
    page = context.new_page()
    base = look_server.url
    code = _create_room(page, base, rules)
    tokens = [join_room(base, code, name)["token"] for name in ("Bernd", "Clara")]
    page.wait_for_function("() => document.querySelectorAll('.lobby-list .player').length === 3")
    page.click("button[data-action=start]")
    page.wait_for_selector("#cup.my-turn")
    _others_shake(base, code, tokens)
    _shake(page)
    page.wait_for_selector("form[data-claim]")
    _claim(page)
    page.wait_for_selector("form[data-claim]", state="detached")
    page.evaluate(FADES)
    _api(base, code, tokens[0], action=RULESETS[rules].CHALLENGE)
    page.wait_for_function("() => window.faded === true")
    fades = page.evaluate("fades")
    assert [f for f in fades if f[1] > 0.02 and f[0] < 0.98] == [], fades
    page.wait_for_function(look.AT_REST)
    _shot(page, f"fade-{rules}-{lang}")
    assert _on_screen(page, "#reveal-overlay .reveal"), (rules, lang)
    context.close()
