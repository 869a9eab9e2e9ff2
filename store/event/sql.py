"""Every SQL statement of the event server's store, in one place.

Written once for both engines (SQLite and PostgreSQL: :mod:`store.dialect`
says how): ``?`` placeholders, portable types and upserts. Tables are
prefixed ``event_`` and versioned in ``event_schema`` on their own, apart
from the panel tables' version.
"""

from __future__ import annotations

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
    # 2: the player registry (one identity per person across tournaments and events, duplicates merged
    # by staff), its audit trail, and which registered player each tournament's player is (see
    # store/players.py and store/ranking.py).
    """
    CREATE TABLE event_players (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        club TEXT NOT NULL DEFAULT '',
        city TEXT NOT NULL DEFAULT '',
        identity TEXT NOT NULL,
        created_at REAL NOT NULL,
        merged_into INTEGER REFERENCES event_players (id),
        merged_at REAL
    );
    CREATE UNIQUE INDEX event_players_by_identity ON event_players (identity) WHERE merged_into IS NULL;
    CREATE TABLE event_player_audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        actor TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('create', 'edit', 'merge', 'link')),
        player INTEGER NOT NULL REFERENCES event_players (id),
        other INTEGER,
        before TEXT,
        after TEXT NOT NULL
    );
    CREATE INDEX event_player_audit_by_player ON event_player_audit (player, id);
    CREATE TABLE event_tournament_players (
        tournament_id INTEGER NOT NULL,
        player INTEGER NOT NULL,
        name TEXT NOT NULL,
        player_id INTEGER NOT NULL REFERENCES event_players (id),
        linked_at REAL NOT NULL,
        PRIMARY KEY (tournament_id, player)
    );
    CREATE INDEX event_tournament_players_by_player ON event_tournament_players (player_id);
    """,
    # 3: a game's "I agree" rows looked up whenever its end or start arrives (they may come first).
    """
    CREATE INDEX event_rows_by_game ON event_rows (board, history, game);
    """,
    # 4: the messages the server refused (the bounded reader, or a row that failed to store), kept for
    # staff with their first bytes, the newest few per board; and how many each board had refused.
    """
    CREATE TABLE event_quarantine (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        board TEXT NOT NULL,
        topic TEXT NOT NULL,
        reason TEXT NOT NULL,
        head TEXT NOT NULL,
        size INTEGER NOT NULL,
        history TEXT,
        seq INTEGER,
        at REAL NOT NULL
    );
    CREATE INDEX event_quarantine_by_board ON event_quarantine (board, id);
    CREATE TABLE event_quarantine_counts (
        board TEXT PRIMARY KEY,
        refused INTEGER NOT NULL,
        last_at REAL NOT NULL
    );
    """,
    # 5: each player's own link (its token, the short code printed on their badge), who is in the hall
    # (checked in at the door or from the link), and the results players flag as wrong for staff.
    """
    CREATE TABLE event_player_links (
        token TEXT PRIMARY KEY,
        tournament_id INTEGER NOT NULL,
        player INTEGER NOT NULL,
        code TEXT NOT NULL,
        issued_at REAL NOT NULL,
        issued_by TEXT NOT NULL,
        ended_at REAL
    );
    CREATE UNIQUE INDEX event_player_links_live ON event_player_links (tournament_id, player)
        WHERE ended_at IS NULL;
    CREATE UNIQUE INDEX event_player_links_code ON event_player_links (tournament_id, code)
        WHERE ended_at IS NULL;
    CREATE TABLE event_attendance (
        tournament_id INTEGER NOT NULL,
        player INTEGER NOT NULL,
        here INTEGER NOT NULL,
        at REAL NOT NULL,
        marked_by TEXT NOT NULL,
        PRIMARY KEY (tournament_id, player)
    );
    CREATE TABLE event_result_flags (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tournament_id INTEGER NOT NULL,
        round INTEGER NOT NULL,
        table_number INTEGER NOT NULL,
        player INTEGER NOT NULL,
        word TEXT NOT NULL,
        at REAL NOT NULL,
        seen_at REAL,
        seen_by TEXT
    );
    """,
]

# -- boards -------------------------------------------------------------------------------------

BOARD_SEEN = (
    "INSERT INTO event_boards (board, first_seen, last_seen) VALUES (?, ?, ?)"
    " ON CONFLICT (board) DO UPDATE SET last_seen = CASE WHEN excluded.last_seen > event_boards.last_seen"
    " THEN excluded.last_seen ELSE event_boards.last_seen END"
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
BOARDS_KNOWN = "SELECT board FROM event_boards WHERE board IN ({})"
"""Formatted with :func:`store.dialect.placeholders` (one ``?`` a board)."""
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
ROWS_ADD = (
    "INSERT INTO event_rows (board, history, seq, kind, game, at, body, received_at) VALUES {}"
    " ON CONFLICT (board, history, seq) DO NOTHING RETURNING board, history, seq"
)
"""Formatted with :func:`store.dialect.placeholders` (8 values a row); returns the rows it stored, not
those already there."""
ROW_BODY = "SELECT body FROM event_rows WHERE board = ? AND history = ? AND seq = ?"
ROW_BODIES = "SELECT board, history, seq, body FROM event_rows WHERE (board, history, seq) IN (VALUES {})"
"""Formatted with one ``(?, ?, ?)`` a row."""
ROW_CONFLICT = "INSERT INTO event_conflicts (board, history, seq, body, received_at) VALUES (?, ?, ?, ?, ?)"
HISTORIES_ABOVE = (
    "SELECT h.board, h.history, h.first_seq, h.acked_seq, r.seq,"
    " (SELECT MAX(m.seq) FROM event_rows m WHERE m.board = h.board AND m.history = h.history) AS top"
    " FROM event_histories h LEFT JOIN event_rows r ON r.board = h.board AND r.history = h.history"
    " AND r.seq > CASE WHEN h.acked_seq > h.first_seq - 1 THEN h.acked_seq ELSE h.first_seq - 1 END"
    " AND r.seq <= CASE WHEN h.acked_seq > h.first_seq - 1 THEN h.acked_seq ELSE h.first_seq - 1 END + ?"
    " WHERE (h.board, h.history) IN (VALUES {})"
)
"""Histories (formatted with one ``(?, ?)`` each, after the window's size): each with the stored rows
in the window just above its acknowledgement (one row with ``seq`` NULL if none), and its highest row."""
ROWS_ABOVE = "SELECT seq FROM event_rows WHERE board = ? AND history = ? AND seq > ? ORDER BY seq LIMIT ?"
ROWS_OF_BOARD = (
    "SELECT seq, kind, game, at, body FROM event_rows WHERE board = ? AND history = ? ORDER BY seq"
)
ROW_COUNTS = "SELECT board, COUNT(*), COUNT(DISTINCT history) FROM event_rows GROUP BY board ORDER BY board"
CONFLICTS_PRUNE = (
    "DELETE FROM event_conflicts WHERE board = ? AND id <= (SELECT id FROM event_conflicts"
    " WHERE board = ? ORDER BY id DESC LIMIT 1 OFFSET ?)"
)
"""Keeps a board's newest conflicts (the offset: how many)."""
CONFLICTS = "SELECT board, history, seq, body, received_at FROM event_conflicts ORDER BY id"

# -- the quarantine (store/event/quarantine.py) ------------------------------------------------------

QUARANTINE_ADD = (
    "INSERT INTO event_quarantine (board, topic, reason, head, size, history, seq, at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
QUARANTINE_COUNT = (
    "INSERT INTO event_quarantine_counts (board, refused, last_at) VALUES (?, ?, ?)"
    " ON CONFLICT (board) DO UPDATE SET refused = event_quarantine_counts.refused + excluded.refused,"
    " last_at = excluded.last_at"
)
QUARANTINE_PRUNE = (
    "DELETE FROM event_quarantine WHERE board = ? AND id <= (SELECT id FROM event_quarantine"
    " WHERE board = ? ORDER BY id DESC LIMIT 1 OFFSET ?)"
)
"""Keeps a board's newest messages (the offset: how many)."""
QUARANTINE_RECENT = (
    "SELECT id, board, topic, reason, head, size, history, seq, at FROM event_quarantine"
    " ORDER BY id DESC LIMIT ?"
)
QUARANTINE_COUNTS = "SELECT board, refused, last_at FROM event_quarantine_counts ORDER BY board"
BOARD_HISTORIES = "SELECT history FROM event_histories WHERE board = ?"

# -- assignments ---------------------------------------------------------------------------------

ASSIGNMENT_COLUMNS = "id, tournament_id, round, table_number, board, created_at, updated_at, done_at"
ASSIGNMENT_ADD = (
    f"INSERT INTO event_assignments ({ASSIGNMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)"
    " ON CONFLICT (tournament_id, round, table_number) DO NOTHING"
)
ASSIGNMENT = f"SELECT {ASSIGNMENT_COLUMNS} FROM event_assignments WHERE id = ?"
ASSIGNMENTS_WITH_IDS = f"SELECT {ASSIGNMENT_COLUMNS} FROM event_assignments WHERE id IN ({{}})"
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

# -- games and results ------------------------------------------------------------------------------

GAME_START = (
    "INSERT INTO event_games (board, history, board_game, assignment, players, status, start_seq, started_at)"
    " VALUES (?, ?, ?, ?, ?, 'running', ?, ?)"
    " ON CONFLICT (board, history, board_game) DO UPDATE SET assignment = excluded.assignment,"
    " players = excluded.players, start_seq = excluded.start_seq, started_at = excluded.started_at"
)
"""A game's start: the table it names is the start's (its end may have come first: it stays ended)."""
GAME_END = (
    "INSERT INTO event_games"
    " (board, history, board_game, assignment, players, status, end_seq, ended_at, result)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (board, history, board_game) DO UPDATE SET status = excluded.status,"
    " end_seq = excluded.end_seq, ended_at = excluded.ended_at, result = excluded.result"
)
"""A game's end; the table its end names is kept only until its start says which it was."""
GAME_ENDED = "SELECT end_seq FROM event_games WHERE board = ? AND history = ? AND board_game = ?"
GAME_COLUMNS = (
    "id, board, history, board_game, assignment, players, status, start_seq, end_seq, started_at, ended_at,"
    " result"
)
GAME = f"SELECT {GAME_COLUMNS} FROM event_games WHERE id = ?"
GAMES_OF_ASSIGNMENT = f"SELECT {GAME_COLUMNS} FROM event_games WHERE assignment = ? ORDER BY id"
GAMES = f"SELECT {GAME_COLUMNS} FROM event_games ORDER BY id"

RESULT_ADD = (
    "INSERT INTO event_results (game, assignment, status, received_at, deadline)"
    " SELECT id, ?, 'waiting', ?, ? FROM event_games WHERE board = ? AND history = ? AND board_game = ?"
    " ON CONFLICT (game) DO NOTHING"
)
"""A finished game played for a table (the one its end names): its result, waiting for the players."""
RESULT_COLUMNS = (
    "r.game, r.assignment, r.status, r.confirmed, r.confirmed_by, r.received_at, r.deadline, r.entered_at,"
    " r.entry_id, r.problem, g.board, g.history, g.board_game, g.players, g.result, g.start_seq, g.end_seq,"
    " g.assignment AS started_for"
)
RESULT = f"SELECT {RESULT_COLUMNS} FROM event_results r JOIN event_games g ON g.id = r.game WHERE r.game = ?"
RESULTS = f"SELECT {RESULT_COLUMNS} FROM event_results r JOIN event_games g ON g.id = r.game ORDER BY r.game"
RESULTS_WITH_STATUS = (
    f"SELECT {RESULT_COLUMNS} FROM event_results r JOIN event_games g ON g.id = r.game"
    " WHERE r.status = ? ORDER BY r.game"
)
RESULTS_OF_ASSIGNMENT = (
    f"SELECT {RESULT_COLUMNS} FROM event_results r JOIN event_games g ON g.id = r.game"
    " WHERE r.assignment = ? ORDER BY r.game DESC LIMIT 1"
)
RESULTS_TO_ENTER = (
    f"SELECT {RESULT_COLUMNS}, b.label AS board_label, "
    + ", ".join(f"a.{c} AS a_{c}" for c in ASSIGNMENT_COLUMNS.split(", "))
    + " FROM event_results r JOIN event_games g ON g.id = r.game"
    " LEFT JOIN event_boards b ON b.board = g.board LEFT JOIN event_assignments a ON a.id = r.assignment"
    " WHERE r.status = 'confirmed' ORDER BY r.game"
)
"""The confirmed results, each with its board's label and its table's assignment (``a_``…; NULL when
the event server never made it): everything entering them reads, in one statement."""
RESULTS_OF_BOARD_GAMES = (
    "SELECT g.board, g.history, g.board_game, g.start_seq, r.game, r.status, r.confirmed, r.confirmed_by,"
    " g.players FROM event_games g JOIN event_results r ON r.game = g.id"
    " WHERE (g.board, g.history, g.board_game) IN (VALUES {})"
)
"""The results of board games (formatted with one ``(?, ?, ?)`` a game)."""
CONFIRMATIONS_OF_GAMES = (
    "SELECT board, history, game, body FROM event_rows WHERE kind = 'result-confirmed'"
    " AND (board, history, game) IN (VALUES {})"
)
"""Every "I agree" row stored for board games (formatted with one ``(?, ?, ?)`` a game), whenever it came."""
RESULT_CONFIRM = "UPDATE event_results SET confirmed = ?, confirmed_by = ?, status = ? WHERE game = ?"
RESULT_SETTLE = (
    "UPDATE event_results SET status = ?, entered_at = ?, entry_id = ?, problem = ? WHERE game = ?"
)

# -- what the server publishes --------------------------------------------------------------------

PUBLISH_WANT = (
    "INSERT INTO event_publish (board, leaf, payload, version) VALUES (?, ?, ?, 1)"
    " ON CONFLICT (board, leaf) DO UPDATE SET payload = excluded.payload,"
    " version = event_publish.version + 1 WHERE event_publish.payload != excluded.payload"
)
PUBLISH_PENDING = (
    "SELECT board, leaf, payload, version FROM event_publish WHERE published < version ORDER BY board, leaf"
)
PUBLISH_DONE = "UPDATE event_publish SET published = ? WHERE board = ? AND leaf = ? AND published < ?"
PUBLISH_AGAIN = "UPDATE event_publish SET published = 0"
PUBLISHED = "SELECT payload FROM event_publish WHERE board = ? AND leaf = ?"
PUBLISHED_EACH = "SELECT board, payload FROM event_publish WHERE leaf = ? AND board IN ({})"
"""Formatted with :func:`store.dialect.placeholders` (one ``?`` a board)."""

# -- the player registry (store/players.py) -------------------------------------------------------

PLAYER_COLUMNS = "id, name, club, city, created_at, merged_into, merged_at"
PLAYER_ADD = (
    "INSERT INTO event_players (name, club, city, identity, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id"
)
PLAYER = f"SELECT {PLAYER_COLUMNS} FROM event_players WHERE id = ?"
PLAYERS = (
    f"SELECT {PLAYER_COLUMNS} FROM event_players WHERE merged_into IS NULL ORDER BY name, club, city, id"
)
PLAYERS_ALL = f"SELECT {PLAYER_COLUMNS} FROM event_players ORDER BY id"
PLAYER_BY_IDENTITY = f"SELECT {PLAYER_COLUMNS} FROM event_players WHERE identity = ? AND merged_into IS NULL"
PLAYER_EDIT = "UPDATE event_players SET name = ?, club = ?, city = ?, identity = ? WHERE id = ?"
PLAYER_MERGE = (
    "UPDATE event_players SET merged_into = ?, merged_at = ? WHERE (id = ? OR merged_into = ?)"
)
PLAYER_AUDIT_ADD = (
    "INSERT INTO event_player_audit (at, actor, kind, player, other, before, after)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
PLAYER_AUDIT_COLUMNS = "id, at, actor, kind, player, other, before, after"
PLAYER_AUDIT = f"SELECT {PLAYER_AUDIT_COLUMNS} FROM event_player_audit ORDER BY id DESC LIMIT ?"
PLAYER_AUDIT_OF = (
    f"SELECT {PLAYER_AUDIT_COLUMNS} FROM event_player_audit WHERE player = ? OR other = ? ORDER BY id"
)

ENTRANT_COLUMNS = "tournament_id, player, name, player_id, linked_at"
ENTRANT_LINK = (
    f"INSERT INTO event_tournament_players ({ENTRANT_COLUMNS}) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (tournament_id, player) DO UPDATE SET name = excluded.name,"
    " player_id = excluded.player_id, linked_at = excluded.linked_at"
)
ENTRANTS_OF = (
    f"SELECT {ENTRANT_COLUMNS} FROM event_tournament_players WHERE tournament_id = ? ORDER BY player"
)
ENTRANTS = f"SELECT {ENTRANT_COLUMNS} FROM event_tournament_players ORDER BY tournament_id, player"

# -- the general ranking (store/ranking.py) -------------------------------------------------------

TOURNAMENT_CHANGE = (
    "SELECT MAX(id), COUNT(undone_at) FROM tournament_events WHERE tournament_id = ?"
)
"""What changes whenever a tournament does: its last entry, and how many entries are undone."""

# -- players' own links, the hall's attendance, flagged results (store/event/attendance.py) ---------

LINK_COLUMNS = "token, tournament_id, player, code, issued_at, issued_by, ended_at"
LINK_ADD = (
    "INSERT INTO event_player_links (token, tournament_id, player, code, issued_at, issued_by)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
LINK_END = (
    "UPDATE event_player_links SET ended_at = ? WHERE tournament_id = ? AND player = ? AND ended_at IS NULL"
)
LINK_BY_TOKEN = f"SELECT {LINK_COLUMNS} FROM event_player_links WHERE token = ?"
LINK_BY_CODE = (
    f"SELECT {LINK_COLUMNS} FROM event_player_links WHERE tournament_id = ? AND code = ? AND ended_at IS NULL"
)
LINKS_OF = (
    f"SELECT {LINK_COLUMNS} FROM event_player_links WHERE tournament_id = ? AND ended_at IS NULL"
    " ORDER BY player"
)
ATTENDANCE_SET = (
    "INSERT INTO event_attendance (tournament_id, player, here, at, marked_by) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (tournament_id, player) DO UPDATE SET here = excluded.here, at = excluded.at,"
    " marked_by = excluded.marked_by"
)
ATTENDANCE_OF = (
    "SELECT player, here, at, marked_by FROM event_attendance WHERE tournament_id = ? ORDER BY player"
)
FLAG_ADD = (
    "INSERT INTO event_result_flags (tournament_id, round, table_number, player, word, at)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
FLAG_COLUMNS = "id, tournament_id, round, table_number, player, word, at, seen_at, seen_by"
FLAGS_UNSEEN = f"SELECT {FLAG_COLUMNS} FROM event_result_flags WHERE seen_at IS NULL ORDER BY id"
FLAGS_OF_PLAYER = (
    f"SELECT {FLAG_COLUMNS} FROM event_result_flags WHERE tournament_id = ? AND player = ? ORDER BY id"
)
FLAG_SEEN = "UPDATE event_result_flags SET seen_at = ?, seen_by = ? WHERE id = ? AND seen_at IS NULL"
UNSEEN_FLAGS_OF_PLAYER = (
    "SELECT COUNT(*) FROM event_result_flags WHERE tournament_id = ? AND player = ? AND seen_at IS NULL"
)
