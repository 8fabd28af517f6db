"""The statistics JSON of a lesson's hunt (GET /api/classes/<code>/stats, `hunt`) through Flask's test client."""

import math
import random

import pytest

from maxchen.dice import SeededDice
from maxchen.rooms import Rooms
from maxchen.server import create_app

from .test_classroom import play_out
from .test_openapi import Checked

HTMX = {"HX-Request": "true"}
STUDENTS = ("Ann", "Ben", "Cem", "Dora", "Eli", "Fay", "Gus", "Hana")
VERDICTS = {"few", "no_sign", "loaded"}


class Lesson:
    """A class of eight at two tables, its teacher's desk and a stranger reading the JSON (checked against
    docs/openapi.yaml)."""

    def __init__(self, seed):
        self.app = create_app({"TESTING": True, "ROOMS": Rooms(dice=SeededDice(seed)), "SECRET_KEY": "test"})
        self.classes = self.app.extensions["maxchen.classes"]
        self.teacher, self.stranger = self.app.test_client(), Checked(self.app.test_client())
        made = self.teacher.post("/classes", data={"rules": "maexchen", "size": "4"})
        self.code = made.headers["Location"].rsplit("/", 1)[1]
        for name in STUDENTS:  # the students join over the JSON API
            self.stranger.call("POST", "/api/classes/{code}/students", self.code, json={"name": name})
        self.desk("seat")
        self.tables = self.classes.overview(self.code)["tables"]
        self.rng = random.Random(seed)

    def desk(self, action, **form):
        """One form of the teacher's desk."""
        answer = self.teacher.post(f"/c/{self.code}/act", data={"action": action, **form}, headers=HTMX)
        assert answer.status_code == 200

    def play_a_game(self):
        """The teacher starts a game at every table; each is played out by honest bots."""
        self.desk("start")
        for table in self.tables:
            play_out(self.classes.rooms, table.code, self.rng)

    def stats(self) -> dict:
        return self.stranger.call("GET", "/api/classes/{code}/stats", self.code)

    def dice_of_last_game(self, table) -> int:
        """The dice of the table's last game, counted from its roll log (not from the statistics)."""
        room = self.classes.rooms.load(table.code)
        entries = [entry for entry in self.classes.rooms.store.room_log(table.code) if entry["game"] == room.games]
        assert entries and all(entry["public"] for entry in entries)  # the game is over: every roll counts
        return sum(len(entry["dice"]) for entry in entries)


def _told(faces: list[int], six: float) -> float:
    """The told loading's likelihood ratio against fair dice, by hand: a six `six` of the time, others alike."""
    sixes, others = faces[5], sum(faces[:5])
    return (6 * six) ** sixes * (6 * (1 - six) / 5) ** others


def _shape(value, key=None):
    """The JSON with every number, verdict and class code masked, lists as the set of their items' shapes:
    what would differ if the answer said more than its counts."""
    if isinstance(value, dict):
        return {k: _shape(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return sorted({repr(_shape(item, key)) for item in value})
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return "number"
    return "masked" if key in ("class", "verdict") else value


def test_the_hunt_counts_only_the_games_begun_since_it_started_and_tells_the_table_at_the_reveal():
    lesson = Lesson(4)
    one, two = lesson.tables
    # Before any hunt: every die of the games that are over, each table alone, no loading.
    lesson.play_a_game()
    hunt = lesson.stats()["hunt"]
    assert (hunt["running"], hunt["loading"], hunt["to_notice"], hunt["loaded"]) == (False, None, None, None)
    assert [row["table"] for row in hunt["tables"]] == [1, 2]
    assert all(row["dice"] == sum(row["faces"]) > 0 for row in hunt["tables"])

    # The teacher loads table 2 in secret. The fair games before the hunt do not count at any table.
    lesson.desk("load", table=two.code, six="1/2")
    hunt = lesson.stats()["hunt"]
    assert (hunt["running"], hunt["loading"], hunt["to_notice"], hunt["loaded"]) == (True, "1/2", 24, None)
    assert hunt["tables"] == [
        {"table": number, "dice": 0, "faces": [0] * 6, "verdict": "few", "evidence": 1.0} for number in (1, 2)
    ]

    # One more game at each table: exactly its dice count, and the evidence is the told loading's.
    lesson.play_a_game()
    hunt = lesson.stats()["hunt"]
    assert (hunt["running"], hunt["loaded"]) == (True, None)
    for row, table in zip(hunt["tables"], (one, two), strict=True):
        assert row["dice"] == sum(row["faces"]) == lesson.dice_of_last_game(table)
        assert row["evidence"] == pytest.approx(_told(row["faces"], 1 / 2), rel=1e-9)
        assert row["verdict"] == ("loaded" if row["evidence"] >= 20 else "few" if row["dice"] < 30 else "no_sign")

    # The reveal: the hunt is over, the JSON names the table, and the counts stay what they were.
    lesson.desk("reveal")
    revealed = lesson.stats()["hunt"]
    assert (revealed["running"], revealed["loading"], revealed["loaded"]) == (False, "1/2", 2)
    assert revealed["tables"] == hunt["tables"]


def test_before_the_reveal_the_json_does_not_tell_which_table_is_loaded():
    answers = {}
    for loaded in (1, 2):
        lesson = Lesson(7)  # the same seeds: the same games until the loading
        lesson.play_a_game()
        lesson.desk("load", table=lesson.tables[loaded - 1].code, six="1/3")
        lesson.play_a_game()
        answers[loaded] = lesson.stats()
    on_one, on_two = answers[1], answers[2]
    # The hunt: only each table's counts (and what follows from them) may differ; every other field is the same.
    counted = ("dice", "faces", "verdict", "evidence")
    hunts = [
        {**hunt, "tables": [{k: v for k, v in row.items() if k not in counted} for row in hunt["tables"]]}
        for hunt in (on_one.pop("hunt"), on_two.pop("hunt"))
    ]
    told = {"running": True, "loading": "1/3", "to_notice": 79, "tables": [{"table": 1}, {"table": 2}], "loaded": None}
    assert hunts[0] == hunts[1] == told
    # The rest pools every table: the same words, keys and flags, other counts.
    assert _shape(on_one) == _shape(on_two)


def test_a_tables_own_statistics_json_gives_the_evidence_and_its_verdict():
    lesson = Lesson(9)
    lesson.play_a_game()
    for table in lesson.tables:
        numbers = lesson.stranger.call("GET", "/api/rooms/{code}/stats", table.code)
        test = numbers["dice"]["values"]
        assert test["verdict"] in VERDICTS and math.isfinite(test["evidence"]) and test["evidence"] >= 0
        below = "few" if test["total"] < test["needed"] else "no_sign"
        assert test["verdict"] == ("loaded" if test["evidence"] >= 20 else below)
        assert (test["chi2"] is None) == (test["p"] is None) == (test["total"] < test["needed"])


def test_the_documents_loadings_are_the_tables():
    from maxchen.table import LOADINGS

    from .test_openapi import _at

    told, none = _at("#/components/schemas/Hunt/properties/loading")["oneOf"]
    assert (told["enum"], none) == (list(LOADINGS), {"type": "null"})
