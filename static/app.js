// maxchen room page: the live socket, the cup (shake, tilt, peek) and the reveal.
// The server renders every area; this script only drives the cup and asks
// htmx to refresh after each pushed view. User text reaches the DOM as text.
(() => {
  "use strict";

  const $ = (id) => document.getElementById(id);
  // WebSocket first, long-polling when a network in between refuses it; WebSocket only when
  // the server runs as several processes (no sticky sessions needed behind the proxy).
  const only = document.querySelector('meta[name="maxchen-transports"]');
  const TRANSPORTS = only ? only.content.split(" ") : ["websocket", "polling"];

  // A refusal shows for a few seconds (or until tapped), never over the next turn.
  let toastTimer = null;
  function toast(html, info) {
    $("toast").innerHTML = html;
    $("toast").classList.toggle("info", !!info);
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { $("toast").textContent = ""; }, 4000);
  }

  if (document.body.dataset.class) return classPage(document.body.dataset);
  const ROOM = document.body.dataset.room;
  if (!ROOM) return;
  const T = JSON.parse(document.getElementById("i18n").textContent);
  const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)").matches;
  const GRAVITY = 9.81;

  let view = null;
  let lastSay = "";
  let lastReveal = null;

  // --- the live parts: pushed over the socket, or the answer of a form ------
  // Each area carries the version it shows (public areas also a presence
  // count); an older or equal one is dropped, so a part the player is using
  // (a picked value, a half-built bid) stays unless its content changed.

  const SHARED = document.body.dataset.shared === "1";
  const BOARD = document.body.dataset.board === "1"; // a big screen: watches the table, holds no seat
  const ACT_URL = "/r/" + ROOM + "/act";
  let socket = null;
  let leaving = false; // this page asked to leave the room

  function mark(el) {
    return [+el.dataset.version || 0, +el.dataset.seq || 0];
  }

  function applyParts(html, reset, swapped = afterSwap) {
    const holder = document.createElement("template");
    holder.innerHTML = html;
    let any = false;
    for (const fresh of Array.from(holder.content.children)) {
      const old = fresh.id && document.getElementById(fresh.id);
      if (!old) continue;
      const [a, b] = [mark(fresh), mark(old)];
      const newer = a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
      const other = a[0] !== b[0] || a[1] !== b[1];
      if (!(newer || (reset && other))) continue;
      // A folded part the player opened (the host's settings) stays open.
      for (const folded of old.querySelectorAll("details[id]")) {
        const twin = fresh.querySelector("#" + folded.id);
        if (twin) twin.open = folded.open;
      }
      old.replaceWith(fresh);
      htmx.process(fresh);
      any = true;
    }
    if (any) swapped();
  }

  if (!SHARED) {
    socket = io({
      auth: BOARD ? { room: ROOM, watch: true } : { room: ROOM }, transports: TRANSPORTS, tryAllTransports: TRANSPORTS.length > 1,
      reconnectionDelay: 500, reconnectionDelayMax: 3000,
    });
    const offline = (down) => {
      $("banner").hidden = !down;
      document.body.classList.toggle("offline", down);
    };
    socket.on("connect", () => {
      offline(false);
      $("banner").textContent = T.reconnecting;
      document.body.classList.remove("replaced");
    });
    socket.on("disconnect", () => offline(true));
    socket.on("connect_error", (error) => {
      offline(true);
      if (error && error.data && error.data.code === "bad_token") location.assign("/r/" + ROOM + "?gone=seat");
    });
    // Gone from the room: by my own "leave" (its answer redirects too), or the host removed me.
    socket.on("removed", () => location.assign("/r/" + ROOM + "?gone=" + (leaving ? "left" : "removed")));
    socket.on("replaced", () => {
      // This seat opened on another screen: stay quiet until this one is looked at again.
      $("banner").textContent = T.replaced;
      document.body.classList.add("replaced");
    });
    socket.on("parts", (message) => applyParts(message.html, message.reset));
    document.addEventListener("visibilitychange", () => {
      // A phone waking from sleep: make sure the socket is back.
      if (document.visibilityState === "visible" && !socket.connected) socket.connect();
    });
    // The network is back: reconnect now, not at the next back-off step.
    window.addEventListener("online", () => { if (!socket.connected) socket.connect(); });
  }

  // A phone at the table never dims or locks: hold a screen wake lock while the
  // room is open, and take it again when the page is looked at again (the
  // browser lets it go whenever the page is hidden). Only on HTTPS or localhost.
  let wakeLock = null;
  async function keepAwake() {
    if (!("wakeLock" in navigator) || document.visibilityState !== "visible" || wakeLock) return;
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      document.body.dataset.awake = "1";
      wakeLock.addEventListener("release", () => {
        wakeLock = null;
        delete document.body.dataset.awake;
      });
    } catch (_) {
      wakeLock = null; // refused (battery saver, no user gesture yet): try again on the next tap
    }
  }
  keepAwake();
  document.addEventListener("visibilitychange", keepAwake);
  document.addEventListener("pointerdown", keepAwake);

  // --- sound: made by the phone itself (Web Audio), no files; a toggle in the menu ---
  // "ambient": an iPhone's silent switch silences it. Off until the player touched the page.
  const sound = {
    ctx: null,
    on: localStorage.getItem("maxchen-sound") !== "off",
    unlock() {
      if (this.ctx || !window.AudioContext) return;
      try { if (navigator.audioSession) navigator.audioSession.type = "ambient"; } catch (_) { /* older phones */ }
      this.ctx = new AudioContext();
    },
    tone(freq, seconds, { type = "sine", gain = 0.12, delay = 0, slide = 0 } = {}) {
      if (!this.on || !this.ctx) return;
      const t = this.ctx.currentTime + delay;
      const osc = this.ctx.createOscillator();
      const amp = this.ctx.createGain();
      osc.type = type;
      osc.frequency.setValueAtTime(freq, t);
      if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, t + seconds);
      amp.gain.setValueAtTime(gain, t);
      amp.gain.exponentialRampToValueAtTime(0.0001, t + seconds);
      osc.connect(amp).connect(this.ctx.destination);
      osc.start(t);
      osc.stop(t + seconds + 0.02);
    },
    rattle() { this.tone(380 + Math.random() * 500, 0.04, { type: "square", gain: 0.03 }); },
    thud() { this.tone(120, 0.09, { type: "triangle", gain: 0.12, slide: 0.5 }); },
    chime() { this.tone(880, 0.16); this.tone(1320, 0.22, { delay: 0.13 }); },
    sting(bluff) {
      const notes = bluff ? [523, 415, 330] : [392, 523, 659];
      notes.forEach((f, i) => this.tone(f, 0.22, { type: "triangle", gain: 0.14, delay: i * 0.11 }));
    },
    toggle() {
      this.on = !this.on;
      localStorage.setItem("maxchen-sound", this.on ? "on" : "off");
      this.show();
    },
    show() {
      const button = $("sound");
      if (!button) return;
      button.textContent = this.on ? T.sound_on : T.sound_off;
      button.setAttribute("aria-pressed", String(this.on));
    },
  };
  document.addEventListener("pointerdown", () => sound.unlock(), { once: true });
  document.addEventListener("keydown", () => sound.unlock(), { once: true });
  if ($("sound")) {
    $("sound").addEventListener("click", () => sound.toggle());
    sound.show();
  }

  // Every form's answer holds the areas that changed; a refusal comes as a toast.
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    $("toast").textContent = "";
    const form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    if (form && form.querySelector("input[name=action][value=leave]")) leaving = true;
    const xhr = event.detail.xhr;
    // Listen on the request itself: its form may be swapped out before the answer.
    xhr.addEventListener("load", () => {
      if (xhr.status !== 200) return;
      // A refusal is a toast (server-rendered, user text escaped there).
      if (xhr.getResponseHeader("X-Maxchen-Toast")) toast(xhr.responseText);
      else applyParts(xhr.responseText, false);
    });
  });

  function act(action, extra) {
    if (!view) return;
    htmx.ajax("POST", ACT_URL, { source: document.body, swap: "none", values: { action, version: view.version, ...extra } });
  }

  function signal(activity) {
    if (socket && socket.connected) socket.emit("signal", { activity });
  }

  // The cup reads this player's own part of the view from the controls area.
  function readView() {
    const script = $("cup-view");
    if (!script) return;
    view = JSON.parse(script.textContent);
    cup.update(view);
  }

  // --- the announce picker: the button names the chosen value --------------------

  document.body.addEventListener("change", (event) => {
    const radio = event.target.closest("form.announce input[name=value]");
    if (!radio) return;
    const button = radio.form.querySelector("button[type=submit]");
    button.textContent = button.dataset.label + ": " + radio.closest("label").dataset.name;
  });

  // A pick left out: the button says so and the picker nudges (not the browser's bubble, in its own language).
  document.body.addEventListener("invalid", (event) => {
    const button = event.target.form && event.target.form.querySelector("button[data-pick]");
    if (!button) return;
    event.preventDefault();
    button.textContent = button.dataset.pick;
    const picker = event.target.closest(".ladder");
    picker.classList.remove("nudge");
    void picker.offsetWidth; // restart the animation
    picker.classList.add("nudge");
  }, true);
  document.body.addEventListener("change", (event) => {
    const button = event.target.form && event.target.form.querySelector("button[data-pick]");
    if (button && button.textContent === button.dataset.pick) button.textContent = button.dataset.label;
  });

  // The bid picker offers only legal raises: faces that do not beat the bid at this count go grey.
  function legalFaces() {
    const form = document.querySelector("form.bid");
    if (!form || !view) return;
    const count = +(form.querySelector("input[name=count]:checked") || {}).value;
    for (const input of form.querySelectorAll("input[name=face]")) {
      const legal = view.choices.some((c) => c.count === count && c.face === +input.value);
      input.disabled = !legal;
      if (!legal) input.checked = false;
    }
  }
  document.body.addEventListener("change", (event) => {
    if (event.target.closest("form.bid input[name=count]")) legalFaces();
  });

  // --- after every swap: my seat, host tools, live region, reveal ---------

  document.body.addEventListener("click", (event) => {
    if (event.target.closest("#toast")) $("toast").textContent = "";
  });

  function afterSwap() {
    readView();
    legalFaces();
    const me = view ? view.you : null;
    const meta = document.querySelector("#table [data-meta]");

    document.body.classList.toggle("host", !!(view && view.host));
    const turn = meta ? meta.dataset.turn : "";
    const mine = !!me && turn === me;
    if (mine && !document.body.classList.contains("my-turn") && lastReveal !== null) turnAlert();
    document.body.classList.toggle("my-turn", mine);
    document.title = (mine ? "● " : "") + TITLE;
    for (const li of document.querySelectorAll("#players .player")) {
      li.classList.toggle("me", li.dataset.player === me);
      li.classList.toggle("active", !!turn && li.dataset.player === turn);
    }
    for (const el of document.querySelectorAll("[data-not-for]")) el.hidden = el.dataset.notFor === me;
    graceRemoval();
    newcomers(meta);
    if (meta) Object.assign(document.body.dataset, { phase: meta.dataset.phase, rules: meta.dataset.rules, claim: meta.dataset.claim });
    const say = document.querySelector("#table [data-say]");
    if (say && say.textContent.trim() && say.textContent !== lastSay) {
      lastSay = say.textContent;
      $("live").textContent = lastSay.trim();
    }
    checkReveals(); // before noteSeals
    noteSeals(meta);
    const round = (meta && meta.dataset.revealRound) || "";
    if (lastReveal !== null && round && round !== lastReveal && !SHARED) showReveal(); // one phone: the cover shows it
    lastReveal = round;
  }

  // --- fair dice (/fair): a closed cup's seal is sha256("6,5:" + salt); a reveal brings the salt.
  // The page hashes the dice it shows (js-sha256: plain http has no crypto.subtle).

  const seals = new Map(); // "round/cup" -> the seal the table showed
  let sealRound = 0;
  let warned = "";

  function noteSeals(meta) {
    const round = meta ? +meta.dataset.round || 0 : 0;
    if (round < sealRound) seals.clear(); // a new game counts its rounds from 1 again
    sealRound = round;
    for (const el of document.querySelectorAll("#table .seal [data-commitment]")) {
      seals.set(el.closest("[data-round]").dataset.round + "/" + el.dataset.cup, el.dataset.commitment);
    }
  }

  function faces(cup) {
    return [...cup.querySelectorAll(".die")].map((d) => {
      const f = d.className.match(/\bface-\d\b/g) || [];
      return f.length === 1 ? +f[0].slice(5) : 0;
    });
  }

  // js-sha256 comes with the first reveal on screen, not with the page: a lighter first load.
  let hashing = null;
  function withSha256(then) {
    if (window.sha256) return then();
    if (!hashing) {
      hashing = document.createElement("script");
      hashing.src = document.body.dataset.sha256;
      document.head.appendChild(hashing);
    }
    hashing.addEventListener("load", then, { once: true });
  }

  // Judged once, against seals seen before it showed (a die of two faces hashes as 0).
  const judged = new Map();
  const salted = (r) => [...r.querySelectorAll("[data-salt]")];
  const keyOf = (r) => r.dataset.round + salted(r).map((c) => [c.dataset.cup, c.dataset.salt, c.dataset.commitment, faces(c)]).join();

  function checkReveals() {
    const reveals = [...document.querySelectorAll(".reveal[data-round]")].filter((r) => salted(r).length);
    for (const r of reveals) {
      const k = keyOf(r);
      if (!judged.has(k)) judged.set(k, { seen: salted(r).map((c) => seals.get(r.dataset.round + "/" + c.dataset.cup)) });
    }
    if (reveals.length) withSha256(() => reveals.forEach(markReveal));
  }

  function markReveal(reveal) {
    const j = judged.get(keyOf(reveal));
    const cups = salted(reveal);
    const sealed = (c, i) => sha256(faces(c).join(",") + ":" + c.dataset.salt) === c.dataset.commitment && [undefined, c.dataset.commitment].includes(j.seen[i]);
    j.bad = j.bad || cups.map((c, i) => !sealed(c, i));
    const state = j.bad.includes(true) ? "bad" : j.seen.includes(undefined) ? "unchecked" : "ok";
    cups.forEach((c, i) => c.classList.toggle("unsealed", j.bad[i]));
    const mark = reveal.querySelector(".fair-mark");
    if (mark) mark.dataset.state = state;
    if (state === "bad" && warned !== reveal.dataset.round) {
      warned = reveal.dataset.round;
      $("live").textContent = ($("live").textContent + " " + T.unsealed).trim();
    }
  }

  // Someone sits down while a game runs: everyone hears of it (they play from the next game).
  let seated = null;
  function newcomers(meta) {
    const rows = [...document.querySelectorAll("#players .player")];
    const ids = new Set(rows.map((li) => li.dataset.player));
    if (seated && meta && meta.dataset.phase === "playing") {
      const fresh = rows.filter((li) => !seated.has(li.dataset.player));
      if (fresh.length) {
        const p = document.createElement("p");
        const names = fresh.map((li) => li.querySelector(".name").textContent).join(", ");
        p.textContent = document.body.dataset.joined.replace("{name}", () => names); // a function: no "$&" patterns
        toast(p.outerHTML, true);
      }
    }
    seated = ids;
  }

  // A player who went offline mid-game can be removed by the host only after a grace
  // (a locked screen or a tunnel comes back); counted from when this page first saw them gone.
  const GRACE = 1000 * (parseFloat(document.body.dataset.grace) || 15);
  const offlineSince = new Map();
  let graceTimer = null;
  function graceRemoval() {
    const now = Date.now();
    const seen = new Set();
    let next = Infinity;
    for (const el of document.querySelectorAll("#players [data-grace]")) {
      const id = el.dataset.notFor;
      seen.add(id);
      if (!offlineSince.has(id)) offlineSince.set(id, now);
      const left = offlineSince.get(id) + GRACE - now;
      el.classList.toggle("grace", left > 0);
      if (left > 0) next = Math.min(next, left);
    }
    for (const id of [...offlineSince.keys()]) if (!seen.has(id)) offlineSince.delete(id);
    clearTimeout(graceTimer);
    if (next < Infinity) graceTimer = setTimeout(graceRemoval, next + 50);
  }

  // The turn comes to me: a short buzz where the phone allows it, and a mark in the tab's title.
  const TITLE = document.title;
  function turnAlert() {
    buzz([60, 40, 60]);
    sound.chime();
  }

  let revealTimer = null;

  function showReveal() {
    const card = $("reveal");
    if (!card) return;
    const overlay = $("reveal-overlay");
    overlay.replaceChildren(card.cloneNode(true));
    overlay.firstChild.removeAttribute("id");
    overlay.hidden = false;
    const hide = () => {
      overlay.hidden = true;
      document.removeEventListener("pointerdown", hide, true);
      document.removeEventListener("keydown", hide, true);
    };
    // Any touch or key puts it away and still does what it meant below (the cup, "Believe").
    document.addEventListener("pointerdown", hide, true);
    document.addEventListener("keydown", hide, true);
    clearTimeout(revealTimer); // a new reveal gets its whole time
    revealTimer = setTimeout(hide, reducedMotion ? 4500 : 6000);
    const verdict = overlay.querySelector(".verdict");
    if (verdict) setTimeout(() => sound.sting(overlay.firstChild.classList.contains("bluff")), reducedMotion ? 0 : 1300);
  }

  // --- the cup -------------------------------------------------------------

  const cup = {
    area: $("cup-area"),
    el: $("cup"),
    floor: $("floor"),
    coaster: $("coaster"),
    hint: $("cup-hint"),
    dice: [],          // {el, x, y, vx, vy}
    values: null,      // my dice while they are mine (from my own view only)
    canShake: false,
    peeking: false,
    tilt: { x: 0, y: 0 },
    running: false,

    update(v) {
      const seated = v.phase === "playing" && v.you && !v.waiting && !v.out;
      this.canShake = seated && v.allowed.includes("shake");
      this.el.classList.toggle("my-turn", this.canShake);
      // My move (shake, then announce or bid): the controls keep the picker's room, so the cup does not jump.
      document.body.classList.toggle("my-move", seated && (v.allowed.includes("shake") || v.choices.length > 0));
      const had = this.values;
      this.values = seated && v.dice ? v.dice.slice() : null;
      if (this.values && !had) this.drop(this.values.length);
      if (!this.values && !shaker.active) this.clear();
      if (this.values) this.paint();
      this.coaster.hidden = !this.values;
      // The cup is on the table while it is mine: to shake, or holding my dice.
      this.area.hidden = !(this.canShake || this.values || shaker.active);
      if (!this.values && this.peeking) this.setPeek(false);
      if (this.canShake) this.say(motion.seen ? T.shake_motion : T.shake_drag);
      else this.say("");
      if (this.values && !had) $("live").textContent = T.rolled; // the coaster's label says it on screen
    },

    say(text) { if (this.hint.textContent !== text) this.hint.textContent = text; },

    size() { return this.floor.clientWidth; },

    makeDie() {
      const el = document.createElement("div");
      el.className = "die blank";
      el.setAttribute("aria-hidden", "true");
      for (let i = 0; i < 9; i++) el.appendChild(document.createElement("i"));
      this.floor.appendChild(el);
      return { el, x: 0, y: 0, vx: 0, vy: 0 };
    },

    drop(count) {
      this.clear();
      const size = this.size();
      for (let i = 0; i < count; i++) {
        const die = this.makeDie();
        die.x = size * (0.3 + 0.4 * Math.random());
        die.y = size * (0.3 + 0.4 * Math.random());
        die.vx = (Math.random() - 0.5) * 18;
        die.vy = (Math.random() - 0.5) * 18;
        this.dice.push(die);
      }
      this.paint();
      this.start();
    },

    clear() {
      this.dice.forEach((d) => d.el.remove());
      this.dice = [];
    },

    paint() {
      this.dice.forEach((die, i) => {
        const value = this.values ? this.values[i] : null;
        die.el.className = "die" + (value ? " face-" + value : "") + (this.peeking && value ? "" : " blank");
      });
      this.place();
    },

    // Dice scale with the cup (a small phone's cup on my move holds three): 26 to 48 px.
    die() { return Math.max(26, Math.min(48, Math.round(this.size() * 0.27))); },

    place() {
      const die = this.die();
      this.floor.style.setProperty("--die", die + "px");
      const half = die / 2;
      this.dice.forEach((d) => {
        d.el.style.transform = `translate(${d.x - half}px, ${d.y - half}px)`;
      });
    },

    rattle() {
      // Shaking: blank dice tumble about the cup.
      if (!this.dice.length) {
        for (let i = 0; i < ((view && view.size) || 2); i++) {
          const die = this.makeDie();
          die.x = die.y = this.size() / 2;
          this.dice.push(die);
        }
      }
      this.dice.forEach((d) => {
        d.vx += (Math.random() - 0.5) * 30;
        d.vy += (Math.random() - 0.5) * 30;
      });
      this.start();
    },

    start() {
      if (reducedMotion) { this.place(); return; }
      if (this.running) return;
      this.running = true;
      let last = performance.now();
      const frame = (now) => {
        const dt = Math.min(0.05, (now - last) / 1000);
        last = now;
        const moving = this.step(dt);
        this.place();
        if (moving && this.dice.length) requestAnimationFrame(frame);
        else this.running = false;
      };
      requestAnimationFrame(frame);
    },

    // Simple 2-D physics: tilt pulls the dice, the round wall bounces them.
    step(dt) {
      const size = this.size();
      const centre = size / 2;
      const die = this.die();
      const radius = size / 2 - die * 0.8; // the coaster must cover a die at the wall
      let moving = Math.abs(this.tilt.x) + Math.abs(this.tilt.y) > 0.6;
      for (const d of this.dice) {
        d.vx = (d.vx + this.tilt.x * 60 * dt) * 0.985;
        d.vy = (d.vy + this.tilt.y * 60 * dt) * 0.985;
        d.x += d.vx * dt * 20;
        d.y += d.vy * dt * 20;
        const dx = d.x - centre;
        const dy = d.y - centre;
        const dist = Math.hypot(dx, dy);
        if (dist > radius) {
          const nx = dx / dist;
          const ny = dy / dist;
          d.x = centre + nx * radius;
          d.y = centre + ny * radius;
          const into = d.vx * nx + d.vy * ny;
          if (into > 0) {
            d.vx -= 1.5 * into * nx;
            d.vy -= 1.5 * into * ny;
            if (into > 6) bump();
          }
        }
        if (Math.hypot(d.vx, d.vy) > 0.3) moving = true;
      }
      // Dice push each other apart (two in Mäxchen, three in Lügen): every pair.
      for (let i = 0; i < this.dice.length; i++) {
        for (let j = i + 1; j < this.dice.length; j++) {
          const a = this.dice[i];
          const b = this.dice[j];
          const dx = b.x - a.x;
          const dy = b.y - a.y;
          const dist = Math.hypot(dx, dy) || 1;
          if (dist < die + 2) {
            const push = (die + 2 - dist) / 2;
            a.x -= (dx / dist) * push; a.y -= (dy / dist) * push;
            b.x += (dx / dist) * push; b.y += (dy / dist) * push;
            [a.vx, b.vx] = [b.vx, a.vx];
            [a.vy, b.vy] = [b.vy, a.vy];
          }
        }
      }
      return moving;
    },

    setPeek(on) {
      if (on === this.peeking) return;
      this.peeking = on && !!this.values;
      this.el.classList.toggle("peeking", this.peeking);
      this.paint();
      signal(this.peeking ? "peeking" : null);
      if (this.peeking) $("live").textContent = T.your_dice + " " + this.values.join(", ");
      if (this.peeking) {
        // Once a player has peeked, a small phone may shorten the coaster's words to its arrow.
        document.body.classList.add("peeked");
        sessionStorage.setItem("maxchen-peeked", "1");
      }
    },
  };
  if (sessionStorage.getItem("maxchen-peeked") === "1") document.body.classList.add("peeked");

  let lastBump = 0;
  function bump() {
    const now = performance.now();
    if (now - lastBump < 60) return;
    lastBump = now;
    buzz(12);
    sound.thud();
  }

  // Vibration where the phone allows it (not iPhones), and only once the page was touched:
  // browsers refuse (and complain) before that.
  function buzz(pattern) {
    if (navigator.vibrate && navigator.userActivation && navigator.userActivation.hasBeenActive) navigator.vibrate(pattern);
  }

  // --- shake detection: motion, pointer drag or arrow keys --------------------

  const SOURCES = {
    motion: { pulses: 5, quiet: 450 },
    drag: { pulses: 4, quiet: 350 },
    keys: { pulses: 5, quiet: 600 },
  };

  // The shake meter on the cup fills as the shake goes on: full means "now stop".
  function meter(fill) {
    const bar = $("meter");
    if (!bar) return;
    bar.hidden = fill === 0;
    bar.style.setProperty("--fill", (fill * 100).toFixed(0) + "%");
    bar.classList.toggle("full", fill >= 1);
  }

  const shaker = {
    active: false,
    source: null,
    count: 0,
    last: 0,
    timer: null,

    pulse(source) {
      if (!cup.canShake) return;
      const now = performance.now();
      if (!this.active) {
        this.active = true;
        this.source = source;
        this.count = 0;
        signal("shaking");
      }
      this.count++;
      this.last = now;
      cup.rattle();
      sound.rattle();
      const need = SOURCES[source].pulses;
      meter(Math.min(1, this.count / need));
      cup.say(this.count >= need ? T.stop_now : T.keep_shaking);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.stop(), SOURCES[source].quiet);
    },

    stop() {
      if (!this.active) return;
      clearTimeout(this.timer);
      this.active = false;
      meter(0);
      if (this.count >= SOURCES[this.source].pulses && cup.canShake) {
        cup.canShake = false;
        act("shake");
      } else {
        signal(null);
        if (view) cup.update(view);
        cup.say(T.too_short); // a shake too weak or too short is never silently nothing
      }
    },
  };

  // Device motion: shaking, tilting, and "easy!" when it is far too hard.
  const motion = {
    seen: false,
    button: $("motion"),
    note: $("motion-note"),
    // Motion that must be asked for (iPhone; any browser that adds the same permission).
    asks: typeof window.DeviceMotionEvent !== "undefined" && typeof DeviceMotionEvent.requestPermission === "function",
    // iPhones and iPads report acceleration with the opposite sign: known by the platform, not the permission.
    flip: /iPhone|iPad|iPod/.test(navigator.userAgent) || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1) ? -1 : 1,

    listen() { window.addEventListener("devicemotion", (e) => this.onMotion(e)); },

    onMotion(event) {
      const a = event.accelerationIncludingGravity;
      if (!a || a.x === null || a.x === undefined) return;
      if (!this.seen) {
        this.seen = true;
        this.button.hidden = true;
        this.note.hidden = true;
        if (cup.canShake) cup.say(T.shake_motion);
      }
      cup.tilt.x = -a.x * this.flip;
      cup.tilt.y = a.y * this.flip;
      if (cup.dice.length) cup.start();
      const force = Math.abs(Math.hypot(a.x, a.y, a.z || 0) - GRAVITY);
      if (force > 30) easy();
      if (force > 7) shaker.pulse("motion");
    },

    async enable() {
      if (this.asks) {
        try {
          // Must run inside the tap: iPhone asks the player here.
          if ((await DeviceMotionEvent.requestPermission()) !== "granted") return this.explain(T.motion_denied);
        } catch (error) {
          return this.explain(T.motion_denied);
        }
      }
      this.button.hidden = true;
      sessionStorage.setItem("maxchen-motion-asked", "1");
      setTimeout(() => { if (!this.seen) this.explain(T.no_motion); }, 1500);
    },

    explain(text) {
      this.note.textContent = text;
      this.note.hidden = false;
      clearTimeout(this.noteTimer);
      this.noteTimer = setTimeout(() => { this.note.hidden = true; }, 8000);
    },
  };

  if (typeof window.DeviceMotionEvent !== "undefined") {
    motion.listen();
    // Where motion must be asked for (an iPhone, inside a tap), it has not arrived by
    // itself a moment after the page opened: only then the cup offers the button.
    setTimeout(() => {
      motion.button.hidden = motion.seen || !motion.asks || sessionStorage.getItem("maxchen-motion-asked") === "1";
    }, 800);
    motion.button.addEventListener("click", () => motion.enable());
  }

  let easyTimer = null;
  function easy() {
    const badge = $("easy");
    badge.hidden = false;
    clearTimeout(easyTimer);
    easyTimer = setTimeout(() => { badge.hidden = true; }, 1200);
  }

  // Dragging the cup quickly back and forth: each change of direction is a pulse.
  const drag = { id: null, x: 0, t: 0, dir: 0 };
  cup.el.addEventListener("pointerdown", (e) => {
    if (!cup.canShake || e.target.closest("#coaster, #motion")) return;
    drag.id = e.pointerId;
    drag.x = e.clientX;
    drag.t = e.timeStamp;
    drag.dir = 0;
    cup.el.setPointerCapture(e.pointerId);
  });
  cup.el.addEventListener("pointermove", (e) => {
    if (e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x;
    const dt = Math.max(1, e.timeStamp - drag.t);
    if (Math.abs(dx) < 4) return;
    const dir = Math.sign(dx);
    if (dir !== drag.dir && Math.abs(dx) / dt > 0.3) {
      drag.dir = dir;
      shaker.pulse("drag");
    }
    drag.x = e.clientX;
    drag.t = e.timeStamp;
  });
  const endDrag = (e) => {
    if (e.pointerId !== drag.id) return;
    drag.id = null;
    if (shaker.active && shaker.source === "drag") shaker.stop();
  };
  cup.el.addEventListener("pointerup", endDrag);
  cup.el.addEventListener("pointercancel", endDrag);

  // Keyboard: alternate the left and right arrow keys quickly, then stop.
  let lastArrow = null;
  cup.el.addEventListener("keydown", (e) => {
    if (e.target !== cup.el || !["ArrowLeft", "ArrowRight"].includes(e.key)) return;
    e.preventDefault();
    if (e.key !== lastArrow) shaker.pulse("keys");
    lastArrow = e.key;
  });

  // --- peek: slide the coaster right and hold ------------------------------------

  const slide = { id: null, x0: 0 };
  const maxSlide = () => cup.el.clientWidth; // all the way off: the whole floor shows
  const coaster = cup.coaster;
  coaster.addEventListener("pointerdown", (e) => {
    slide.id = e.pointerId;
    slide.x0 = e.clientX;
    coaster.classList.add("dragging");
    coaster.setPointerCapture(e.pointerId);
    e.preventDefault();
  });
  coaster.addEventListener("pointermove", (e) => {
    if (e.pointerId !== slide.id) return;
    // The coaster runs ahead of the thumb (a thumb need not cross the whole cup), and
    // once it has slid far enough to peek it turns see-through: peeking means seeing.
    const dx = Math.max(0, Math.min(maxSlide(), (e.clientX - slide.x0) * 1.6));
    coaster.style.transform = `translateX(${dx}px)`;
    cup.setPeek(dx > maxSlide() * 0.6);
  });
  const release = () => {
    slide.id = null;
    coaster.classList.remove("dragging");
    coaster.style.transform = "";
    cup.setPeek(false);
  };
  coaster.addEventListener("pointerup", release);
  coaster.addEventListener("pointercancel", release);
  coaster.addEventListener("keydown", (e) => {
    if (![" ", "Enter", "ArrowRight"].includes(e.key)) return;
    e.preventDefault();
    coaster.style.transform = `translateX(${maxSlide()}px)`;
    cup.setPeek(true);
  });
  coaster.addEventListener("keyup", release);
  coaster.addEventListener("blur", release);
  window.addEventListener("blur", release);

  afterSwap();
  // --- a class: the teacher's desk, a student waiting for a table, the class board ---
  // The board gets its parts pushed; the desk asks for its roster again when the class
  // changed (not while the teacher holds a choice open); a waiting student whose table
  // is ready goes there.
  function classPage(data) {
    const socket = io({
      auth: { class: data.class, watch: data.watch === "1" }, transports: TRANSPORTS, tryAllTransports: TRANSPORTS.length > 1,
      reconnectionDelay: 500, reconnectionDelayMax: 3000,
    });
    const banner = $("banner");
    socket.on("connect", () => { if (banner) banner.hidden = true; });
    socket.on("disconnect", () => { if (banner) banner.hidden = false; });
    socket.on("parts", (message) => applyParts(message.html, message.reset, () => {}));
    let stale = false;
    const roster = () => {
      const open = document.activeElement && document.activeElement.closest && document.activeElement.closest("#roster select");
      stale = !!open;
      if (!open && $("roster")) htmx.ajax("GET", "/c/" + data.class + "/roster", { target: "#roster", swap: "outerHTML" });
    };
    document.addEventListener("focusout", () => { if (stale) setTimeout(roster, 0); });
    socket.on("class", (message) => {
      if (data.student && message.seated.includes(data.student)) location.reload();
      else if (data.teacher) roster();
    });
    socket.on("tables", roster); // a table changed: who sits where, which table plays
    document.body.addEventListener("htmx:beforeSwap", (event) => {
      const xhr = event.detail.xhr;
      if (xhr.getResponseHeader("X-Maxchen-Toast")) {
        event.detail.shouldSwap = false;
        toast(xhr.responseText);
      }
    });
  }
})();
