"""Where rooms live between actions: in memory (tests), in SQLite (default) or in Redis (opt-in).

A store keeps each room as JSON text, so what is saved is exactly what a
later load gets back. The interface every store has:

    load(code) -> dict | None
    save(code, data, rolls=(), settle=None)
                                    the room, its settled rolls and (a game number) that game's
                                    unseen rolls made public, atomically
    delete(code)                    the room goes; its log stays, without names
    find_token(token_hash) -> code | None
    untouched_since(moment) -> [code]
    rolls() -> [dict]               the roll log, oldest first
    room_log(code) -> [dict]        one room's log, oldest first: at most `ROOM_LOG_CAP`, the newest

An entry of the roll log has `LOG_FIELDS`: what `Game.drain_rolls` gives
(see there), and the room, its rule set, the time, the game's number in the
room and the names of who rolled and who answered. `fair` is the cup's
record (maxchen/fair.py): its seeds, secret as long as the entry is not public.

Classes (a teacher's tables, see `maxchen.classroom`) are kept beside the
rooms, the same way: load_class, save_class, delete_class, classes().
"""

import contextlib
import shutil
import sqlite3
import threading
import time
from collections import deque
from pathlib import Path

from . import fastjson as json
from . import paths
from .errors import IllegalMove

LOG_FIELDS = (
    "room",
    "rules",
    "time",
    "game",
    "round",
    "player",
    "name",
    "dice",
    "value",
    "announced",
    "bid",
    "table",
    "found",
    "answerer",
    "answerer_name",
    "outcome",
    "public",
    "fair",
)
DISK_LOW = 1 << 20  # bytes free beside the database below which the health check says the store is down
ROOM_LOG_CAP = 20_000  # entries per room: a room's log stays bounded however long it plays (docs/security.md)


class BrokenRow(ValueError):
    """A saved room or class whose text is not a JSON object (a hand-edited file, a cut write)."""


def _parsed(text, code: str, room: bool = True) -> dict:
    """The saved text of `code` as a dict (a room's: with its seats' token hashes), or BrokenRow."""
    try:
        data = json.loads(text)
    except (ValueError, TypeError):  # the decoders' errors, a lone surrogate, bytes that are no text
        data = None
    if not isinstance(data, dict):
        raise BrokenRow(f"the saved text of {code} is not a JSON object")
    if room:
        try:
            hashes = _token_hashes(data)
        except (KeyError, TypeError, AttributeError):
            hashes = None
        if hashes is None or not all(isinstance(h, str) for h in hashes):
            raise BrokenRow(f"the saved room {code} has no seats to read")
    return data


def _token_hashes(data: dict) -> list[str]:
    return [seat["token_hash"] for seat in data["seats"] if seat["token_hash"]]


def _entry(code: str, data: dict, roll: dict, now: float) -> dict:
    """A roll as the log keeps it (every field present; what an older caller left out is empty)."""
    entry = {field: roll.get(field) for field in LOG_FIELDS}
    entry.update(room=code, rules=data["rules"], time=now, dice=list(roll["dice"]), public=bool(roll.get("public")))
    if entry["bid"] is not None:
        entry["bid"] = {"count": entry["bid"]["count"], "face": entry["bid"]["face"]}
    return entry


class MemoryStore:
    """Rooms in this process's memory: for tests and throwaway servers."""

    KIND = "memory"

    def ping(self) -> None:
        """Nothing to reach (the health check)."""

    def __init__(self, max_rolls=100_000, room_cap=ROOM_LOG_CAP):
        self._rooms: dict[str, str] = {}
        self._touched: dict[str, float] = {}
        self._tokens: dict[str, str] = {}
        self._room_tokens: dict[str, list[str]] = {}
        self._rolls: deque = deque(maxlen=max_rolls)
        self._classes: dict[str, str] = {}
        self._logs: dict[str, deque] = {}  # code -> its entries (the same dicts as in `_rolls`)
        self.room_cap = room_cap
        self._lock = threading.Lock()

    def load(self, code: str) -> dict | None:
        """The room's data, or None."""
        text = self._rooms.get(code)
        return None if text is None else _parsed(text, code)

    def save(self, code: str, data: dict, rolls=(), settle=None) -> None:
        """Store the room's data, replacing what was there, log its rolls and make game `settle`'s public."""
        text = json.dumps(data)
        now = time.time()
        with self._lock:
            self._drop_tokens(code)
            self._rooms[code] = text
            self._touched[code] = data["touched"]
            hashes = _token_hashes(data)
            self._room_tokens[code] = hashes
            self._tokens.update(dict.fromkeys(hashes, code))
            log = self._logs.get(code)
            if rolls and log is None:
                log = self._logs[code] = deque(maxlen=self.room_cap)
            for roll in rolls:
                entry = _entry(code, data, roll, now)
                self._rolls.append(entry)
                log.append(entry)
            if settle is not None and log is not None:
                for entry in log:
                    if entry["game"] == settle:
                        entry["public"] = True

    def delete(self, code: str) -> None:
        """Forget the room; its rolls stay in the log, without names."""
        with self._lock:
            self._drop_tokens(code)
            self._rooms.pop(code, None)
            self._touched.pop(code, None)
            for entry in self._logs.pop(code, ()):
                entry["name"] = entry["answerer_name"] = None

    def lock(self, code: str):
        """The room's lock across processes: none needed, one process owns these rooms (`Rooms` locks them)."""
        return contextlib.nullcontext()

    def claim(self, name: str, seconds: float) -> bool:
        """Take `name` (a new code, the sweep's turn) for `seconds` across processes: one process, always True."""
        return True

    def find_token(self, token_hash: str) -> str | None:
        """The code of the room where a token's seat is."""
        return self._tokens.get(token_hash)

    def untouched_since(self, moment: float) -> list[str]:
        """Codes of rooms last changed before `moment`."""
        return [code for code, touched in list(self._touched.items()) if touched < moment]

    def rolls(self) -> list[dict]:
        """The roll log, oldest first."""
        with self._lock:
            return json.loads(json.dumps(list(self._rolls)))

    def room_log(self, code: str) -> list[dict]:
        """One room's roll log, oldest first (the newest `room_cap` entries)."""
        with self._lock:
            return json.loads(json.dumps(list(self._logs.get(code, ()))))

    def load_class(self, code: str) -> dict | None:
        """The class's data, or None."""
        text = self._classes.get(code)
        return None if text is None else _parsed(text, code, room=False)

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


# The columns of the roll log from schema 3 on: the fields, a Lügen bid and the table's count flat.
FLAT = {"bid": ("bid_count", "bid_face"), "table": ("table_count",)}
LOG_COLUMNS = tuple(column for field in LOG_FIELDS for column in FLAT.get(field, (field,)))


def _v3(db):
    """Schema 3: the roll log knows the game, round, players, answer, Lügen's bid, and whether it is public yet.

    The table is made anew (a Lügen cup of a void round has no `value`), its
    rows copied. What schema 2 logged: a checked roll was seen by all; an
    unchecked one too, unless its room is in a game now, whose unseen rolls
    they may be: those wait for that game's end (it is game 1 of the room,
    as `Room.from_dict` numbers it).
    """
    db.execute("ALTER TABLE rolls RENAME TO rolls_v2")
    db.execute(
        "CREATE TABLE rolls (id INTEGER PRIMARY KEY, room TEXT NOT NULL, rules TEXT NOT NULL, time REAL NOT NULL,"
        " game INTEGER, round INTEGER, player TEXT, name TEXT, dice TEXT NOT NULL, value INTEGER,"
        " announced INTEGER, bid_count INTEGER, bid_face INTEGER, table_count INTEGER, found INTEGER,"
        " answerer TEXT, answerer_name TEXT, outcome TEXT, public INTEGER NOT NULL)"
    )
    db.execute(
        "INSERT INTO rolls (id, room, rules, time, dice, value, announced, found, outcome, public)"
        " SELECT id, room, rules, time, dice, value, announced, found,"
        " CASE found WHEN 1 THEN 'true' WHEN 0 THEN 'lie' END, 1 FROM rolls_v2 ORDER BY id"
    )
    db.execute("DROP TABLE rolls_v2")
    db.execute("CREATE INDEX rolls_room ON rolls (room, id)")
    for code, text in db.execute("SELECT code, data FROM rooms").fetchall():
        if json.loads(text).get("phase") == "playing":
            db.execute("UPDATE rolls SET public = 0, game = 1 WHERE room = ? AND found IS NULL", (code,))


def _classes(db):
    """Classes: a teacher's tables, as JSON."""
    db.execute("CREATE TABLE classes (code TEXT PRIMARY KEY, data TEXT NOT NULL)")


def _seeds(db):
    """The roll log keeps each cup's record (maxchen/fair.py) as JSON; cups rolled before have none."""
    db.execute("ALTER TABLE rolls ADD COLUMN fair TEXT")


MIGRATIONS = (_v1, _v2, _v3, _classes, _seeds)
SCHEMA_VERSION = len(MIGRATIONS)


_COLUMNS = ", ".join(LOG_COLUMNS)
_INSERT_ROLL = f"INSERT INTO rolls ({_COLUMNS}) VALUES ({', '.join('?' * len(LOG_COLUMNS))})"  # noqa: S608
_SETTLE = "UPDATE rolls SET public = 1 WHERE room = ? AND game = ? AND public = 0"
_TRIM = "DELETE FROM rolls WHERE id IN (SELECT id FROM rolls WHERE room = ? ORDER BY id LIMIT ?)"


def _row(entry: dict) -> tuple:
    """A log entry as a row of `LOG_COLUMNS`."""
    bid = entry["bid"] or {}
    flat = {**entry, "dice": json.dumps(entry["dice"]), "bid_count": bid.get("count"), "bid_face": bid.get("face")}
    flat["fair"] = None if entry.get("fair") is None else json.dumps(entry["fair"])
    flat["table_count"] = entry["table"]
    return tuple(flat[column] for column in LOG_COLUMNS)


def _from_row(row) -> dict:
    """A row of `LOG_COLUMNS` as the log entry it was."""
    flat = dict(zip(LOG_COLUMNS, row, strict=True))
    entry = {field: flat.get(field) for field in LOG_FIELDS}
    entry["dice"] = json.loads(flat["dice"])
    entry["found"] = None if flat["found"] is None else bool(flat["found"])
    entry["public"] = bool(flat["public"])
    entry["bid"] = None if flat["bid_count"] is None else {"count": flat["bid_count"], "face": flat["bid_face"]}
    entry["table"] = flat["table_count"]
    entry["fair"] = None if flat["fair"] is None else json.loads(flat["fair"])
    return entry


class SqliteStore:
    """Rooms in one SQLite file (WAL): every save is committed before it returns.

    One server process owns the file, so reads come from a write-through
    cache of the rooms' JSON; only changes touch the disk.
    """

    KIND = "sqlite"

    def ping(self) -> None:
        """Read from the file, and find room to write beside it (the health check); raises when it cannot."""
        with self._lock:
            self._db.execute("SELECT 1 FROM rooms LIMIT 1").fetchone()
        free = shutil.disk_usage(self.path.parent).free
        if free < DISK_LOW:  # a full disk refuses every change (store_down) while reads still work
            raise OSError(f"{free} bytes free beside the database")

    def __init__(self, path, room_cap=ROOM_LOG_CAP):
        self.path = Path(path)
        self.room_cap = room_cap
        self._logged: dict[str, int] = {}  # code -> entries in its log, once counted
        self._private()
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[str, list[str]]] = {}  # code -> (JSON, token hashes)
        self._db = None
        try:
            # One connection, used under a lock: green threads share it safely.
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            # Read before anything is written: a file that is no database is left exactly as it is.
            found = self._db.execute("PRAGMA quick_check").fetchone()[0]
            if found != "ok":
                raise sqlite3.DatabaseError(found)
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a crash of this process (kill -9); only a
            # power cut may lose the last commits.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self.migrate()
        except sqlite3.DatabaseError as error:  # a file that is none, or a path that is no file (a folder)
            if self._db is not None:
                self._db.close()
            raise RuntimeError(
                f"{self.path} cannot be read as a database ({error}). It is left as it is: move it (and any"
                f" {self.path.name}-wal beside it) away, or put a copy you kept in its place, and start again;"
                " without it a new, empty one is made."
            ) from None

    def _private(self):
        """The file, its -wal and -shm for this user only (0600): SQLite gives those two the file's own mode."""
        if str(self.path) in ("", ":memory:"):
            return
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):  # a folder there, a read-only disk: sqlite3 says so below
            paths.private_file(self.path)
            for left in (self.path.with_name(self.path.name + end) for end in ("-wal", "-shm", "-journal")):
                if left.is_file():  # left by a process that was killed, in the file's old mode
                    paths.private_file(left)

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
                if self._db.in_transaction:  # a full disk rolls it back itself: a second ROLLBACK hid why
                    self._db.execute("ROLLBACK")
                raise

    def load(self, code: str) -> dict | None:
        """The room's data, or None."""
        cached = self._cache.get(code)
        if cached is not None:  # read once and found a room (or saved by this process): no checks again
            return json.loads(cached[0])
        with self._lock:
            row = self._db.execute("SELECT data FROM rooms WHERE code = ?", (code,)).fetchone()
            if row is None:
                return None
            data = _parsed(row[0], code)
            self._cache[code] = (row[0], _token_hashes(data))
        return data

    def save(self, code: str, data: dict, rolls=(), settle=None) -> None:
        """Replace the room, append its settled rolls and make game `settle`'s public, in one transaction."""
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
        logged = None
        if rolls:
            rows = tuple(_row(_entry(code, data, roll, now)) for roll in rolls)
            statements.append((_INSERT_ROLL, rows))
            logged = self._logged_count(code) + len(rows)
            if logged > self.room_cap:  # the oldest go: the room's log stays within its cap
                statements.append((_TRIM, (code, logged - self.room_cap)))
                logged = self.room_cap
        if settle is not None:
            statements.append((_SETTLE, (code, settle)))
        self._write(statements)
        self._cache[code] = (text, hashes)
        if logged is not None:
            self._logged[code] = logged

    def _logged_count(self, code: str) -> int:
        """How many entries the room's log holds (counted once per process, then kept)."""
        if code not in self._logged:
            with self._lock:
                row = self._db.execute("SELECT COUNT(*) FROM rolls WHERE room = ?", (code,)).fetchone()
            self._logged[code] = row[0]
        return self._logged[code]

    def delete(self, code: str) -> None:
        """Forget the room; its rolls stay in the log, without names."""
        self._write(
            [
                ("DELETE FROM rooms WHERE code = ?", (code,)),
                ("DELETE FROM tokens WHERE code = ?", (code,)),
                ("UPDATE rolls SET name = NULL, answerer_name = NULL WHERE room = ?", (code,)),
            ]
        )
        self._cache.pop(code, None)

    def lock(self, code: str):
        """The room's lock across processes: none needed, one process owns these rooms (`Rooms` locks them)."""
        return contextlib.nullcontext()

    def claim(self, name: str, seconds: float) -> bool:
        """Take `name` (a new code, the sweep's turn) for `seconds` across processes: one process, always True."""
        return True

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
        return self._read(f"SELECT {_COLUMNS} FROM rolls ORDER BY id", ())  # noqa: S608 - constants, not input

    def room_log(self, code: str) -> list[dict]:
        """One room's roll log, oldest first (the newest `room_cap` entries)."""
        return self._read(f"SELECT {_COLUMNS} FROM rolls WHERE room = ? ORDER BY id", (code,))  # noqa: S608

    def _read(self, sql, args) -> list[dict]:
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [_from_row(row) for row in rows]

    def load_class(self, code: str) -> dict | None:
        """The class's data, or None."""
        with self._lock:
            row = self._db.execute("SELECT data FROM classes WHERE code = ?", (code,)).fetchone()
        return None if row is None else _parsed(row[0], code, room=False)

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


HASHES_KEPT = 10_000  # rooms whose token hashes a Redis store remembers from its last load
REDIS_PREFIX = "maxchen:"  # every key starts so: a shared Redis keeps ours apart


LOCK_SECONDS = 10  # a change of a room takes milliseconds; a lock older than this was held by a dead process
LOCK_WAIT = 10
LOCK_POLL = 0.005  # seconds between tries for a room's lock another process holds (redis-py: 0.1, a tenth of a turn)
REDIS_CONNECTIONS = 256  # a process's connections to Redis at once; redis-py 8's own pool fails past 100


def redis_client(url: str):
    """A Redis client whose callers, past `REDIS_CONNECTIONS` at once, wait for a free connection (up to
    `LOCK_WAIT` seconds) instead of failing: a busy process has thousands of sockets' greenlets."""
    import redis

    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_CONNECTIONS,
        timeout=LOCK_WAIT,
        socket_connect_timeout=5,
        socket_timeout=10,
        health_check_interval=30,
    )
    return redis.Redis(connection_pool=pool)


class _RedisLock:
    """A redis-py lock as a context manager that refuses (IllegalMove `room_busy`) instead of raising LockError.

    While it is held, `held[code]` names it, so that a save can make sure the lock is still its own.
    """

    def __init__(self, lock, lost, held: dict, code: str):
        self._lock = lock
        self._lost = lost  # redis' LockError: the lock expired before its release
        self._held, self._code = held, code
        self.since = 0.0

    def __enter__(self):
        self.since = time.monotonic()  # before the SET: the lock expires no sooner than LOCK_SECONDS from here
        if not self._lock.acquire():
            raise IllegalMove("room_busy")
        self._held[self._code] = self
        return self

    def __exit__(self, *_):
        self._held.pop(self._code, None)
        with contextlib.suppress(self._lost):  # expired meanwhile: another may hold it now, and that is theirs
            self._lock.release()

    def surely_held(self) -> bool:
        """Whether the lock cannot have expired yet (held for less than half its time)."""
        return time.monotonic() - self.since < LOCK_SECONDS / 2

    @property
    def token(self) -> bytes:
        """What the lock's key holds while it is this holder's."""
        return self._lock.local.token


class RedisStore:
    """Rooms in Redis (opt-in, `--redis URL`), so that several processes can share them.

    Keys, all under `prefix`: `room:CODE` (the JSON), `room:CODE:tokens` (a set
    of its token hashes), `tokens` (a hash: token hash -> code), `touched` (a
    sorted set: code by touched time), `log:CODE` (a list of the room's log
    entries as JSON, capped with LTRIM), `logged` (codes that have a log),
    `rolls:seq` (numbers the entries, so `rolls()` merges the logs in order)
    and `classes` (a hash: code -> JSON).

    Every change of a room is one MULTI/EXEC: Redis runs it whole or not at
    all, and a connection lost before EXEC discards it. What a change must
    read first (the old token hashes, the entries to settle or to scrub) is
    read under WATCH, so a write by another process in between makes the
    change start again instead of using stale data. A Lua script would save
    a round trip, but keeps the logic where neither Python's tests nor its
    readers look; a lock with expiry adds a way to fail (it expires mid-save).
    """

    KIND = "redis"

    def ping(self) -> None:
        """Ask Redis (the health check); raises when it does not answer."""
        self._redis.ping()

    def __init__(self, url: str, room_cap=ROOM_LOG_CAP, prefix=REDIS_PREFIX):
        import redis  # here, so that SQLite users never load it

        self.room_cap = room_cap
        self._prefix = prefix
        try:
            self._redis = redis_client(url)
            self._redis.ping()
            self._lock_lost = redis.exceptions.LockError
            self._hashes: dict[str, list[str]] = {}  # code -> its token hashes as last loaded here
            self._held: dict[str, _RedisLock] = {}  # code -> this process's holder of the room's lock
        except (ValueError, redis.RedisError) as error:
            raise RuntimeError(f"cannot use Redis at {_without_password(url)}: {error}") from None

    def _key(self, *parts: str) -> str:
        return self._prefix + ":".join(parts)

    def lock(self, code: str):
        """The room's lock across processes: a Redis lock that expires (a process that dies holding it
        frees it after `LOCK_SECONDS`); waiting longer than `LOCK_WAIT` is refused as `room_busy`."""
        lock = self._redis.lock(
            self._key("lock", code), timeout=LOCK_SECONDS, blocking_timeout=LOCK_WAIT, sleep=LOCK_POLL
        )
        return _RedisLock(lock, self._lock_lost, self._held, code)

    def claim(self, name: str, seconds: float) -> bool:
        """Take `name` for `seconds`: True for one process only (a new code, the sweep's turn)."""
        return bool(self._redis.set(self._key("claim", name), 1, nx=True, px=int(seconds * 1000)))

    @property
    def client(self):
        """The Redis connection (presence shares it)."""
        return self._redis

    @property
    def prefix(self) -> str:
        """What every key of this store begins with."""
        return self._prefix

    def load(self, code: str) -> dict | None:
        """The room's data, or None."""
        text = self._redis.get(self._key("room", code))
        if text is None:
            return None
        data = _parsed(text, code)
        if len(self._hashes) >= HASHES_KEPT:
            self._hashes.clear()
        self._hashes[code] = _token_hashes(data)
        return data

    def save(self, code: str, data: dict, rolls=(), settle=None) -> None:
        """Replace the room, its tokens, append its settled rolls and make game `settle`'s public, in one EXEC."""
        text = json.dumps(data)
        hashes = _token_hashes(data)
        now = time.time()
        room_tokens, log, lock = self._key("room", code, "tokens"), self._key("log", code), self._key("lock", code)
        holder = self._held.get(code)
        if settle is None and self._hashes.get(code) == hashes and (holder is None or holder.surely_held()):
            # Most changes: the seats as this process loaded them under the room's lock, no game settled.
            with self._redis.pipeline(transaction=True) as pipe:
                self._queue_save(
                    pipe, code, text, data["touched"], set(hashes), hashes, self._entries(code, data, rolls, now), {}
                )
                pipe.execute()
            return

        def change(pipe):
            # A holder stalled past its lock's time (a frozen process): another may have changed the room since,
            # so the change is refused whole rather than written over theirs (WATCH: nor can it expire now).
            if holder is not None and pipe.get(lock) != holder.token:
                raise IllegalMove("room_busy")
            old = {h.decode() for h in pipe.smembers(room_tokens)}
            settled = self._settled(pipe, log, settle) if settle is not None else {}
            entries = self._entries(code, data, rolls, now, pipe)
            for entry in entries:  # as in the other stores, a roll logged with its game's end is settled too
                entry["public"] = entry["public"] or (settle is not None and entry["game"] == settle)
            pipe.multi()
            self._queue_save(pipe, code, text, data["touched"], old, hashes, entries, settled)

        self._redis.transaction(change, room_tokens, log, lock)
        self._hashes[code] = hashes

    def _entries(self, code, data, rolls, now, client=None) -> list[dict]:
        """The log entries of `rolls`, numbered in the order of every room's rolls."""
        if not rolls:
            return []
        first = (client or self._redis).incrby(self._key("rolls", "seq"), len(rolls)) - len(rolls) + 1
        return [{**_entry(code, data, roll, now), "seq": first + n} for n, roll in enumerate(rolls)]

    def _settled(self, pipe, log: str, game: int) -> dict[int, str]:
        """Index -> entry made public, for the entries of `game` in the log not public yet."""
        settled = {}
        for index, raw in enumerate(pipe.lrange(log, 0, -1)):
            entry = json.loads(raw)
            if entry["game"] == game and not entry["public"]:
                settled[index] = json.dumps({**entry, "public": True})
        return settled

    def _queue_save(self, pipe, code, text, touched, old, hashes, entries, settled):
        """The commands of one save, queued inside MULTI."""
        room_tokens, log = self._key("room", code, "tokens"), self._key("log", code)
        pipe.set(self._key("room", code), text)
        pipe.zadd(self._key("touched"), {code: touched})
        if set(hashes) != old:  # seats changed: index the tokens anew
            if old - set(hashes):
                pipe.hdel(self._key("tokens"), *(old - set(hashes)))
            pipe.delete(room_tokens)
            if hashes:
                pipe.hset(self._key("tokens"), mapping=dict.fromkeys(hashes, code))
                pipe.sadd(room_tokens, *hashes)
        for index, entry in settled.items():  # before the push: the indexes are the old list's
            pipe.lset(log, index, entry)
        if entries:
            pipe.rpush(log, *(json.dumps(entry) for entry in entries))
            pipe.ltrim(log, -self.room_cap, -1)  # the oldest go: the room's log stays within its cap
            pipe.sadd(self._key("logged"), code)

    def delete(self, code: str) -> None:
        """Forget the room; its rolls stay in the log, without names."""
        room_tokens, log = self._key("room", code, "tokens"), self._key("log", code)
        self._hashes.pop(code, None)

        def change(pipe):
            old = [h.decode() for h in pipe.smembers(room_tokens)]
            scrubbed = [
                json.dumps({**json.loads(raw), "name": None, "answerer_name": None}) for raw in pipe.lrange(log, 0, -1)
            ]
            pipe.multi()
            pipe.delete(self._key("room", code), room_tokens)
            pipe.zrem(self._key("touched"), code)
            if old:
                pipe.hdel(self._key("tokens"), *old)
            if scrubbed:
                pipe.delete(log)
                pipe.rpush(log, *scrubbed)

        self._redis.transaction(change, room_tokens, log)

    def find_token(self, token_hash: str) -> str | None:
        """The code of the room where a token's seat is."""
        code = self._redis.hget(self._key("tokens"), token_hash)
        return code and code.decode()

    def untouched_since(self, moment: float) -> list[str]:
        """Codes of rooms last changed before `moment`."""
        return [code.decode() for code in self._redis.zrangebyscore(self._key("touched"), "-inf", f"({moment}")]

    def rolls(self) -> list[dict]:
        """The roll log, oldest first: every room's log, merged."""
        codes = sorted(code.decode() for code in self._redis.smembers(self._key("logged")))
        with self._redis.pipeline(transaction=True) as pipe:  # one moment's logs, not each its own
            for code in codes:
                pipe.lrange(self._key("log", code), 0, -1)
            logs = pipe.execute()
        entries = [json.loads(raw) for log in logs for raw in log]
        entries.sort(key=lambda entry: entry["seq"])
        return [_without_seq(entry) for entry in entries]

    def room_log(self, code: str) -> list[dict]:
        """One room's roll log, oldest first (the newest `room_cap` entries)."""
        return [_without_seq(json.loads(raw)) for raw in self._redis.lrange(self._key("log", code), 0, -1)]

    def load_class(self, code: str) -> dict | None:
        """The class's data, or None."""
        text = self._redis.hget(self._key("classes"), code)
        return None if text is None else _parsed(text, code, room=False)

    def save_class(self, code: str, data: dict) -> None:
        """Replace the class."""
        self._redis.hset(self._key("classes"), code, json.dumps(data))

    def delete_class(self, code: str) -> None:
        """Forget the class (its tables are rooms of their own)."""
        self._redis.hdel(self._key("classes"), code)

    def classes(self) -> list[str]:
        """Codes of every class."""
        return [code.decode() for code in self._redis.hkeys(self._key("classes"))]

    def close(self):
        """Let go of the connections."""
        self._redis.close()


def _without_seq(entry: dict) -> dict:
    entry.pop("seq", None)
    return entry


def _without_password(url: str) -> str:
    """The URL as it may be printed: what is before its @ (a password) becomes ***."""
    userinfo, at, host = url.rpartition("@")
    if not at:
        return url
    scheme, slashes, user = userinfo.partition("//")
    return f"{scheme}//{user.split(':')[0]}:***@{host}" if slashes else f"***@{host}"
