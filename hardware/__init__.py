"""Everything that touches pins: the pin map, the multiplexer scanner, debounce,
lamps, the test button, health checks and the board service loop."""
