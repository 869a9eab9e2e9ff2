"""Real servers for the tests: Mosquitto and PostgreSQL as local processes.

The suite never mocks a broker or a database server. Each server here is
Debian's own binary, started on a free loopback port in a temporary folder
and stopped at the end; ``make test`` installs the packages when they are
missing (``tools/ensure_packages.py``). Where a binary is still missing, the
fixtures skip with the reason and the install command, loudly.

A server can be killed (SIGKILL, as a power cut or ``kill -9`` would) and
started again on the same port with the same data, which is what the
catch-up and exactly-once tests need.
"""
