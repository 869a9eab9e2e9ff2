"""Pure rules engines for the Haute-Tension board and the other games.

Nothing in this package touches pins, files outside its own data, the network
or the clock: the board service, the panel, the computer players and the tests
all share these engines.
"""
