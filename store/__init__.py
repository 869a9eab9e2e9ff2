"""The SQLite database the board service and the panel share: schema,
migrations, journal, commands, tournaments, digital games and the digital
games that play tournament tables. Every table is created by a migration in
:mod:`store.db`."""
