/* The helpers every page script imports: JSON requests with the CSRF token,
 * element and SVG builders, and the one colour palette of the digital games.
 * A native ES module (no bundler, no build step): pages import what they use,
 * e.g. import { api, el } from "/static/panel.js"; nothing is put on window.
 * base.html loads it on every page, for the navigation's log-out button. */

export const SVG_NS = "http://www.w3.org/2000/svg";

export function csrfToken() {
  var meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

// Send JSON, return the parsed answer; throw an Error carrying the server's message.
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
    var error = new Error((data && data.error) || ("HTTP " + response.status));
    error.status = response.status;
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

export function paint(colour) { return PALETTE[colour] || colour; }

// Text written on a piece of this colour: dark on the light ones.
export function inkOn(colour) { return LIGHT.has(colour) ? "#111" : "#fff"; }

// The navigation's log-out button (base.html, for staff).
var logout = byId("logout");
if (logout) {
  logout.addEventListener("click", async function () {
    try { await api("POST", "/api/staff/logout"); } finally { window.location.href = "/"; }
  });
}
