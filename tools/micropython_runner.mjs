// Run one Python script under MicroPython's WebAssembly port, with a folder as the device's flash.
//
//   node tools/micropython_runner.mjs MICROPYTHON_MJS FLASH_DIR SCRIPT_PY
//
// MICROPYTHON_MJS is micropython.mjs of the npm package
// @micropython/micropython-webassembly-pyscript (installed into .venv/node/ by
// tools/ensure_micropython.py; firmware_bridge/toolchain.py calls this runner).
// Every file of FLASH_DIR is copied, flat, into /flash of MicroPython's
// virtual filesystem (Emscripten's in-memory FS, reached as `mp.FS`), which
// becomes the working directory: `import app` then finds app.py or app.mpy
// there, as on the device. Whatever the script prints goes to our stdout. A
// Python exception prints its MicroPython traceback on stderr and exits 1.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [moduleFile, flashDir, scriptFile] = process.argv.slice(2);
if (!scriptFile) {
  console.error("usage: node micropython_runner.mjs MICROPYTHON_MJS FLASH_DIR SCRIPT_PY");
  process.exit(2);
}

// The package's one export we need; it finds micropython.wasm beside the .mjs.
const { loadMicroPython } = await import(pathToFileURL(moduleFile).href);

// linebuffer: the callbacks get whole lines (without the newline), decoded as UTF-8. The heap is
// left at the package's default: this build grows it on demand and collects garbage only between
// top-level calls (gc.collect() inside a script frees nothing), so it cannot stand in for a Pico's
// 190 KiB: what fits in the device's RAM is not something these runs can tell.
const mp = await loadMicroPython({
  linebuffer: true,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

mp.FS.mkdir("/flash");
for (const name of fs.readdirSync(flashDir)) {
  const source = path.join(flashDir, name);
  if (fs.statSync(source).isFile()) {
    mp.FS.writeFile("/flash/" + name, fs.readFileSync(source)); // bytes as they are (.mpy included)
  }
}

try {
  // sys.path starts with "" (the working directory), so chdir is all imports need.
  mp.runPython("import os\nos.chdir('/flash')");
  mp.runPython(fs.readFileSync(scriptFile, "utf8"));
} catch (error) {
  if (error.name !== "PythonError") throw error; // a fault of the runner itself: Node prints it
  process.stderr.write(error.message); // MicroPython's own traceback, file names and lines included
  process.exitCode = 1;
}
