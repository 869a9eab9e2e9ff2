/* Shared helpers for every page: JSON requests with the CSRF token, logout. */
"use strict";
(function () {
  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  // Send JSON, return the parsed answer; throw an Error carrying the server's message.
  async function api(method, url, body) {
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

  function showService(running) {
    var banner = document.getElementById("service-banner");
    if (banner) { banner.hidden = !!running; }
  }

  function text(el, value) { if (el) { el.textContent = value; } }

  // An HTML element with its attributes and, if given, its text (never parsed as HTML).
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var logout = document.getElementById("logout");
    if (logout) {
      logout.addEventListener("click", async function () {
        try { await api("POST", "/api/staff/logout"); } finally { window.location.href = "/"; }
      });
    }
  });

  window.Panel = { api: api, csrfToken: csrfToken, showService: showService, text: text, el: el };
})();
