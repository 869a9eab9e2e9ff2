"""The firmware's own tests, under CPython.

The files in this folder are written to run under MicroPython too
(``tests/firmware_bridge/test_firmware.py`` runs them there, laid flat like
the device's flash): they import their helpers by bare name, so CPython gets
this folder on its import path.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
