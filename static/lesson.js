// A class's lesson, on its pages and its tables' phones: the countdown ([data-ends-at], the server's epoch
// seconds) ticks here; at zero it says its `data-up` words. The server's time in the page, against the
// moment the page's answer arrived, sets our clock right (loading the page costs a second or two).
(() => {
  "use strict";

  const sent = document.querySelector('meta[name="server-time"]');
  const nav = performance.getEntriesByType("navigation")[0];
  const skew = sent && nav ? sent.content * 1000 - performance.timeOrigin - nav.responseStart : 0;
  const tick = (window.maxchen.tick = () => {
    for (const el of document.querySelectorAll("[data-ends-at]")) {
      // A quarter second of slack: a clock a few milliseconds behind must not show 0:06 for 5 s.
      const left = Math.max(0, Math.ceil((el.dataset.endsAt * 1000 - Date.now() - skew) / 1000 - 0.25));
      el.querySelector(".clock").textContent = left ? ((left / 60) | 0) + ":" + String(left % 60).padStart(2, "0") : "";
      if (!left) el.querySelector(".words").textContent = el.dataset.up;
    }
  });
  setInterval(tick, 1000);
  document.addEventListener("htmx:afterSettle", tick);
  tick();
})();
