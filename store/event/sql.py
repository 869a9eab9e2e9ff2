"""Every SQL statement of the event server's store, in one place.

The event store runs on SQLite (the embedded default); a PostgreSQL dialect
is a second module with the same names (``?`` placeholders become ``%s``,
``AUTOINCREMENT`` an identity column, ``INSERT OR IGNORE`` an ``ON CONFLICT DO
NOTHING``, ``REAL`` a ``double precision``): the modules of :mod:`store.event`
only ever use the names below. Tables are prefixed ``event_`` and versioned in
``event_schema`` on their own, apart from the board tables' ``user_version``.
"""

from __future__ import annotations

SCHEMA_TABLE = """
CREATE TABLE IF NOT EXISTS event_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)
"""
SCHEMA_VERSION = "SELECT version FROM event_schema WHERE id = 1"
SET_SCHEMA_VERSION = (
    "INSERT INTO event_schema (id, version) VALUES (1, ?)"
    " ON CONFLICT (id) DO UPDATE SET version = excluded.version"
)

MIGRATIONS: list[str] = [
    # 1: boards, what they sent, their games and results, the tables assigned to them, and what the
    # server publishes back (acks and assignments).
    """
    CREATE TABLE event_boards (
        board TEXT PRIMARY KEY,
        label TEXT NOT NULL DEFAULT '',
        accepted_at REAL,
        accepted_by TEXT,
        first_seen REAL NOT NULL,
        last_seen REAL NOT NULL,
        online INTEGER NOT NULL DEFAULT 0,
        status TEXT,
        status_at REAL,
        live TEXT,
        live_at REAL,
        history TEXT
    );
    CREATE TABLE event_histories (
        board TEXT NOT NULL,
        history TEXT NOT NULL,
        first_seq INTEGER NOT NULL,
        acked_seq INTEGER NOT NULL,
        started_at REAL NOT NULL,
        PRIMARY KEY (board, history)
    );
    CREATE TABLE event_rows (
        board TEXT NOT NULL,
        history TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        game INTEGER,
        at REAL NOT NULL,
        body TEXT NOT NULL,
        received_at REAL NOT NULL,
        PRIMARY KEY (board, history, seq)
    );
    CREATE TABLE event_conflicts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        board TEXT NOT NULL,
        history TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        received_at REAL NOT NULL
    );
    CREATE TABLE event_games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        board TEXT NOT NULL,
        history TEXT NOT NULL,
        board_game INTEGER NOT NULL,
        assignment TEXT,
        players TEXT NOT NULL,
        status TEXT NOT NULL,
        start_seq INTEGER,
        end_seq INTEGER,
        started_at REAL,
        ended_at REAL,
        result TEXT,
        UNIQUE (board, history, board_game)
    );
    CREATE TABLE event_assignments (
        id TEXT PRIMARY KEY,
        tournament_id INTEGER NOT NULL,
        round INTEGER NOT NULL,
        table_number INTEGER NOT NULL,
        board TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        done_at REAL,
        UNIQUE (tournament_id, round, table_number)
    );
    CREATE TABLE event_results (
        game INTEGER PRIMARY KEY REFERENCES event_games (id),
        assignment TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('waiting', 'confirmed', 'entered', 'clash', 'refused', 'dismissed')),
        confirmed TEXT NOT NULL DEFAULT '[]',
        confirmed_by TEXT,
        received_at REAL NOT NULL,
        deadline REAL NOT NULL,
        entered_at REAL,
        entry_id INTEGER,
        problem TEXT
    );
    CREATE TABLE event_publish (
        board TEXT NOT NULL,
        leaf TEXT NOT NULL,
        payload BLOB NOT NULL,
        version INTEGER NOT NULL,
        published INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (board, leaf)
    );
    """,
]

# -- boards -------------------------------------------------------------------------------------

BOARD_SEEN = (
    "INSERT INTO event_boards (board, first_seen, last_seen) VALUES (?, ?, ?)"
    " ON CONFLICT (board) DO UPDATE SET last_seen = MAX(last_seen, excluded.last_seen)"
)
BOARD_STATUS = "UPDATE event_boards SET status = ?, status_at = ?, online = ? WHERE board = ?"
BOARD_LIVE = "UPDATE event_boards SET live = ?, live_at = ? WHERE board = ?"
BOARD_HISTORY = "UPDATE event_boards SET history = ? WHERE board = ?"
BOARD_ACCEPT = (
    "UPDATE event_boards SET label = ?, accepted_at = COALESCE(accepted_at, ?),"
    " accepted_by = COALESCE(accepted_by, ?) WHERE board = ?"
)
BOARD_COLUMNS = (
    "board, label, accepted_at, accepted_by, first_seen, last_seen, online, status, status_at, live, live_at,"
    " history"
)
BOARDS = f"SELECT {BOARD_COLUMNS} FROM event_boards ORDER BY board"
BOARD = f"SELECT {BOARD_COLUMNS} FROM event_boards WHERE board = ?"
BOARD_ACKED = (
    "SELECT h.acked_seq, h.first_seq FROM event_boards b JOIN event_histories h"
    " ON h.board = b.board AND h.history = b.history WHERE b.board = ?"
)

# -- rows and histories -----------------------------------------------------------------------------

HISTORY_ADD = (
    "INSERT INTO event_histories (board, history, first_seq, acked_seq, started_at) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (board, history) DO NOTHING"
)
HISTORY = "SELECT first_seq, acked_seq FROM event_histories WHERE board = ? AND history = ?"
HISTORY_ACKED = "UPDATE event_histories SET acked_seq = ? WHERE board = ? AND history = ?"
ROW_ADD = (
    "INSERT INTO event_rows (board, history, seq, kind, game, at, body, received_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (board, history, seq) DO NOTHING"
)
ROW_BODY = "SELECT body FROM event_rows WHERE board = ? AND history = ? AND seq = ?"
ROW_CONFLICT = "INSERT INTO event_conflicts (board, history, seq, body, received_at) VALUES (?, ?, ?, ?, ?)"
ROWS_ABOVE = "SELECT seq FROM event_rows WHERE board = ? AND history = ? AND seq > ? ORDER BY seq LIMIT ?"
ROWS_OF_BOARD = (
    "SELECT seq, kind, game, at, body FROM event_rows WHERE board = ? AND history = ? ORDER BY seq"
)
ROW_COUNTS = "SELECT board, COUNT(*), COUNT(DISTINCT history) FROM event_rows GROUP BY board ORDER BY board"
CONFLICTS = "SELECT board, history, seq, body, received_at FROM event_conflicts ORDER BY id"

# -- games and results ------------------------------------------------------------------------------

GAME_START = (
    "INSERT INTO event_games (board, history, board_game, assignment, players, status, start_seq, started_at)"
    " VALUES (?, ?, ?, ?, ?, 'running', ?, ?)"
    " ON CONFLICT (board, history, board_game) DO UPDATE SET assignment = excluded.assignment,"
    " players = excluded.players, status = 'running', start_seq = excluded.start_seq,"
    " started_at = excluded.started_at"
)
GAME_END = (
    "INSERT INTO event_games"
    " (board, history, board_game, assignment, players, status, end_seq, ended_at, result)"
    " VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?)"
    " ON CONFLICT (board, history, board_game) DO UPDATE SET status = excluded.status,"
    " end_seq = excluded.end_seq, ended_at = excluded.ended_at, result = excluded.result"
)
GAME_COLUMNS = (
    "id, board, history, board_game, assignment, players, status, start_seq, end_seq, started_at, ended_at,"
    " result"
)
GAME_BY_BOARD_GAME = (
    f"SELECT {GAME_COLUMNS} FROM event_games WHERE board = ? AND history = ? AND board_game = ?"
)
GAME = f"SELECT {GAME_COLUMNS} FROM event_games WHERE id = ?"
GAMES_OF_ASSIGNMENT = f"SELECT {GAME_COLUMNS} FROM event_games WHERE assignment = ? ORDER BY id"
GAMES = f"SELECT {GAME_COLUMNS} FROM event_games ORDER BY id"

RESULT_ADD = (
    "INSERT INTO event_results (game, assignment, status, received_at, deadline)"
    " VALUES (?, ?, 'waiting', ?, ?)"
    " ON CONFLICT (game) DO NOTHING"
)
RESULT_COLUMNS = (
    "r.game, r.assignment, r.status, r.confirmed, r.confirmed_by, r.received_at, r.deadline, r.entered_at,"
    " r.entry_id, r.problem, g.board, g.history, g.board_game, g.players, g.result"
)
RESULT = f"SELECT {RESULT_COLUMNS} FROM event_results r JOIN event_games g ON g.id = r.game WHERE r.game = ?"
RESULTS = f"SELECT {RESULT_COLUMNS} FROM event_results r JOIN event_games g ON g.id = r.game ORDER BY r.game"
RESULTS_WITH_STATUS = (
    f"SELECT {RESULT_COLUMNS} FROM event_results r JOIN event_games g ON g.id = r.game"
    " WHERE r.status = ? ORDER BY r.game"
)
RESULT_CONFIRM = "UPDATE event_results SET confirmed = ?, confirmed_by = ?, status = ? WHERE game = ?"
RESULT_SETTLE = (
    "UPDATE event_results SET status = ?, entered_at = ?, entry_id = ?, problem = ? WHERE game = ?"
)

# -- assignments ---------------------------------------------------------------------------------

ASSIGNMENT_COLUMNS = "id, tournament_id, round, table_number, board, created_at, updated_at, done_at"
ASSIGNMENT_ADD = (
    f"INSERT INTO event_assignments ({ASSIGNMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)"
    " ON CONFLICT (tournament_id, round, table_number) DO NOTHING"
)
ASSIGNMENT = f"SELECT {ASSIGNMENT_COLUMNS} FROM event_assignments WHERE id = ?"
ASSIGNMENTS_OF_ROUND = (
    f"SELECT {ASSIGNMENT_COLUMNS} FROM event_assignments WHERE tournament_id = ? AND round = ?"
    " ORDER BY table_number"
)
ASSIGNMENTS_OPEN = (
    f"SELECT {ASSIGNMENT_COLUMNS} FROM event_assignments WHERE done_at IS NULL AND board IS NOT NULL"
    " ORDER BY tournament_id, round, table_number"
)
ASSIGNMENT_BOARD = "UPDATE event_assignments SET board = ?, updated_at = ? WHERE id = ?"
ASSIGNMENT_DONE = "UPDATE event_assignments SET done_at = ? WHERE id = ? AND done_at IS NULL"

# -- what the server publishes --------------------------------------------------------------------

PUBLISH_WANT = (
    "INSERT INTO event_publish (board, leaf, payload, version) VALUES (?, ?, ?, 1)"
    " ON CONFLICT (board, leaf) DO UPDATE SET payload = excluded.payload, version = version + 1"
    " WHERE payload != excluded.payload"
)
PUBLISH_PENDING = (
    "SELECT board, leaf, payload, version FROM event_publish WHERE published < version ORDER BY board, leaf"
)
PUBLISH_DONE = "UPDATE event_publish SET published = ? WHERE board = ? AND leaf = ? AND published < ?"
PUBLISH_AGAIN = "UPDATE event_publish SET published = 0"
PUBLISHED = "SELECT payload FROM event_publish WHERE board = ? AND leaf = ?"
