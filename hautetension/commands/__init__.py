"""Subcommands of ``hautetension``.

Each module here defines ``register(subparsers)``, which adds its subcommands
and sets ``func`` on each parser to a callable taking the parsed arguments and
returning the exit status. :mod:`hautetension.cli` discovers the modules, so
adding a command is adding a module.
"""
