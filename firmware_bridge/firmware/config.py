"""The board's wiring and timings, as the firmware reads them.

Edit this file on the device (``mpremote edit :config.py``) to match a board
built differently; the defaults follow DESIGN §4 on a Raspberry Pi Pico.
"""

BOARD = {
    # Board size: slot i of the layout's reading order is on channels 2i (presence) and 2i+1 (conduction).
    "slot_count": 80,
    # GPIO numbers (GPn on the Pico's pinout).
    "select_pins": (2, 3, 4, 5),  # S0..S3, shared by every multiplexer
    "signal_pins": (6, 7, 8, 9, 10, 11, 12, 13, 14, 15),  # SIG of multiplexer 0..9
    "lamp_pins": (16, 17, 18, 19),  # the layout's lamps in order: N, E, S, W
    "button_pin": 20,  # to ground when pressed, internal pull-up
    "active_low": True,  # signals read 0 when a pawn is present / conducts (pull-ups)
    "lamps_active_high": True,  # a lamp driver lights on a high output
    # Timings (milliseconds).
    "scan_interval_ms": 2,
    "debounce_scans": 3,
    "debounce_ms": 15,
    "heartbeat_ms": 500,  # the host's HELLO may change it
    "host_timeout_ms": 3000,  # lamps off when the host says nothing this long (HELLO may change it)
    "watchdog_ms": 2000,  # hardware watchdog; 0 disables it (never on a board in service)
    # The link: None for the USB serial port, else a UART number and its baud rate.
    "uart": None,
    "baudrate": 115200,
}
