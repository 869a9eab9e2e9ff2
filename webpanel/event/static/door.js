/* The door's tablet (webpanel/event/door.py): where the browser can read QR codes with the camera
 * (BarcodeDetector: Chrome on Android, on ChromeOS…), "Scan with the camera" reads a badge and checks its
 * player in, as a barcode scanner typing the link would. Elsewhere the button stays hidden: typing the
 * code, or a scanner, does it. */
import { byId } from "/static/panel.js";

var button = byId("door-camera");
var input = byId("door-code");
var video = byId("door-video");
var SCAN_EVERY_MS = 300;

async function scan() {
  var stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
  } catch (_e) {
    byId("door-camera-refused").hidden = false;
    return;
  }
  var detector = new window.BarcodeDetector({ formats: ["qr_code"] });
  video.srcObject = stream;
  video.hidden = false;
  video.focus();  // the page follows the event, but not under a scan in progress (overview.js)
  await video.play();
  var timer = setInterval(async function () {
    var codes = [];
    try { codes = await detector.detect(video); } catch (_e) { return; }
    if (!codes.length) { return; }
    clearInterval(timer);
    stream.getTracks().forEach(function (track) { track.stop(); });
    input.value = codes[0].rawValue;
    input.form.submit();
  }, SCAN_EVERY_MS);
}

if ("BarcodeDetector" in window && navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
  button.hidden = false;
  button.addEventListener("click", scan);
}
