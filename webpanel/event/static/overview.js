/* The staff overview (webpanel/event) follows the event: on each `change` of /api/event/stream the page
 * is loaded again, unless staff are typing in one of its forms. */
var root = document.getElementById("event-overview") || document.getElementById("door");  // the door page follows too
var editing = false;
root.addEventListener("input", function () { editing = true; });
root.addEventListener("focusout", function () { setTimeout(function () { editing = root.contains(document.activeElement); }, 0); });
/* The panel's own stream opens with the state this page shows. nginx's channel (/live/event) opens
 * with the last message it keeps, if it still keeps one: older or newer than this page, it cannot
 * tell. So behind nginx the page reloads for any message but the one it last reloaded for (kept in
 * the tab's sessionStorage): a change is never missed, and a kept message never reloads twice. */
var own = root.dataset.stream.indexOf("/live/") !== 0;
var first = true;
var SEEN = "hautetension-overview-seen";
function seen() { try { return window.sessionStorage.getItem(SEEN); } catch (e) { return null; } }
function remember(data) { try { window.sessionStorage.setItem(SEEN, data); } catch (e) { /* private mode */ } }
var source = new EventSource(root.dataset.stream);
source.addEventListener("change", function (event) {
  var opening = first;
  first = false;
  if (own ? opening : event.data === seen()) { return; }
  if (!editing && !root.contains(document.activeElement)) {
    remember(event.data);
    window.location.reload();
  }
});
