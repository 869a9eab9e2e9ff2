// The tournament pages' small helps; each page works without them (forms post back, the server
// asks what is missing).
//
// * The result form asks "who placed the pawn?" only for lamps that lit together: as soon as two
//   players get the same "1st lamp lit" (2nd, …), that question shows; it hides again otherwise.
// * The pairings page gets a print button.

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
