"""Where rooms live between actions: in memory (tests) or in SQLite (default).

A store keeps each room as JSON text, so what is saved is exactly what a
later load gets back. The interface every store has:

    load(code) -> dict | None
    save(code, data, rolls=())      the room and its settled rolls, atomically
    delete(code)
    find_token(token_hash) -> code | None
    untouched_since(moment) -> [code]
    rolls() -> [dict]               the roll log, oldest first

Classes (a teacher's tables, see `maxchen.classroom`) are kept beside the
rooms, the same way: load_class, save_class, delete_class, classes().
"""

import sqlite3
import threading
import time
from collections import deque
from pathlib import Path

from . import fastjson as json

ROLL_FIELDS = ("room", "rules", "time", "dice", "value", "announced", "found")


def _token_hashes(data: dict) -> list[str]:
    return [seat["token_hash"] for seat in data["seats"] if seat["token_hash"]]


def _roll_row(code: str, data: dict, roll: dict, now: float) -> tuple:
    return (code, data["rules"], now, json.dumps(roll["dice"]), roll["value"], roll["announced"], roll["found"])


class MemoryStore:
    """Rooms in this process's memory: for tests and throwaway servers."""

    def __init__(self, max_rolls=100_000):
        self._rooms: dict[str, str] = {}
        self._touched: dict[str, float] = {}
        self._tokens: dict[str, str] = {}
        self._room_tokens: dict[str, list[str]] = {}
        self._rolls: deque = deque(maxlen=max_rolls)
        self._classes: dict[str, str] = {}
        self._lock = threading.Lock()

    def load(self, code: str) -> dict | None:
        """The room's data, or None."""
        text = self._rooms.get(code)
        return None if text is None else json.loads(text)

    def save(self, code: str, data: dict, rolls=()) -> None:
        """Store the room's data, replacing what was there, and log its rolls."""
        text = json.dumps(data)
        now = time.time()
        with self._lock:
            self._drop_tokens(code)
            self._rooms[code] = text
            self._touched[code] = data["touched"]
            hashes = _token_hashes(data)
            self._room_tokens[code] = hashes
            self._tokens.update(dict.fromkeys(hashes, code))
            for roll in rolls:
                self._rolls.append(dict(zip(ROLL_FIELDS, _roll_row(code, data, roll, now), strict=True)))

    def delete(self, code: str) -> None:
        """Forget the room (its rolls stay in the log)."""
        with self._lock:
            self._drop_tokens(code)
            self._rooms.pop(code, None)
            self._touched.pop(code, None)

    def find_token(self, token_hash: str) -> str | None:
        """The code of the room where a token's seat is."""
        return self._tokens.get(token_hash)

    def untouched_since(self, moment: float) -> list[str]:
        """Codes of rooms last changed before `moment`."""
        return [code for code, touched in list(self._touched.items()) if touched < moment]

    def rolls(self) -> list[dict]:
        """The roll log, oldest first."""
        return [{**roll, "dice": json.loads(roll["dice"])} for roll in self._rolls]

    def load_class(self, code: str) -> dict | None:
        """The class's data, or None."""
        text = self._classes.get(code)
        return None if text is None else json.loads(text)

    def save_class(self, code: str, data: dict) -> None:
        """Store the class's data, replacing what was there."""
        self._classes[code] = json.dumps(data)

    def delete_class(self, code: str) -> None:
        """Forget the class (its tables are rooms of their own)."""
        self._classes.pop(code, None)

    def classes(self) -> list[str]:
        """Codes of every class."""
        return list(self._classes)

    def _drop_tokens(self, code):
        for token_hash in self._room_tokens.pop(code, ()):
            self._tokens.pop(token_hash, None)


def _v1(db):
    """Schema 1: rooms as JSON."""
    db.execute("CREATE TABLE rooms (code TEXT PRIMARY KEY, data TEXT NOT NULL, touched REAL NOT NULL)")


def _v2(db):
    """Schema 2: a token index for reconnects, and the roll log for statistics."""
    db.execute("CREATE TABLE tokens (token_hash TEXT PRIMARY KEY, code TEXT NOT NULL)")
    db.execute("CREATE INDEX tokens_code ON tokens (code)")
    db.execute(
        "CREATE TABLE rolls (id INTEGER PRIMARY KEY, room TEXT NOT NULL, rules TEXT NOT NULL, time REAL NOT NULL,"
        " dice TEXT NOT NULL, value INTEGER NOT NULL, announced INTEGER, found INTEGER)"
    )
    # Rooms written by schema 1 get their tokens indexed.
    for code, text in db.execute("SELECT code, data FROM rooms").fetchall():
        db.executemany("INSERT INTO tokens VALUES (?, ?)", [(h, code) for h in _token_hashes(json.loads(text))])


def _classes(db):
    """Classes: a teacher's tables, as JSON."""
    db.execute("CREATE TABLE classes (code TEXT PRIMARY KEY, data TEXT NOT NULL)")


MIGRATIONS = (_v1, _v2, _classes)
SCHEMA_VERSION = len(MIGRATIONS)


class SqliteStore:
    """Rooms in one SQLite file (WAL): every save is committed before it returns.

    One server process owns the file, so reads come from a write-through
    cache of the rooms' JSON; only changes touch the disk.
    """

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection, used under a lock: green threads share it safely.
        self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[str, list[str]]] = {}  # code -> (JSON, token hashes)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a crash of this process (kill -9); only a
        # power cut may lose the last commits.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self.migrate()

    def migrate(self):
        """Bring an older file up to the current schema; never drop data."""
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise RuntimeError(f"{self.path} has schema {version}; this maxchen knows up to {SCHEMA_VERSION}")
            for number in range(version, SCHEMA_VERSION):
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    MIGRATIONS[number](self._db)
                    self._db.execute(f"PRAGMA user_version = {number + 1}")
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    def _write(self, statements):
        with self._lock:
            if len(statements) == 1 and not isinstance(statements[0][1][0], tuple):
                self._db.execute(*statements[0])  # one statement is its own transaction
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    if args and isinstance(args[0], tuple):
                        self._db.executemany(sql, args)
                    else:
                        self._db.execute(sql, args)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def load(self, code: str) -> dict | None:
        """The room's data, or None."""
        cached = self._cache.get(code)
        if cached is not None:
            return json.loads(cached[0])
        with self._lock:
            row = self._db.execute("SELECT data FROM rooms WHERE code = ?", (code,)).fetchone()
            if row is None:
                return None
            data = json.loads(row[0])
            self._cache[code] = (row[0], _token_hashes(data))
        return data

    def save(self, code: str, data: dict, rolls=()) -> None:
        """Replace the room and append its settled rolls, in one transaction."""
        now = time.time()
        text = json.dumps(data)
        hashes = _token_hashes(data)
        cached = self._cache.get(code)
        if cached is None:
            statements = [("INSERT OR REPLACE INTO rooms VALUES (?, ?, ?)", (code, text, data["touched"]))]
        else:  # the row exists: an UPDATE costs less than a replace
            statements = [("UPDATE rooms SET data = ?, touched = ? WHERE code = ?", (text, data["touched"], code))]
        if cached is None or cached[1] != hashes:  # seats changed: index the tokens anew
            statements.append(("DELETE FROM tokens WHERE code = ?", (code,)))
            if hashes:
                statements.append(("INSERT OR REPLACE INTO tokens VALUES (?, ?)", tuple((h, code) for h in hashes)))
        if rolls:
            rows = tuple(_roll_row(code, data, roll, now) for roll in rolls)
            statements.append(
                (
                    "INSERT INTO rolls (room, rules, time, dice, value, announced, found) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
            )
        self._write(statements)
        self._cache[code] = (text, hashes)

    def delete(self, code: str) -> None:
        """Forget the room (its rolls stay in the log)."""
        self._write([("DELETE FROM rooms WHERE code = ?", (code,)), ("DELETE FROM tokens WHERE code = ?", (code,))])
        self._cache.pop(code, None)

    def find_token(self, token_hash: str) -> str | None:
        """The code of the room where a token's seat is."""
        with self._lock:
            row = self._db.execute("SELECT code FROM tokens WHERE token_hash = ?", (token_hash,)).fetchone()
        return row and row[0]

    def untouched_since(self, moment: float) -> list[str]:
        """Codes of rooms last changed before `moment`."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT code FROM rooms WHERE touched < ?", (moment,))]

    def rolls(self) -> list[dict]:
        """The roll log, oldest first."""
        with self._lock:
            columns = ", ".join(ROLL_FIELDS)  # constants, not input
            rows = self._db.execute(f"SELECT {columns} FROM rolls ORDER BY id").fetchall()  # noqa: S608
        return [
            {
                **dict(zip(ROLL_FIELDS, row, strict=True)),
                "dice": json.loads(row[3]),
                "found": None if row[6] is None else bool(row[6]),
            }
            for row in rows
        ]

    def load_class(self, code: str) -> dict | None:
        """The class's data, or None."""
        with self._lock:
            row = self._db.execute("SELECT data FROM classes WHERE code = ?", (code,)).fetchone()
        return None if row is None else json.loads(row[0])

    def save_class(self, code: str, data: dict) -> None:
        """Replace the class, committed before it returns."""
        self._write([("INSERT OR REPLACE INTO classes VALUES (?, ?)", (code, json.dumps(data)))])

    def delete_class(self, code: str) -> None:
        """Forget the class (its tables are rooms of their own)."""
        self._write([("DELETE FROM classes WHERE code = ?", (code,))])

    def classes(self) -> list[str]:
        """Codes of every class."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT code FROM classes")]

    def close(self):
        """Close the file."""
        with self._lock:
            self._db.close()
