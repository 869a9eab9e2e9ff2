"""The Flask web panel: live board, simulated board, staff service mode,
tournaments and the digital games."""
