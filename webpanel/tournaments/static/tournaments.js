// The tournament pages' small helps; each page works without them (forms post back, the server
// asks what is missing).
//
// * The result form asks "who placed the pawn?" only for lamps that lit together: as soon as two
//   players get the same "1st lamp lit" (2nd, …), that question shows; it hides again otherwise.
// * The pairings page gets a print button.
// * The wall display (?kiosk=1) shows the next page of the standings (or the same one, updated) every
//   data-seconds: fetched, then swapped in, so a panel that restarts only delays it (it tries again).

const form = document.getElementById("entry-form");
if (form) {
  const choices = Array.from(form.querySelectorAll("select.lit-choice"));
  const showPlacers = () => {
    const counts = new Map();
    for (const select of choices) {
      if (select.value) { counts.set(select.value, (counts.get(select.value) || 0) + 1); }
    }
    for (const placer of form.querySelectorAll(".placer")) {
      placer.hidden = (counts.get(placer.dataset.lighting) || 0) < 2;
    }
  };
  for (const select of choices) { select.addEventListener("change", showPlacers); }
  showPlacers();
}

const printButton = document.getElementById("print");
if (printButton) {
  printButton.hidden = false;
  printButton.addEventListener("click", () => window.print());
}

const WALL_RETRY_SECONDS = 5;

async function turnTheWall(wall) {
  let next = wall;
  try {
    const response = await fetch(wall.dataset.next, { credentials: "same-origin" });
    if (!response.ok) { throw new Error(String(response.status)); }
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.getElementById("wall");
    if (!fresh) { throw new Error("#wall"); }
    wall.replaceWith(document.importNode(fresh, true));
    next = document.getElementById("wall");
    document.title = page.title;
  } catch {
    setTimeout(() => turnTheWall(wall), WALL_RETRY_SECONDS * 1000);
    return;
  }
  setTimeout(() => turnTheWall(next), Number(next.dataset.seconds) * 1000);
}

const wall = document.getElementById("wall");
if (wall) {
  setTimeout(() => turnTheWall(wall), Number(wall.dataset.seconds) * 1000);
}
