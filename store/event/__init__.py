"""The event server's store: the boards of an event, what they reported, their tables and results.

* :mod:`store.event.db` — the database (the panel's tables plus the ``event_`` ones);
* :mod:`store.event.sql` — every statement, in one place (the SQLite dialect);
* :mod:`store.event.intake` — the boards' messages in, exactly once, and the acknowledgements;
* :mod:`store.event.boards` — the boards' registry and status;
* :mod:`store.event.assignments` — which board plays which table;
* :mod:`store.event.results` — results confirmed by the players and entered into the tournament;
* :mod:`store.event.publish` — what the server publishes back to the boards (retained);
* :mod:`store.event.settings` — ``[central]``'s event settings.

The tournaments themselves are :class:`store.tournaments.Tournaments` on the same database.
"""
