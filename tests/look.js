// Layout problems of the screen a page shows now, as plain sentences (tests/look.py).
((tap) => {
  const problems = [];
  const W = window.innerWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.classList.length ? "." + [...el.classList].join(".") : "") +
    (el.textContent.trim() ? " '" + el.textContent.trim().slice(0, 24) + "'" : "");
  const shown = (el) => {
    if (el.closest("[hidden], template, .sr-only, .visually-hidden")) return false;
    const details = el.closest("details");
    if (details && !details.open && !el.closest("summary")) return false;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none" || +style.opacity === 0) return false;
    const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1;
  };
  if (document.documentElement.scrollWidth > W + 1) problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px in ${W})`);
  // What a box with overflow hidden cuts off is cut on purpose (the coaster sliding out of the cup).
  // A row made to scroll sideways (data-scrolls: every count of a bid) that itself fits: past its edge is a swipe away.
  const swiped = (a) => {
    const r = a.getBoundingClientRect();
    return a.hasAttribute("data-scrolls") && r.left >= -1 && r.right <= W + 1;
  };
  const clipped = (el) => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === "hidden" || o === "clip") return true;
      if (swiped(a)) return true;
    }
    return false;
  };
  for (const el of document.querySelectorAll("main *, header *")) {
    if (!shown(el) || clipped(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.right > W + 1 || r.left < -1) {
      // Only the outermost: its children are out with it.
      if (!el.parentElement || el.parentElement.getBoundingClientRect().right <= W + 1) problems.push(`${name(el)} runs off the screen (${Math.round(r.left)}..${Math.round(r.right)} of ${W})`);
    }
  }
  // Cut off inside a box that scrolls sideways (a row wider than its column).
  const clipper = (el) => {
    for (let e = el, a = el.parentElement; a && a !== document.body; e = a, a = a.parentElement) {
      // A fixed box (the one-phone cover) has the screen for its box: the boxes around it clip nothing of it.
      if (getComputedStyle(e).position === "fixed") return null;
      const o = getComputedStyle(a).overflowX;
      if (o === "hidden" || o === "clip" || swiped(a)) return null;
      if (o !== "visible") return a;
    }
    return null;
  };
  for (const el of document.querySelectorAll("main *")) {
    if (!shown(el)) continue;
    const box = clipper(el);
    if (!box) continue;
    if (getComputedStyle(box).textOverflow === "ellipsis") continue; // shortened on purpose: checked below
    const r = el.getBoundingClientRect(), b = box.getBoundingClientRect();
    const parentOut = el.parentElement !== box && el.parentElement.getBoundingClientRect().right > b.right + 1;
    if (r.right > b.right + 1 && !parentOut) problems.push(`${name(el)} is cut off by ${name(box).slice(0, 30)} (${Math.round(r.right)} > ${Math.round(b.right)})`);
  }
  // A shortened text (a long name) still shows a readable start: five letters' width, or all of it.
  for (const el of document.querySelectorAll("main *")) {
    if (!shown(el) || getComputedStyle(el).textOverflow !== "ellipsis") continue;
    const em = parseFloat(getComputedStyle(el).fontSize);
    if (el.clientWidth < Math.min(el.scrollWidth, 3 * em) - 1) problems.push(`${name(el)} is cut to ${el.clientWidth} of ${el.scrollWidth} px`);
  }
  // A long name loses its middle (static/live.js), not its end: two that begin alike stay apart.
  for (const el of document.querySelectorAll("main .name")) {
    if (shown(el) && el.firstElementChild?.tagName === "BDI" && el.scrollWidth > el.clientWidth + 1) problems.push(`${name(el)} is cut at its end`);
  }
  for (const el of document.querySelectorAll("button, a[href], select, input:not([type=hidden]):not([type=radio]):not([type=checkbox]), label.value, summary")) {
    if (!shown(el) || el.closest(".toast")) continue;
    const r = el.getBoundingClientRect();
    // A whole row as the target (the host's ✕ in the densest rows): two thumbs wide, as tall as such a row (28 px).
    const row = el.closest(".table-list .player")?.getBoundingClientRect();
    if (row && r.width >= row.width - 1 && r.height >= row.height - 1) {
      if (r.width < 2 * tap || r.height < 27.5) problems.push(`${name(el)}, its whole row, is ${Math.round(r.width)}×${Math.round(r.height)} px`);
    } else if (Math.min(r.width, r.height) < tap - 0.5) problems.push(`${name(el)} is ${Math.round(r.width)}×${Math.round(r.height)} px, below a thumb's ${tap}`);
  }
  for (const el of document.querySelectorAll("form input:not([type=hidden]):not([type=radio]):not([type=checkbox]), form select, form textarea")) {
    // A field that shares its row on purpose (a roster's "move to") is marked so; it still needs a tap's size.
    if (!shown(el) || el.closest("[data-inline]")) continue;
    const card = el.closest(".card") || el.closest("form");
    const ratio = el.getBoundingClientRect().width / card.getBoundingClientRect().width;
    if (ratio < 0.6) problems.push(`${name(el)} is ${Math.round(ratio * 100)} % of its card's width`);
  }
  return problems;
})
