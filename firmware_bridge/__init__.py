"""The serial link to an optional scanning microcontroller: the protocol, the
host driver (pyserial) and the MicroPython firmware."""
