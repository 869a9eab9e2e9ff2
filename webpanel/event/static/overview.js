/* The staff overview (webpanel/event) follows the event: on each `change` of /api/event/stream the page
 * is loaded again, unless staff are typing in one of its forms. */
var root = document.getElementById("event-overview") || document.getElementById("door");  // the door page follows too
var editing = false;
root.addEventListener("input", function () { editing = true; });
root.addEventListener("focusout", function () { setTimeout(function () { editing = root.contains(document.activeElement); }, 0); });
var first = true;
var source = new EventSource(root.dataset.stream);
source.addEventListener("change", function () {
  if (first) { first = false; return; }  // the stream's first event is the state this page shows
  if (!editing && !root.contains(document.activeElement)) { window.location.reload(); }
});
