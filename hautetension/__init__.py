"""The ``hautetension`` command: one module per subcommand, wiring the packages together."""
