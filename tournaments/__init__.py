"""The tournament domain, pure: no storage, no pages, no pins.

The rules text's "Règles spécifiques aux tournois" and the decisions taken
where it is silent (docs/tournaments.md), one concept a module:

- :mod:`tournaments.points`: a game's tournament points from its lamp order;
- :mod:`tournaments.pairing`: table sizes and seating (few tied players at one table);
- :mod:`tournaments.handicap`: who carries attack pawns at a table, and why;
- :mod:`tournaments.names`: a registered player's name;
- :mod:`tournaments.model`: phases, statuses, the events a store keeps, results, tables, rounds, standings;
- :mod:`tournaments.tournament`: the event-sourced tournament (registration, rounds, eliminations, the final);
- :mod:`tournaments.ranking`: the general ranking over every counting tournament;
- :mod:`tournaments.exc`: their errors.

It imports the standard library and :mod:`games` only; ``store`` keeps its
events and ``webpanel`` shows them.
"""
