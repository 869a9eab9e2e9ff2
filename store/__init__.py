"""The SQLite database the board service and the panel share: schema,
migrations, journal, commands and tournaments."""
