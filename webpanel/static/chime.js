/* The chime of a lamp that lights: two falling tones made with Web Audio (no
 * sound file), and the button that mutes it. The choice is remembered by the
 * browser (localStorage), so the connected display stays muted once muted.
 * Browsers let a page sound only after someone touched it: until then the
 * chime is silent, and the button's first press also unlocks the sound. */
import { _ } from "/static/panel.js";

var KEY = "hautetension-sound";

export class Chime {
  constructor(button) {
    this.button = button || null;
    this.context = null;
    this.on = readSetting() !== "off";
    if (this.button) {
      var self = this;
      this.button.addEventListener("click", function () { self.toggle(); });
      this.show();
    }
  }

  toggle() {
    this.on = !this.on;
    try { window.localStorage.setItem(KEY, this.on ? "on" : "off"); } catch (e) { /* private mode */ }
    if (this.on) { this.unlock(); }
    this.show();
  }

  // The button says what it does (not a pressed state: its label changes instead).
  show() {
    this.button.setAttribute("data-sound", this.on ? "on" : "off");
    this.button.textContent = this.on ? _("Mute the lamp chime") : _("Turn the lamp chime on");
  }

  unlock() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) { return null; }
    if (!this.context) { this.context = new Context(); }
    if (this.context.state === "suspended") { this.context.resume().catch(function () {}); }
    return this.context;
  }

  ring() {
    if (!this.on) { return false; }
    var context = this.unlock();
    if (!context || context.state !== "running") { return false; }
    var now = context.currentTime;
    [880, 660].forEach(function (frequency, i) {
      var tone = context.createOscillator();
      var gain = context.createGain();
      var at = now + i * 0.22;
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.3, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.2);
      tone.connect(gain).connect(context.destination);
      tone.start(at);
      tone.stop(at + 0.21);
    });
    return true;
  }
}

function readSetting() {
  try { return window.localStorage.getItem(KEY); } catch (e) { return null; }
}
