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
  for (const el of document.querySelectorAll("main *, header *")) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.right > W + 1 || r.left < -1) {
      // Only the outermost: its children are out with it.
      if (!el.parentElement || el.parentElement.getBoundingClientRect().right <= W + 1) problems.push(`${name(el)} runs off the screen (${Math.round(r.left)}..${Math.round(r.right)} of ${W})`);
    }
  }
  for (const el of document.querySelectorAll("button, a[href], select, input:not([type=hidden]):not([type=radio]):not([type=checkbox]), label.value, summary")) {
    if (!shown(el) || el.closest(".toast")) continue;
    const r = el.getBoundingClientRect();
    if (Math.min(r.width, r.height) < tap - 0.5) problems.push(`${name(el)} is ${Math.round(r.width)}×${Math.round(r.height)} px, below a thumb's ${tap}`);
  }
  for (const el of document.querySelectorAll("form input:not([type=hidden]):not([type=radio]):not([type=checkbox]), form select, form textarea")) {
    if (!shown(el)) continue;
    const card = el.closest(".card") || el.closest("form");
    const ratio = el.getBoundingClientRect().width / card.getBoundingClientRect().width;
    if (ratio < 0.6) problems.push(`${name(el)} is ${Math.round(ratio * 100)} % of its card's width`);
  }
  return problems;
})
