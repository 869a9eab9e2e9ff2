/* The helpers every page script imports: the page's language (_, ngettext,
 * pgettext), JSON requests with the CSRF token, element and SVG builders, and
 * the one colour palette of the digital games.
 * A native ES module (no bundler, no build step): pages import what they use,
 * e.g. import { _, api, el } from "/static/panel.js"; nothing is put on window.
 * base.html loads it on every page, for the navigation's log-out button. */

export const SVG_NS = "http://www.w3.org/2000/svg";

// -- languages --------------------------------------------------------------------------------
/* The page's language is <html lang> (the server chose it); its catalogue is
 * the JSON block #i18n-catalogue of base.html (webpanel/i18n.py): the
 * translated messages of the scripts, by English message id, and the texts of
 * the API's error codes. It is in the page, so _() works as soon as a page
 * script runs. Strings are written in English, marked as Babel's extractor
 * finds them:
 *   _("Game over.")   _("%(name)s to play", { name: seat.name })
 *   ngettext("%(num)d pawn left", "%(num)d pawns left", n)   pgettext("lamp", "N")
 * then `make catalogs` adds them to the catalogues (docs/webpanel.md, "Languages"). */

export const LANGUAGE = document.documentElement.lang || "en";

var CATALOGUE = readCatalogue();
var PLURAL = new Intl.PluralRules(LANGUAGE);

function readCatalogue() {
  var block = document.getElementById("i18n-catalogue");
  try {
    var data = block ? JSON.parse(block.textContent) : null;
    if (data && data.messages) { return data; }
  } catch (e) { /* a broken block: the English text below */ }
  return { messages: {}, errors: {} };
}

// %(name)s and %(num)d placeholders, as in the Python and template strings. In French, « de » before a
// value that starts with a vowel or a mute h is elided: « les pions d’Ana », « de Ben » (webpanel/french.py).
var ELIDES = /^[«“"' ]*(?:[aeiouyàâäéèêëîïôöùûüœæ]|h[aeiouyàâäéèêëîïôöùûüœæ])/i;

export function elides(word) { return ELIDES.test(String(word)); }

function fill(text, params) {
  var french = LANGUAGE.slice(0, 2) === "fr";
  return text.replace(/(\b[Dd]e )?%\((\w+)\)[sd]/g, function (whole, de, name) {
    if (!params || !Object.prototype.hasOwnProperty.call(params, name)) { return whole; }
    var value = String(params[name]);
    if (!de) { return value; }
    return french && elides(value) ? (de[0] === "D" ? "D’" : "d’") + value : de + value;
  });
}

function lookup(key) {
  var found = CATALOGUE.messages[key];
  return found === undefined ? null : found;
}

// The message in the page's language (the English text when it has no translation yet).
export function _(message, params) {
  var found = lookup(message);
  return fill(typeof found === "string" ? found : message, params);
}

export { _ as gettext };

// The message for *n* things, in the page's plural form; %(num)d is n.
export function ngettext(singular, plural, n, params) {
  var values = Object.assign({ num: n }, params || {});
  var forms = lookup(singular);
  // French and English have two forms, gettext's [one, other]; CLDR says which one n takes.
  var one = PLURAL.select(n) === "one";
  if (Array.isArray(forms)) { return fill(forms[one ? 0 : 1] || forms[0], values); }
  return fill(one ? singular : plural, values);
}

// A message whose English text means different things: the context tells them apart.
export function pgettext(context, message, params) {
  var found = lookup(context + "\u0004" + message);
  return fill(typeof found === "string" ? found : message, params);
}

/* What a page shows for an API error: the text of its code in the page's
 * language (with the error's params put in: %(retry_after)s), else the API's English sentence. */
export function errorText(err) {
  var text = err && err.code ? CATALOGUE.errors[err.code] : undefined;
  if (text) { return fill(text, err.params); }
  return (err && err.message) || String(err);
}

// Show an error in *node*: translated by its code, or the English sentence marked as English.
export function showError(node, err) {
  var translated = !!(err && err.code && CATALOGUE.errors[err.code]);
  node.textContent = errorText(err);
  if (translated) { node.removeAttribute("lang"); } else { node.setAttribute("lang", "en"); }
}

// Numbers, dates and times as the page's language writes them.
export function formatNumber(n, options) { return new Intl.NumberFormat(LANGUAGE, options).format(n); }

export function formatTime(seconds, options) {
  return new Intl.DateTimeFormat(LANGUAGE, options || { dateStyle: "short", timeStyle: "medium" })
    .format(new Date(seconds * 1000));
}

// -- requests ---------------------------------------------------------------------------------

export function csrfToken() {
  var meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

// Send JSON, return the parsed answer; throw an Error carrying the server's message and code.
export async function api(method, url, body) {
  var options = { method: method, headers: { "Accept": "application/json" }, credentials: "same-origin" };
  if (method !== "GET") {
    options.headers["X-CSRF-Token"] = csrfToken();
  }
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  var response = await fetch(url, options);
  var data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    // The API's sentence is English, for programs; a page shows errorText(err) (its code translated).
    var error = new Error((data && data.error) || ("HTTP " + response.status));
    error.status = response.status;
    error.code = (data && data.code) || null;
    error.params = (data && data.params) || {};
    throw error;
  }
  return data;
}

export function byId(id) { return document.getElementById(id); }

// The "Board service not running" banner of base.html.
export function showService(running) {
  var banner = byId("service-banner");
  if (banner) { banner.hidden = !!running; }
}

function build(node, attrs, text) {
  Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  if (text !== undefined) { node.textContent = text; }
  return node;
}

// An HTML element with its attributes and, if given, its text (never parsed as HTML).
export function el(tag, attrs, text) { return build(document.createElement(tag), attrs, text); }

// The same for an SVG element (append it with parent.appendChild, which returns it).
export function svg(tag, attrs, text) { return build(document.createElementNS(SVG_NS, tag), attrs, text); }

/* The colours of the digital games' pieces, by the name the engines give them
 * (Hypnosia's pawns, |Hop>'s electrons and electrodes). A name not listed (a
 * CSS colour, #rrggbb) is drawn as it is. */
export const PALETTE = Object.freeze({
  red: "#e5484d",
  yellow: "#f5d90a",
  green: "#46a758",
  blue: "#3e8ef7",
  purple: "#a56de2",
  white: "#f2f2f2"
});

var LIGHT = new Set(["yellow", "white"]);

/* Colours that must read on the board: a player's colour is anything staff
 * pick (a CSS name or #rrggbb), so pages check its contrast against what it is
 * drawn on (WCAG's ratio; 3:1 for a shape) and outline it when it is too low. */
export const OUTLINE = "#f2f2f2";
var probe = null;

// [r, g, b] (0–255) of any CSS colour.
export function rgbOf(colour) {
  if (!probe) { probe = document.createElement("canvas").getContext("2d"); }
  probe.fillStyle = "#000";
  probe.fillStyle = String(colour);
  var value = probe.fillStyle;  // "#rrggbb", or "rgba(r, g, b, a)" for a translucent colour
  if (value.charAt(0) === "#") {
    return [1, 3, 5].map(function (i) { return parseInt(value.slice(i, i + 2), 16); });
  }
  return value.replace(/[^\d,.]/g, "").split(",").slice(0, 3).map(Number);
}

function luminance(rgb) {
  var c = rgb.map(function (v) {
    v = v / 255;
    return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  });
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

// The contrast ratio of two CSS colours (1 to 21).
export function contrast(a, b) {
  var la = luminance(rgbOf(a)), lb = luminance(rgbOf(b));
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

// The outline a piece of *colour* needs on *background* to read (3:1), or null.
export function outlineOn(colour, background) {
  return contrast(colour, background) < 3 ? OUTLINE : null;
}

export function paint(colour) { return PALETTE[colour] || colour; }

// Text written on a piece of this colour: dark on the light ones.
export function inkOn(colour) { return LIGHT.has(colour) ? "#111" : "#fff"; }

// The navigation folds behind the Menu button on narrow screens (panel.css); without a script it stays open.
var header = byId("top");
var menu = byId("menu-button");
if (header && menu) {
  header.classList.add("js-menu");
  menu.addEventListener("click", function () {
    var open = header.classList.toggle("open");
    menu.setAttribute("aria-expanded", open ? "true" : "false");
  });
}

// The navigation's log-out button (base.html, for staff).
var logout = byId("logout");
if (logout) {
  logout.addEventListener("click", async function () {
    try { await api("POST", "/api/staff/logout"); } finally { window.location.href = "/"; }
  });
}
