"""The ``hautetension`` command and the configuration file both processes share."""
