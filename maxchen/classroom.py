"""A class: a teacher's tables. No Flask.

Students join the class with a name; the teacher seats them at tables of
4–6 and may move them. Every table is a room of its own (`Room.classroom`
names its class) that plays its own game. A student's class token is also
their seat's token at the table: where the store's token index finds it is
where they sit, so the class never keeps a second, stale copy of that.
"""

import contextlib
import math
import secrets
import time
from contextlib import contextmanager

from . import stats
from .errors import IllegalMove
from .locks import Locks, Unreadable, sweep
from .names import clean_name, looks_like
from .rooms import CLAIM_SECONDS
from .rulesets import DEFAULT, RULESETS
from .store import BrokenRow
from .table import CODE_ALPHABET, COUNTDOWN, LOADINGS, ROOM_TTL, configured, hash_token, new_code, of_type, ruleset_name

# What every saved class holds (`create`): one that lacks any of it is refused as `class_broken`.
CLASS_FIELDS = frozenset(
    (
        "rules",
        "options",
        "size",
        "teacher",
        "students",
        "tables",
        "seated",
        "closed",
        "paused",
        "ends_at",
        "loaded",
        "version",
        "touched",
        "code",
    )
)
STUDENT = ("id", "name", "token_hash")  # what every student of a saved class holds, as text
CLASS_CODE_LENGTH = 6  # one longer than a room's: a class code is never read as a room's
TABLE_SIZES = (4, 5, 6)
DEFAULT_SIZE = 5
MAX_TABLE = 6  # a newcomer opens a new table rather than make one bigger than this
MAX_STUDENTS = 60
MAX_TABLES = 60  # tables a class ever opens (moving students to new tables opens more)


def _readable(data: dict) -> bool:
    """A saved class's own fields have the types `create`, `join` and the desk's moves give them."""
    students, tables, loaded = data["students"], data["tables"], data["loaded"]
    return (
        all(isinstance(data[key], str) for key in ("code", "rules", "teacher"))
        and data["rules"] in RULESETS
        and isinstance(data["options"], dict)
        and of_type(data["version"], int)
        and of_type(data["size"], int)
        and all(of_type(data.get(key, 0), int, float) for key in ("touched", "paused_at"))
        and (data["ends_at"] is None or of_type(data["ends_at"], int, float))
        and all(isinstance(data[key], bool) for key in ("seated", "closed", "paused"))
        and isinstance(students, list)
        and all(isinstance(s, dict) and all(isinstance(s.get(k), str) for k in STUDENT) for s in students)
        and isinstance(tables, list)
        and all(isinstance(table, str) for table in tables)
        and (
            loaded is None
            or isinstance(loaded, dict)
            and loaded.get("table") in tables
            and loaded.get("six") in LOADINGS
            and isinstance(loaded.get("revealed"), bool)
        )
    )


def normalize_class_code(text) -> str:
    """A class code as typed (any case, spaces) -> its canonical form, or IllegalMove."""
    code = "".join(str(text or "").split()).upper()
    if len(code) != CLASS_CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        raise IllegalMove("class_not_found")
    return code


def split(count: int, size: int) -> list[int]:
    """How `count` students sit at tables of about `size`: as even as can be, e.g. 12 by 5 -> [4, 4, 4]."""
    tables = max(1, math.ceil(count / size))
    return [count // tables + (i < count % tables) for i in range(tables)]


class Classrooms:
    """The registry of classes; one lock per class, taken before any of its tables' locks.

    `changed(code, seated)` is called after every change of a class, with the
    ids of students who were just given a table (their waiting pages go there).
    """

    def __init__(self, rooms, clock=time.time, ttl=ROOM_TTL):
        self.rooms = rooms
        self.store = rooms.store
        self.clock = clock
        self.ttl = ttl
        self.changed = lambda code, seated: None
        self._locks = Locks()
        self._broken = Unreadable("class", "class_broken")
        self._sound: set[str] = set()  # classes whose tables this process found to be theirs

    @contextmanager
    def _locked(self, code):
        code = normalize_class_code(code)
        lock = self._locks.of(code, exists=lambda: self._found(code))
        with lock, self.store.lock("class:" + code):  # this process's threads, then the others (Redis)
            yield self._found(code)

    def _found(self, code: str) -> dict:
        """The stored class, or IllegalMove `class_not_found` (`class_broken`: its saved text is no JSON object)."""
        try:
            data = self.store.load_class(code)
        except BrokenRow:
            raise self._broken.refuse(code) from None
        if data is None:
            raise IllegalMove("class_not_found")
        if not data.keys() >= CLASS_FIELDS or not _readable(data):
            raise self._broken.refuse(code, "no class of ours")
        if data["code"] != code:  # saved under another code: a change would be saved over that class
            raise self._broken.refuse(code, f"saved as {data['code']!r}")
        data["options"] = RULESETS[data["rules"]].with_defaults(data["options"])  # saved before an option
        if code not in self._sound:  # once per process: a table that is another class's room, or nobody's
            foreign = [table for table in data["tables"] if self._classroom_of(table) not in (code, None)]
            if foreign:
                raise self._broken.refuse(code, f"tables of another: {foreign}")
            self._sound.add(code)
        return data

    def _classroom_of(self, table: str) -> str | None:
        """The class a room belongs to ("" for a room of no class); None when it is gone or does not load."""
        try:
            return self.rooms.load(table).classroom or ""
        except IllegalMove:
            return None

    def _save(self, data: dict, seated=()) -> None:
        data["version"] += 1
        data["touched"] = self.clock()
        self.store.save_class(data["code"], data)
        self.changed(data["code"], list(seated))

    def _exists(self, code: str) -> bool:
        try:
            return self.store.load_class(code) is not None
        except BrokenRow:
            return True  # its code is taken

    def load(self, code) -> dict:
        """The class as stored (read only)."""
        return self._found(normalize_class_code(code))

    # --- who is who ----------------------------------------------------------

    def create(self, rules=DEFAULT, size=DEFAULT_SIZE) -> dict:
        """A new class; the token is the teacher's."""
        rules = ruleset_name(DEFAULT if rules is None else rules)
        size = _size(size)
        token = secrets.token_urlsafe(24)
        data = {
            "rules": rules,
            "options": RULESETS[rules].default_options(),
            "size": size,
            "teacher": hash_token(token),
            "students": [],
            "tables": [],
            "seated": False,  # the teacher seated the class: newcomers sit down at once
            "closed": False,  # the teacher closed the class to newcomers
            "paused": False,  # the teacher paused every table
            "ends_at": None,  # the lesson's countdown (epoch seconds): then every table ends after its round
            "loaded": None,  # the hunt: {"table": the code whose dice the teacher loaded, "six", "revealed"}
            "version": 0,
            "touched": self.clock(),
        }
        with self._locks.guard:
            while True:
                code = new_code(CLASS_CODE_LENGTH)
                if not self._exists(code) and self.store.claim("class:" + code, CLAIM_SECONDS):
                    break
            data["code"] = code
            self._locks.made(code)
            self.store.save_class(code, data)
        return {"code": code, "token": token}

    def role(self, code, token) -> tuple[str, dict | None]:
        """("teacher", None) or ("student", the student) for a token, or IllegalMove `bad_token`."""
        data = self.load(code)
        if isinstance(token, str) and token:
            digest = hash_token(token)
            if secrets.compare_digest(data["teacher"], digest):
                return "teacher", None
            for student in data["students"]:
                if secrets.compare_digest(student["token_hash"], digest):
                    return "student", student
        raise IllegalMove("bad_token")

    def table_of(self, student: dict) -> str | None:
        """The code of the table where a student sits now (None: waiting for one)."""
        return self.store.find_token(student["token_hash"])

    def join(self, code, name) -> dict:
        """A student joins with a name; once the class is seated they sit down at once."""
        with self._locked(code) as data:
            name = clean_name(name)
            if data["closed"]:
                raise IllegalMove("class_closed")
            if len(data["students"]) >= MAX_STUDENTS:
                raise IllegalMove("class_full", limit=MAX_STUDENTS)
            twin = next((s for s in data["students"] if looks_like(name, s["name"])), None)
            if twin is not None:
                raise IllegalMove("name_taken", name=twin["name"])
            token = secrets.token_urlsafe(24)
            student = {"id": secrets.token_urlsafe(6), "name": name, "token_hash": hash_token(token)}
            data["students"].append(student)
            seated = self._seat_waiting(data) if data["seated"] else []
            self._save(data, seated)
        return {"student": student["id"], "token": token}

    # --- what the teacher does -------------------------------------------------

    def act(self, code, token, payload) -> None:
        """One action of the teacher: configure, seat, move, remove or start."""
        if self.role(code, token)[0] != "teacher":
            raise IllegalMove("not_teacher")
        if not isinstance(payload, dict):
            raise IllegalMove("action_object")
        action = payload.get("action")
        if not isinstance(action, str) or action not in self._TEACHER_MOVES:
            raise IllegalMove("unknown_action", action=str(action)[:20])
        with self._locked(code) as data:
            if data.get("paused") and action in ("start", "next", "countdown"):
                raise IllegalMove("resume_first")
            tables = list(data["tables"])
            try:
                seated = self._TEACHER_MOVES[action](self, data, payload) or []
            except IllegalMove:
                if data["tables"] != tables:  # refused halfway: the tables made before it stay the class's
                    self._save(data)
                raise
            self._save(data, seated)

    def _configure(self, data, payload):
        """The game of every table (those playing take it from their next game) and the table size."""
        rules, data["options"] = configured(payload, data["rules"], data["options"])
        data["rules"] = rules
        if "size" in payload:
            data["size"] = _size(payload["size"])
        for table in self._tables(data):
            if table.phase != "playing":  # those playing: at their next start
                self._give_game(data, table)

    def _give_game(self, data, table) -> None:
        """A table between games takes the class's game and options."""
        if (table.rules, table.options) != (data["rules"], data["options"]):
            change = {"action": "configure", "options": {"rules": data["rules"], **data["options"]}}
            self.rooms.act(table.code, table.host, change, teacher=True)

    def _seat(self, data, payload):
        """Everyone waiting sits down: at new tables of about the class's size, or the emptiest ones."""
        if not self._waiting(data):
            raise IllegalMove("nobody_waiting")
        data["seated"] = True
        return self._seat_waiting(data)

    def _seat_waiting(self, data) -> list[str]:
        waiting = self._waiting(data)
        if not waiting:
            return []
        tables = self._tables(data)
        if not tables:  # the first seating: even tables
            start = 0
            for count in split(len(waiting), data["size"]):
                self._new_table(data, waiting[start : start + count])
                start += count
        else:  # newcomers: the table with the fewest, or a new one when every table is full
            for student in waiting:
                table = min(self._tables(data), key=lambda t: len(t.members()), default=None)
                with contextlib.suppress(IllegalMove):  # one who cannot sit down waits; the others still do
                    if table is None or len(table.members()) >= MAX_TABLE:
                        self._new_table(data, [student])
                    else:
                        self.rooms.join(table.code, student["name"], student["token_hash"])
        return [s["id"] for s in waiting if self.table_of(s) is not None]

    def _new_table(self, data, students) -> str:
        if len(data["tables"]) >= MAX_TABLES:
            raise IllegalMove("tables_full", limit=MAX_TABLES)
        first, *others = students
        seat = self.rooms.create(first["name"], data["rules"], first["token_hash"], data["code"], data["options"])
        data["tables"].append(seat["code"])  # a table keeps its number (and its log) when everyone leaves it
        for student in others:
            self.rooms.join(seat["code"], student["name"], student["token_hash"])
        if data.get("paused"):  # a table opened while the class is paused waits with the others
            self.rooms.act(seat["code"], seat["player"], {"action": "pause"}, teacher=True)
        if data.get("ends_at") is not None:  # and keeps the lesson's time
            countdown = {"action": "countdown", "ends_at": data["ends_at"]}
            self.rooms.act(seat["code"], seat["player"], countdown, teacher=True)
        if data.get("loaded"):  # and holds its seeds back while the hunt runs; the hunt counts its dice
            self.rooms.hunt(seat["code"], not data["loaded"]["revealed"])
        return seat["code"]

    def _move(self, data, payload):
        """A student to another table (`table`: its code, or "new"); mid-game they leave that game."""
        student = self._student(data, payload.get("student"))
        target = payload.get("table")
        here = self.table_of(student)
        if target != "new":
            self._table(data, target)
        if target == here:
            return []
        if target != "new":
            self.rooms.load(target).admit(student["name"])  # refused before they leave their table
        self._unseat(student, here)
        if target == "new":
            self._new_table(data, [student])
        else:
            self.rooms.join(target, student["name"], student["token_hash"])
        return [student["id"]]

    def _remove(self, data, payload):
        """A student out of the class (and their table)."""
        student = self._student(data, payload.get("student"))
        self._unseat(student, self.table_of(student))
        data["students"].remove(student)

    def _close(self, data, payload):
        """Close the class to newcomers (`closed`: true), or open it again."""
        closed = payload.get("closed")
        if type(closed) is not bool:
            raise IllegalMove("closed_flag")
        data["closed"] = closed

    def _start(self, data, payload):
        """Every table that can starts a game."""
        if not self._startable(data):
            raise IllegalMove("nothing_to_start", low=RULESETS[data["rules"]].MIN_PLAYERS)
        self._start_all(data)

    def _next(self, data, payload):
        """Every table's game ends (ranked as it stands) and every table that can starts a new one."""
        tables = self._tables(data)
        if not any(t.phase == "playing" for t in tables) and not self._startable(data):
            raise IllegalMove("nothing_to_start", low=RULESETS[data["rules"]].MIN_PLAYERS)
        self._stop_all(tables)
        self._start_all(data)

    def _stop(self, data, payload):
        """Every table's game ends now, ranked as it stands (docs/rules.md §7); the countdown goes."""
        tables = self._tables(data)
        if not any(t.phase == "playing" for t in tables):
            raise IllegalMove("nothing_to_stop")
        self._stop_all(tables)
        self._counting(data, None)

    def _countdown(self, data, payload):
        """In `seconds` every table ends its game after its round (0: the countdown goes)."""
        seconds = payload.get("seconds")
        if seconds == 0:
            if data.get("ends_at") is None:
                raise IllegalMove("no_countdown")
            self._counting(data, None)
            return
        if type(seconds) is not int or not COUNTDOWN[0] <= seconds <= COUNTDOWN[1]:
            raise IllegalMove("countdown_seconds", low=COUNTDOWN[0], high=COUNTDOWN[1])
        if not any(t.phase == "playing" for t in self._tables(data)):
            raise IllegalMove("nothing_to_stop")
        self._counting(data, self.clock() + seconds)

    def _counting(self, data, ends_at) -> None:
        data["ends_at"] = ends_at
        for table in self._tables(data):
            if table.ends_at != ends_at:
                self.rooms.act(table.code, table.host, {"action": "countdown", "ends_at": ends_at}, teacher=True)

    def _startable(self, data, tables=None) -> list:
        """The tables with no game running and players enough for the class's game."""
        low = RULESETS[data["rules"]].MIN_PLAYERS
        tables = self._tables(data) if tables is None else tables
        return [t for t in tables if t.phase != "playing" and len(t.members()) >= low]

    def _start_all(self, data) -> None:
        up = data.get("ends_at") is not None and data["ends_at"] <= self.clock()
        if up:
            data["ends_at"] = None  # the time is up: the new games are not ended after their first round
        for table in self._startable(data):
            self._give_game(data, table)  # a change made while it played
            if up and table.ends_at is not None:  # (a table still in its last round keeps its end)
                self.rooms.act(table.code, table.host, {"action": "countdown", "ends_at": None}, teacher=True)
            self.rooms.act(table.code, table.host, {"action": "start"}, teacher=True)

    def _stop_all(self, tables) -> None:
        for table in tables:
            if table.phase == "playing":
                self.rooms.act(table.code, table.host, {"action": "stop"}, teacher=True)

    def _pause(self, data, payload):
        """Every table stops where it is: nobody acts until the teacher resumes."""
        self._pausing(data, True)

    def _resume(self, data, payload):
        """Every table goes on where it stopped."""
        self._pausing(data, False)

    def _pausing(self, data, paused: bool) -> None:
        if data.get("paused", False) == paused:
            raise IllegalMove("already_paused" if paused else "not_paused")
        data["paused"] = paused
        if paused:
            data["paused_at"] = self.clock()
        elif data.get("ends_at") is not None:  # the countdown waited with the tables: its end moves on
            self._counting(data, data["ends_at"] + self.clock() - data.pop("paused_at", self.clock()))
        for table in self._tables(data):
            if table.paused != paused:
                self.rooms.act(table.code, table.host, {"action": "pause" if paused else "resume"}, teacher=True)

    def _load(self, data, payload):
        """The hunt: one table's dice are loaded, secretly, from its next game on (`six`: how often a six)."""
        if data.get("loaded") is not None:
            raise IllegalMove("already_loaded")
        table = self._table(data, payload.get("table"))
        self.rooms.load_dice(table, payload.get("six"))
        for other in self._tables(
            data, empty=True
        ):  # their reveals hold back their seeds too: none tells which is loaded
            if other.code != table:
                self.rooms.hunt(other.code, True)
        data["loaded"] = {"table": table, "six": payload["six"], "revealed": False}
        for playing in self._tables(data):  # the hunt counts games begun from now on: the games in play end soon
            if playing.phase == "playing":
                self.rooms.act(playing.code, playing.host, {"action": "last_round"}, teacher=True)

    def _reveal(self, data, payload):
        """The class (and that table) is told which table's dice are loaded."""
        loaded = data.get("loaded")
        if loaded is None:
            raise IllegalMove("nothing_loaded")
        if loaded["revealed"]:
            raise IllegalMove("already_revealed")
        if self.rooms.exists(loaded["table"]):
            self.rooms.act(loaded["table"], self.rooms.load(loaded["table"]).host, {"action": "reveal"}, teacher=True)
        for other in self._tables(data, empty=True):
            if other.hunting:
                self.rooms.hunt(other.code, False)
        loaded["revealed"] = True

    _TEACHER_MOVES = {
        "configure": _configure,
        "seat": _seat,
        "move": _move,
        "remove": _remove,
        "start": _start,
        "next": _next,
        "stop": _stop,
        "countdown": _countdown,
        "close": _close,
        "pause": _pause,
        "resume": _resume,
        "load": _load,
        "reveal": _reveal,
    }

    def _unseat(self, student, code) -> None:
        if code is None:
            return
        room = self.rooms.load(code)
        seat = next((s for s in room.members() if s.token_hash == student["token_hash"]), None)
        if seat is not None:
            self.rooms.act(code, seat.id, {"action": "leave"}, teacher=True)  # paused or not: the teacher's move

    @staticmethod
    def _student(data, student_id) -> dict:
        student = next((s for s in data["students"] if s["id"] == student_id), None)
        if student is None:
            raise IllegalMove("no_such_student")
        return student

    def _table(self, data, code) -> str:
        """The code of one of the class's tables that is still there, or IllegalMove `no_such_table`."""
        if code not in data["tables"] or not self.rooms.exists(code):
            raise IllegalMove("no_such_table")
        return code

    def _waiting(self, data) -> list[dict]:
        return [s for s in data["students"] if self.table_of(s) is None]

    def _tables(self, data, empty: bool = False) -> list:
        """The class's tables in order: those with someone seated (`empty`: those everyone left too, kept
        for their results and their rolls until the sweep takes them)."""
        found = []
        for code in data["tables"]:
            try:
                table = self.rooms.load(code)
            except IllegalMove:
                continue
            if empty or table.members():
                found.append(table)
        return found

    # --- what the pages show ---------------------------------------------------

    def overview(self, code) -> dict:
        """The class with its tables (rooms), their numbers (from 1, kept for good) and who waits for a table."""
        data = self.load(code)
        tables = self._tables(data)
        numbers = {table: number for number, table in enumerate(data["tables"], 1)}
        where = {}
        for room in tables:
            for seat in room.members():
                if seat.token_hash:
                    where[seat.token_hash] = numbers[room.code]
        students = [{"id": s["id"], "name": s["name"], "table": where.get(s["token_hash"])} for s in data["students"]]
        waiting = [s for s in students if not s["table"]]
        return {
            **data,
            "tables": tables,
            "every_table": self._tables(data, empty=True),  # those everyone left too: their games and rolls
            "numbers": numbers,
            "roster": students,
            "waiting": waiting,
            "playing": [t for t in tables if t.phase == "playing"],
            "startable": self._startable(data, tables),
            "played": any(t.games for t in tables),  # a game was started at some table
        }

    def pooled(self, tables, power: bool = True) -> dict:
        """The statistics of `tables` together (a class's `every_table`), as the tables may see them."""
        counts = stats.new_counts()
        for room in tables:
            stats.merge(counts, room.counts)
        return stats.shown(counts, power)

    def faces_in_order(self, tables) -> tuple[list[int], list[int]]:
        """Every die of `tables`' games that are over (as far as their logs keep them), in the order rolled,
        and the looks: the dice so far at each game's last roll (a board looks again after every game)."""
        entries = []
        for room in tables:
            running = room.games if room.phase == "playing" else None
            log = self.store.room_log(room.code)
            entries += [
                (e["time"], room.code, e["game"], e["dice"]) for e in log if e["public"] and e["game"] != running
            ]
        entries.sort(key=lambda entry: entry[0])
        ends = set({(code, game): i for i, (_, code, game, _) in enumerate(entries)}.values())
        faces, looks = [], []
        for i, (*_, dice) in enumerate(entries):
            faces += dice
            if i in ends:
                looks.append(len(faces))
        return faces, looks

    def sweep(self, now: float | None = None) -> list[str]:
        """Drop classes untouched for `ttl` seconds whose tables are all gone."""
        cutoff = (self.clock() if now is None else now) - self.ttl  # `now`: a sweep's clock (locks.SweepClock)
        return sweep(self.store.classes(), lambda code: self._drop_idle(code, cutoff), "class")

    def _drop_idle(self, code: str, cutoff: float) -> bool:
        with self._locks.of(code), self.store.lock("class:" + code):
            data = self.store.load_class(code)
            if data is None or data["touched"] >= cutoff:
                return False
            if any(self.rooms.exists(table) for table in data["tables"]):
                return False
            self.store.delete_class(code)
        self._locks.drop(code)
        return True


def _size(size) -> int:
    if type(size) is not int or size not in TABLE_SIZES:
        raise IllegalMove("table_size", low=TABLE_SIZES[0], high=TABLE_SIZES[-1])
    return size


CLASS_ACTIONS = tuple(Classrooms._TEACHER_MOVES)  # what the teacher does
