/* The join link: take the seat on this device, then open the game. */
import { _, api } from "/static/panel.js";
import { showRefusal } from "./words.js";

document.addEventListener("DOMContentLoaded", async function () {
  var box = document.getElementById("join");
  var msg = document.getElementById("join-message");
  try {
    await api("POST", "/api/games/" + box.dataset.id + "/join", { code: box.dataset.code });
    msg.textContent = _("Seat taken: opening the game…");
    window.location.replace("/games/" + box.dataset.id);
  } catch (err) {
    showRefusal(msg, err);
  }
});
