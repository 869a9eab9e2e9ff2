"""Boot entry of the scanning microcontroller (MicroPython runs main.py at power-up).

Hold the test button while plugging the board in to skip the firmware and
keep MicroPython's REPL, for mpremote (the running firmware ignores Ctrl-C).
"""

import app
import config
import machine
import micropython

button = machine.Pin(config.BOARD["button_pin"], machine.Pin.IN, machine.Pin.PULL_UP)
if button.value() == 0:
    print("test button held: firmware not started, REPL available")
else:
    # Frames are binary: a 0x03 byte on the USB serial port must not stop the program.
    micropython.kbd_intr(-1)
    app.run(machine)
