// Sound and touch: tones made by the phone itself (Web Audio, no files; a toggle in the menu),
// and vibration where the phone allows it.
(() => {
  "use strict";

  const M = window.maxchen;
  if (!M.room) return;
  const $ = M.$;

  // "ambient": an iPhone's silent switch silences it. Off until the player touched the page.
  const sound = (M.sound = {
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
    fanfare() { [523, 659, 784, 1047].forEach((f, i) => this.tone(f, 0.26, { type: "triangle", gain: 0.14, delay: i * 0.13 })); },
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
      button.textContent = this.on ? M.T.sound_on : M.T.sound_off;
      button.setAttribute("aria-pressed", String(this.on));
    },
  });
  document.addEventListener("pointerdown", () => sound.unlock(), { once: true });
  document.addEventListener("keydown", () => sound.unlock(), { once: true });
  if ($("sound")) {
    $("sound").addEventListener("click", () => sound.toggle());
    sound.show();
  }

  // Vibration where the phone allows it (not iPhones), and only once the page was touched:
  // browsers refuse (and complain) before that.
  M.buzz = (pattern) => {
    if (navigator.vibrate && navigator.userActivation && navigator.userActivation.hasBeenActive) navigator.vibrate(pattern);
  };
})();
