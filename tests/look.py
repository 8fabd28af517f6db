"""What a look at a screen would catch, as assertions: layout at a phone's size and axe-core's checks.

Used by every browser test at each screen it photographs (`Phone.shot`).
"""

from pathlib import Path

AXE = (Path(__file__).resolve().parent / "vendor" / "axe.min.js").read_text()
TAP = 44  # px: the smallest target a thumb hits without aiming (WCAG 2.5.5, Apple's HIG)

# Layout problems, found in the page itself: one list of plain sentences.
LAYOUT = (Path(__file__).resolve().parent / "look.js").read_text()

AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}"""


# A screen at rest: no animation with an end still running (a card sliding in, a reveal fading in); a looping
# one (a pulse) may go on.
AT_REST = """() => document.getAnimations().every(
  (a) => a.playState !== "running" || a.effect.getComputedTiming().endTime === Infinity)"""


def problems(page) -> list[str]:
    """What is wrong with the screen the page shows now: layout, then axe-core (serious and critical)."""
    # Judge the screen at rest: a reveal that is still fading in is not low contrast.
    page.wait_for_function(AT_REST, timeout=5000)
    found = page.evaluate(LAYOUT, TAP)
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.evaluate(AXE + "\n;0")  # through the DevTools protocol: the page's CSP stays on
    return found + page.evaluate(AXE_RUN)


# The first shown element of a selector is wholly on screen without scrolling: inside the viewport and every
# box that clips it (one the page does not display, `display: none`, is passed over).
IN_VIEW = """(els) => {
    const el = els.find((e) => e.getClientRects().length > 0);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    let top = 0, bottom = innerHeight;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowY === "visible") continue;
        const b = a.getBoundingClientRect();
        top = Math.max(top, b.top); bottom = Math.min(bottom, b.bottom);
    }
    return r.height > 0 && r.top >= top - 1 && r.bottom <= bottom + 1;
}"""


def in_view(page, selector) -> bool:
    """The first shown element of `selector` (Playwright's selectors too) is wholly on screen now (IN_VIEW)."""
    return page.eval_on_selector_all(selector, IN_VIEW)


def comes_into_view(page, selector, timeout=10_000) -> bool:
    """It is, or gets there within `timeout` ms (a card sliding in, a push redrawing the table); CSS only."""
    from playwright.sync_api import TimeoutError as NotThere

    try:
        page.wait_for_function(f"(s) => ({IN_VIEW})([...document.querySelectorAll(s)])", arg=selector, timeout=timeout)
    except NotThere:
        return False
    return True
