// The cup: shake it (motion, a quick drag or the arrow keys), tilt it, slide the coaster and
// hold to peek. The dice it shows are my own view's; the server rolls them.
(() => {
  "use strict";

  const M = window.maxchen;
  if (!M.room) return;
  const { $, room } = M;
  const GRAVITY = 9.81;

  // --- the cup -------------------------------------------------------------

  const cup = (M.cup = {
    area: $("cup-area"),
    el: $("cup"),
    floor: $("floor"),
    hand: $("hand"),
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
      // A shake going on keeps its own words ("Keep shaking…"), a shake too short its "too short" a while: a push
      // that redraws the table (the row's "shaking" on and off) puts the prompt back only after them.
      if (!this.canShake) this.say("");
      else if (!shaker.active && Date.now() >= this.holdUntil) this.say(motion.seen ? M.T.shake_motion : M.T.shake_drag);
      if (this.values && !had) $("live").textContent = M.T.rolled; // the coaster's label says it on screen
    },

    holdUntil: 0, // a "too short" stays readable this long, whatever the pushes around it redraw
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
      this.showHand();
    },

    // Dice scale with the cup (a small phone's cup on my move holds three): 26 to 48 px.
    die() { return Math.max(26, Math.min(48, Math.round(this.size() * 0.27))); },

    place() {
      const die = this.die();
      this.floor.style.setProperty("--die", die + "px");
      const half = die / 2;
      // A cup that shrank (the picker came) keeps its dice inside: each drawn back within the rim.
      const centre = this.size() / 2;
      const room = Math.max(0, centre - half * 1.3);
      this.dice.forEach((d) => {
        const dx = d.x - centre, dy = d.y - centre, far = Math.hypot(dx, dy);
        if (far > room) {
          d.x = centre + (dx * room) / far;
          d.y = centre + (dy * room) / far;
        }
        d.el.style.transform = `translate(${d.x - half}px, ${d.y - half}px)`;
      });
    },

    rattle() {
      // Shaking: blank dice tumble about the cup.
      if (!this.dice.length) {
        for (let i = 0; i < ((room.view && room.view.size) || 2); i++) {
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
      if (M.reducedMotion) { this.place(); return; }
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

    // The hand: while I peek, my dice lie side by side above the cup, highest first, each at least 44 px
    // (one row, or two where the screen is narrow), clear of the thumb on the coaster and inside the screen.
    showHand() {
      const hand = this.hand;
      if (!hand) return;
      hand.hidden = !this.peeking;
      if (!this.peeking) return hand.replaceChildren(); // no face stays in the page once the peek ends
      const values = this.values.slice().sort((a, b) => b - a);
      hand.replaceChildren(...values.map((value) => {
        const die = document.createElement("div");
        die.className = "die face-" + value;
        for (let i = 0; i < 9; i++) die.appendChild(document.createElement("i"));
        return die;
      }));
      const gap = 8, pad = 10, margin = 8; // pad: the tray's padding and border (style.css .hand)
      const at = this.el.getBoundingClientRect();
      const middle = at.left + at.width / 2;
      // The band the tray may take: the screen, less the controls where they sit beside the cup (on its side).
      const controls = $("controls") && $("controls").getBoundingClientRect();
      let [low, high] = [0, Math.min(window.innerWidth, document.documentElement.clientWidth)];
      if (controls && controls.width && controls.top < at.top + at.height) {
        if (controls.left >= middle) high = Math.min(high, controls.left);
        else if (controls.right <= middle) low = Math.max(low, controls.right);
      }
      const fits = (cols) => (high - low - 2 * margin - 2 * pad - (cols - 1) * gap) / cols;
      const cols = fits(values.length) >= 44 ? values.length : Math.ceil(values.length / 2);
      const rows = Math.ceil(values.length / cols);
      const size = Math.floor(Math.max(44, Math.min(64, fits(cols))));
      const width = cols * size + (cols - 1) * gap + 2 * pad;
      const height = rows * size + (rows - 1) * gap + 2 * pad;
      hand.style.setProperty("--die", size + "px");
      hand.style.width = width + "px";
      const clamp = (x, least, most) => Math.max(least, Math.min(most, x));
      hand.style.left = clamp(middle - width / 2, low + margin, high - width - margin) + "px";
      hand.style.top = clamp(at.top + at.height * 0.35 - height, margin, window.innerHeight - height - margin) + "px";
    },

    setPeek(on) {
      if (on === this.peeking) return;
      this.peeking = on && !!this.values;
      this.el.classList.toggle("peeking", this.peeking);
      this.paint();
      room.signal(this.peeking ? "peeking" : null);
      if (this.peeking) $("live").textContent = M.T.your_dice + " " + this.values.join(", ");
      if (this.peeking) {
        // Once a player has peeked, a small phone may shorten the coaster's words to its arrow.
        document.body.classList.add("peeked");
        sessionStorage.setItem("maxchen-peeked", "1");
      }
    },
  });
  if (sessionStorage.getItem("maxchen-peeked") === "1") document.body.classList.add("peeked");
  window.addEventListener("resize", () => cup.showHand()); // turned on its side while peeking

  let lastBump = 0;
  function bump() {
    const now = performance.now();
    if (now - lastBump < 60) return;
    lastBump = now;
    M.buzz(12);
    M.sound.thud();
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
        cup.holdUntil = 0;
        room.signal("shaking");
      }
      this.count++;
      this.last = now;
      cup.rattle();
      M.sound.rattle();
      const need = SOURCES[source].pulses;
      meter(Math.min(1, this.count / need));
      cup.say(this.count >= need ? M.T.stop_now : M.T.keep_shaking);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.quiet(), SOURCES[source].quiet);
    },

    // A pause: the shake ends. A drag too short so far goes on while the finger is down (a pause to turn is no
    // end): it ends when the finger lets go, so its "too short" is not overwritten by the drag going on.
    quiet() {
      if (this.source === "drag" && drag.id !== null && this.count < SOURCES.drag.pulses) return;
      this.stop();
    },

    stop() {
      if (!this.active) return;
      clearTimeout(this.timer);
      this.active = false;
      meter(0);
      if (this.count >= SOURCES[this.source].pulses && cup.canShake) {
        cup.canShake = false;
        motion.done(); // a shake worked: this phone needs no button to ask for motion again
        room.act("shake", { seed: M.fair.seed() });
      } else {
        room.signal(null);
        cup.holdUntil = Date.now() + 2500; // a shake too weak or too short is never silently nothing
        if (room.view) cup.update(room.view);
        cup.say(M.T.too_short);
      }
    },
  };

  // Device motion: shaking, tilting, and "easy!" when it is far too hard.
  const ASKED = "maxchen-motion-asked";
  const asked = () => {
    try { return localStorage.getItem(ASKED) === "1"; } catch (error) { return false; }
  };
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
        this.done();
        this.note.hidden = true;
        if (cup.canShake) cup.say(M.T.shake_motion);
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
          if ((await DeviceMotionEvent.requestPermission()) !== "granted") return this.explain(M.T.motion_denied);
        } catch (error) {
          return this.explain(M.T.motion_denied);
        }
      }
      this.done();
      setTimeout(() => { if (!this.seen) this.explain(M.T.no_motion); }, 1500);
    },

    // Asked once, or shaken by drag or keys: the button goes for good (this browser remembers it).
    done() {
      this.button.hidden = true;
      try { localStorage.setItem(ASKED, "1"); } catch (error) { /* private mode: for this page only */ }
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
      motion.button.hidden = motion.seen || !motion.asks || asked();
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
  const peekByKey = (e) => {
    e.preventDefault();
    coaster.style.transform = `translateX(${maxSlide()}px)`;
    cup.setPeek(true);
  };
  coaster.addEventListener("keydown", (e) => {
    if ([" ", "Enter", "ArrowRight"].includes(e.key)) peekByKey(e);
  });
  coaster.addEventListener("keyup", release);
  // The cup itself focused: Space or Enter held peeks as on the coaster.
  cup.el.addEventListener("keydown", (e) => {
    if (e.target === cup.el && [" ", "Enter"].includes(e.key) && !coaster.hidden) peekByKey(e);
  });
  cup.el.addEventListener("keyup", (e) => {
    if (e.target === cup.el && [" ", "Enter"].includes(e.key)) release();
  });
  cup.el.addEventListener("blur", release);
  coaster.addEventListener("blur", release);
  window.addEventListener("blur", release);
})();
