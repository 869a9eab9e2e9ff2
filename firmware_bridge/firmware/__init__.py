"""The MicroPython firmware of the scanning microcontroller (see docs/firmware-bridge.md).

On the device these modules sit flat in the flash root next to copies of
``firmware_bridge/framing.py`` and ``firmware_bridge/messages.py``.
"""
