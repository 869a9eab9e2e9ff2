/* What the page tests (test_pages_browser.py) measure in the page, one function per check, each
 * after its "// @check NAME" line: the page's layout at a size, the board's fit, the text shown. */
// @check LAYOUT_PROBLEMS
(touch) => {
  const width = window.innerWidth, height = window.innerHeight;
  const problems = [];
  const visible = (e) => {
    const r = e.getBoundingClientRect();
    const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
  };
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "");
  if (document.documentElement.scrollWidth > width) {
    problems.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + width);
  }
  for (const e of document.body.querySelectorAll("*")) {
    if (!visible(e) || e.closest("svg") && e.tagName.toLowerCase() !== "svg") { continue; }
    const r = e.getBoundingClientRect();
    if (r.right > width + 1 || r.left < -1) { problems.push(name(e) + " overflows: " + Math.round(r.left) + "–" + Math.round(r.right)); }
  }
  // A word broken across lines: its characters' boxes sit on more than one line.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !visible(parent) || parent.closest("svg, script, style")) { continue; }
    const text = node.textContent;
    const words = /[^\s\u00a0]{2,}/g;
    for (let m = words.exec(text); m; m = words.exec(text)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) { problems.push("the word " + JSON.stringify(m[0]) + " is broken in " + name(parent)); }
    }
  }
  if (touch) {
    const targets = document.querySelectorAll("a, button, input, select, textarea, summary, [role=button], [tabindex='0']");
    for (const e of targets) {
      if (!visible(e) || e.type === "hidden") { continue; }
      if (e.closest("svg")) { continue; }  // the board's slots: checked apart
      const box = (e.closest("label") || e).getBoundingClientRect();  // a radio's target is its label
      if (box.width < 43.5 || box.height < 43.5) {
        problems.push(name(e) + " is a small target: " + Math.round(box.width) + "×" + Math.round(box.height));
      }
    }
  }
  return problems;
}

// @check BOARD_FIT
() => {
  const board = document.querySelector("svg.board");
  const r = board.getBoundingClientRect();
  const cell = document.querySelector("svg.board .slot .hit").getBoundingClientRect();
  return { width: r.width, height: r.height, top: r.top, left: r.left, right: r.right, bottom: r.bottom,
           cell: Math.min(cell.width, cell.height), innerWidth: window.innerWidth, innerHeight: window.innerHeight };
}

// @check SHOWN_TEXT
() => {
  // What a person reads: the page's text without what says it is English, and the readable attributes.
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll("[lang^=en], script, style, [hidden]").forEach(e => e.remove());
  const labels = Array.from(document.querySelectorAll("[aria-label], [title], [placeholder]"))
    .filter(e => !e.closest("[lang^=en]"))
    .map(e => [e.getAttribute("aria-label"), e.getAttribute("title"), e.getAttribute("placeholder")].join(" "));
  return copy.textContent + " " + labels.join(" ") + " " + document.title;
}
