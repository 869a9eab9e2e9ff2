/* A rules page's drawing of the board, from the data the game is played with (the JSON block
 * #rules-data, webpanel/lobby/rules.py): the Haute-Tension layout on this table, the Hypnosia
 * board, |Hop>'s two-player board, a quantum tic-tac-toe cycle. A drawing, not a game: nothing in
 * it takes a tap or the keyboard's focus. */
import { draw as drawLayout } from "/static/layout-draw.js";
import { drawCollapse } from "./course.js";
import { drawEmptyBoard as drawHop } from "./hop.js";
import { drawEmptyBoard as drawHypnosia } from "./hypnosia.js";

function still(root) {
  root.querySelectorAll("[tabindex], [role=button]").forEach(function (node) {
    node.removeAttribute("tabindex");
    node.removeAttribute("role");
    node.removeAttribute("aria-label");
  });
}

document.addEventListener("DOMContentLoaded", function () {
  var page = document.getElementById("rules");
  var root = document.getElementById("rules-board") || document.getElementById("hyp-board") ||
    document.getElementById("hop-board");
  var block = document.getElementById("rules-data");
  if (!page || !root || !block) { return; }
  var data = JSON.parse(block.textContent);
  var game = page.dataset.game;
  if (game === "hautetension") { drawLayout(root, data.layout); }
  if (game === "hypnosia") { drawHypnosia(data.board); }
  if (game === "hop") { drawHop(data.boards["2"]); }
  if (game === "qttt") { drawCollapse(root, { move: 3, square: -1, marks: [[1, 0, 4], [2, 4, 8], [3, 8, 0]], cycle: [1, 2, 3] }); }
  still(root);
  page.dataset.drawn = "true";
});
