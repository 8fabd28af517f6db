"""scripts/check_fair.py on the CSVs of real games: honest ones of every rule set pass, a class's hunt too;
forged ones fail (weights chosen per row, seeds blanked, columns that contradict the dice). A loaded cup's
commit binds its weights: changed after the fact, they fail every checker."""

import csv
import io
import random

import pytest

from maxchen import fair
from maxchen.dice import ReplayDice
from maxchen.rooms import Rooms
from maxchen.rulesets import RULESETS
from maxchen.server import create_app

from .conftest import ROOT
from .test_classroom import play_out
from .test_fair import CHECK, CHECK_KEYS, _play

HTMX = {"HX-Request": "true"}
STUDENTS = ("Ann", "Ben", "Cem", "Dora", "Eli", "Fay", "Gus", "Hana")


def _app(seed):
    """The app over rooms whose dice are read from their seeds as in production, the seeds drawn from `seed`."""
    rooms = Rooms(dice=ReplayDice(seed))
    return create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test"}), rooms


def _rows(response) -> tuple[list[str], list[dict]]:
    """A downloaded CSV: its header and its rows."""
    text = response.get_data(as_text=True).lstrip("\ufeff")
    reader = csv.DictReader(io.StringIO(text))
    return reader.fieldnames, list(reader)


def _verdict(tmp_path, header, rows, capsys) -> tuple[int, str]:
    """What scripts/check_fair.py says of these rows, written as a CSV file."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header)
    writer.writeheader()
    writer.writerows(rows)
    path = tmp_path / "forged.csv"
    path.write_text("\ufeff" + out.getvalue(), encoding="utf-8")
    status = CHECK.main([str(path)])
    return status, capsys.readouterr().out


def room_csv(rules, games=2, old_cup=False):
    """A room of three that played `games` whole games of `rules` (every shake with the phone's own seed), as
    its statistics page's CSV. `old_cup`: the first cup was rolled before the seeds (saved with a seal)."""
    app, rooms = _app(rules)
    rng = random.Random(rules)
    host = rooms.create("Ann", rules)
    code = host["code"]
    seats = [host] + [rooms.join(code, name) for name in ("Ben", "Cem")]
    for game in range(games):
        rooms.act(code, host["player"], {"action": "start"})
        if old_cup and game == 0:
            _seal_the_first_cup(rooms, code, host["player"])
        _play(rooms, code, seats, rng, {})
    return _rows(app.test_client().get(f"/r/{code}/stats.csv"))


def _seal_the_first_cup(rooms, code, player):
    """Ann shakes, and her cup is saved as before the seeds: a seal of its dice and a salt, no record."""
    rooms.act(code, player, {"action": "shake"})
    data = rooms.store.load(code)
    game = data["game"]
    salt = "00112233445566778899aabbccddeeff"
    cups = game.get("cups")
    if cups is None:
        game["seal"] = {"salt": salt, "commitment": fair.commitment(game["cup"], salt)}
        game["record"] = game["pending"] = None
    else:
        game["seals"] = {player: {"salt": salt, "commitment": fair.commitment(cups[player], salt)}}
        del game["records"][player]
    rooms.store.save(code, data)


def class_csv(rules, reveal=True, seed=0):
    """A class of eight at two tables of `rules`: a fair game at both, then the teacher loads table 2 (a six
    a third of the time) and both play another; revealed or not. The class's CSV."""
    app, _ = _app(f"{rules}{seed}")
    classes = app.extensions["maxchen.classes"]
    teacher = app.test_client()
    made = teacher.post("/classes", data={"rules": rules, "size": "4"})
    code = made.headers["Location"].rsplit("/", 1)[1]
    for name in STUDENTS:
        app.test_client().post(f"/c/{code}/join", data={"name": name})
    teacher.post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX)
    tables = classes.overview(code)["tables"]
    rng = random.Random(seed)
    for game in range(2):
        if game == 1:
            load = {"action": "load", "table": tables[1].code, "six": "1/3"}
            assert teacher.post(f"/c/{code}/act", data=load, headers=HTMX).status_code == 200
        teacher.post(f"/c/{code}/act", data={"action": "start"}, headers=HTMX)
        for table in tables:
            play_out(classes.rooms, table.code, rng)
    if reveal:
        teacher.post(f"/c/{code}/act", data={"action": "reveal"}, headers=HTMX)
    return _rows(app.test_client().get(f"/c/{code}/stats.csv"))


@pytest.fixture(scope="module")
def maexchen_csv():
    return room_csv("maexchen")


@pytest.fixture(scope="module")
def hunt_csv():
    return class_csv("maexchen")


# --- honest CSVs pass ---------------------------------------------------------


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_an_honest_rooms_csv_passes_with_every_cup_checked(rules, tmp_path, capsys):
    header, rows = room_csv(rules)
    assert header[-1] == "unchecked" and rows and all(row["unchecked"] == "" for row in rows)
    status, said = _verdict(tmp_path, header, rows, capsys)
    assert status == 0 and f"{len(rows)} cups checked: all {len(rows)} hold\n" == said, said


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_an_honest_class_csv_of_a_revealed_hunt_passes_its_loaded_cups_too(rules, tmp_path, capsys):
    header, rows = class_csv(rules)
    loaded = [row for row in rows if row["loaded"]]
    # Table 2 from its second game on: a six a third of the time, its weights in every cup's record.
    assert loaded and {(row["table"], row["game"], row["loaded"]) for row in loaded} == {("2", "2", "1/3")}
    assert all(row["weights"] == "2 2 2 2 2 5" for row in loaded)
    assert all(row["weights"] == "" for row in rows if not row["loaded"])
    status, said = _verdict(tmp_path, header, rows, capsys)
    assert status == 0 and said == f"{len(rows)} cups checked: all {len(rows)} hold\n", said


def test_while_a_hunt_runs_its_cups_are_not_checked_never_held_to_hold(tmp_path, capsys):
    header, rows = class_csv("poschen", reveal=False)
    assert rows and all(row["unchecked"] == "held" and not row["server_seed"] for row in rows)
    status, said = _verdict(tmp_path, header, rows, capsys)
    assert status == 1 and "do not" not in said
    assert (
        said == f"0 cups checked; {len(rows)} not checked: no server seed ({len(rows)} held back by a running hunt)\n"
    )
    # A row that tells its seed while the others are held: not what a hunt does.
    told = [dict(row) for row in rows]
    told[0]["unchecked"] = ""
    told[0]["server_seed"] = "0" * 64
    status, said = _verdict(tmp_path, header, told, capsys)
    assert status == 1 and "line 2" in said


def test_a_hunt_holds_every_tables_seeds_or_none(tmp_path, capsys):
    """Revealed, a hunt's every cup shows its seeds; a table's first game, fair at both, held at one table only
    while the other shows its seeds: a server hiding one table's dice, not a hunt."""
    header, rows = class_csv("maexchen", reveal=True)
    first = [row for row in rows if row["game"] == "1"]
    hidden = [
        {**row, "server_seed": "", "weights": "", "unchecked": "held"} if row["table"] == "2" else row for row in first
    ]
    status, said = _verdict(tmp_path, header, hidden, capsys)
    assert status == 1 and "while another table's cups show their seeds" in said, said


def test_a_cup_rolled_before_the_seeds_is_marked_so_and_not_checked(tmp_path, capsys):
    header, rows = room_csv("maexchen", games=1, old_cup=True)
    old = [row for row in rows if row["unchecked"]]
    assert [row["unchecked"] for row in old] == ["before_seeds"] and not old[0]["commit"]
    status, said = _verdict(tmp_path, header, rows, capsys)
    seeded = len(rows) - 1
    assert status == 0 and said.endswith(
        f"all {seeded} hold; 1 not checked: no server seed (1 rolled before the seeds)\n"
    )
    # Marked so after a cup of the table with seeds: the seeds existed then.
    late = [*rows[1:], rows[0]]
    late[-1] = {**late[-1], "game": "2"}
    status, said = _verdict(tmp_path, header, late, capsys)
    assert status == 1 and "after a cup of its table with seeds" in said


# --- forged CSVs fail ---------------------------------------------------------


def test_weights_chosen_per_row_after_the_players_seed_fail(maexchen_csv, tmp_path, capsys):
    """The forgery of issue 43: a room never loaded, each row's dice rolled again with whichever hunt loading
    gives the higher value (its `value` left as it was): caught, whatever the dice."""
    header, rows = maexchen_csv
    forged, changed = [], 0
    for row in rows:
        seeds = [row[key] for key in CHECK_KEYS]
        best = max(
            (CHECK.roll(*seeds, 2, weights), weights) for weights in CHECK.LOADINGS.values()
        )  # the highest dice of the three
        if sorted(best[0]) > sorted(map(int, row["dice"].split())):
            row = {
                **row,
                "dice": " ".join(map(str, sorted(best[0], reverse=True))),
                "weights": " ".join(map(str, best[1])),
            }
            changed += 1
        forged.append(row)
    assert changed
    status, said = _verdict(tmp_path, header, forged, capsys)
    assert status == 1 and f"{changed} do not" in said and "at a table told of no loading" in said, said
    # Told a loading as well (a class's CSV), each cup rolled again with it: the commit still says fair dice.
    told = []
    for row in rows:
        again = CHECK.roll(*(row[key] for key in CHECK_KEYS), 2, (1, 1, 1, 1, 1, 5))
        dice = " ".join(map(str, sorted(again, reverse=True)))
        told.append({**row, "table": "1", "loaded": "1/2", "weights": "1 1 1 1 1 5", "dice": dice})
    told = [{**row, "value": str(CHECK.value_of(map(int, row["dice"].split())))} for row in told]
    status, said = _verdict(tmp_path, ["table", *header, "loaded"], told, capsys)
    assert status == 1 and "does not give the commit (with its weights)" in said, said


def test_a_number_written_another_way_or_a_cup_used_twice_fails(maexchen_csv, tmp_path, capsys):
    """The room, game, round and seat go into the dice's message as written: "03" for 3 would give the server
    another roll of the same cup to choose from. A cup's seeds are its own: a row copied fails."""
    header, rows = maexchen_csv
    for key, written in (("round", "0{}"), ("seat", "0{}"), ("game", "{}.0"), ("room", "{}x")):
        forged = [{**row, key: written.format(row[key])} if i == 0 else row for i, row in enumerate(rows)]
        status, said = _verdict(tmp_path, header, forged, capsys)
        assert status == 1 and "line 2 " in said and key in said, (key, said)
    status, said = _verdict(tmp_path, header, [*rows, rows[0]], capsys)
    assert status == 1 and "the commit of line 2 again" in said, said
    roomless = [{key: value for key, value in row.items() if key != "room"} for row in rows]
    assert _verdict(tmp_path, [h for h in header if h != "room"], roomless, capsys)[0] == 2  # no traceback


def test_seeds_blanked_fail_and_only_a_mark_makes_them_not_checked(maexchen_csv, tmp_path, capsys):
    header, rows = maexchen_csv
    blanked = [{**row, "server_seed": ""} for row in rows[:-1]] + rows[-1:]
    status, said = _verdict(tmp_path, header, blanked, capsys)
    assert status == 1 and f"{len(rows)} cups checked: 1 hold, {len(rows) - 1} do not" in said
    assert "no server seed, and not marked as rolled before the seeds or held by a hunt" in said
    # Marked as rolled before the seeds while they carry a commit; or held in a room's CSV (no class, no hunt).
    for mark, why in (("before_seeds", "but it has seeds"), ("held", "no class's CSV")):
        status, said = _verdict(tmp_path, header, [{**row, "unchecked": mark} for row in blanked], capsys)
        assert status == 1 and why in said, said


@pytest.mark.parametrize(
    ("rules", "column", "value", "why"),
    [
        ("maexchen", "value", "21", "the value"),
        ("maexchen", "outcome", "flip", "lie"),
        ("maexchen", "lie", "flip", "lie"),
        ("poschen", "value", "66", "the value"),
        # A count that no longer fits the round's cups; or, where a row's too_high reads that count, that row.
        ("luegen", "table_count", "+1", ("the table counted", "beside")),
        ("luegen", "too_high", "flip", "too_high"),
        ("perudo", "value", "+1", ""),
        ("perudo", "outcome", "flip", "too_high"),
    ],
)
def test_a_column_that_contradicts_the_dice_fails(rules, column, value, why, tmp_path, capsys):
    """One cell changed (`table_count`: the whole round's, as it is the table's)."""
    header, rows = room_csv(rules, games=1)
    line, row = next(
        (i, r)
        for i, r in enumerate(rows)
        if r["outcome"] in ("true", "lie", "too_high") and r[column] not in ("", value) and r["value"] != "21"
    )
    if value == "flip":
        flips = {"true": "lie", "lie": "true", "0": "1", "1": "0"}
        if rules in ("luegen", "perudo"):
            flips = {"true": "too_high", "too_high": "true", "0": "1", "1": "0"}
        value = flips[row[column]]
    elif value == "+1":
        value = str(int(row[column]) + 1)
    same = [(r["game"], r["round"]) == (row["game"], row["round"]) for r in rows] if column == "table_count" else None
    forged = [{**r, column: value} if (same[i] if same else i == line) else r for i, r in enumerate(rows)]
    first = same.index(True) if same else line
    status, said = _verdict(tmp_path, header, forged, capsys)
    whys = why if isinstance(why, tuple) else (why,)
    assert status == 1 and any(w in said for w in whys) and (not why or f"line {first + 2}" in said), said


# --- the commit binds a loaded cup's weights --------------------------------


def test_a_loaded_cups_commit_binds_its_weights(hunt_csv, tmp_path, capsys):
    """The commit shown before the shake covers the weights: a record whose weights are changed after the fact
    (its dice rolled again with them) opens no commit, in maxchen/fair.py and in scripts/check_fair.py."""
    header, rows = hunt_csv
    line, row = next((i, r) for i, r in enumerate(rows) if r["weights"])
    record = {**{key: row[key] for key in CHECK_KEYS}, "commit": row["commit"]}
    record.update(game=int(row["game"]), round=int(row["round"]), seat=int(row["seat"]))
    record["weights"] = [int(w) for w in row["weights"].split()]
    dice = [int(die) for die in row["dice"].split()]
    assert fair.check(record, dice, "1/3") is True
    assert fair.commit_of(record["server_seed"], record["weights"]) == row["commit"]
    assert fair.commit_of(record["server_seed"]) != row["commit"]  # not the fair cup's
    for six in ("1/4", "1/2"):
        moved = {**record, "weights": list(fair.weights(six))}
        assert fair.check(moved, fair.faces(moved, len(dice)), six) is False
    # The same in the CSV: the whole table told another loading, each cup's dice rolled with it.
    forged = []
    for other in rows:
        if other["weights"]:
            other = {**other, "loaded": "1/2", "weights": "1 1 1 1 1 5"}
            again = CHECK.roll(*(other[key] for key in CHECK_KEYS), len(other["dice"].split()), (1, 1, 1, 1, 1, 5))
            other["dice"] = " ".join(map(str, sorted(again, reverse=True)))
            other["value"] = str(CHECK.value_of(again))
        forged.append(other)
    status, said = _verdict(tmp_path, header, forged, capsys)
    assert status == 1 and f"line {line + 2}" in said and "does not give the commit (with its weights)" in said
    # A loaded cup shown without its weights, or one of another table with them.
    for change in ({"weights": ""}, {"loaded": ""}):
        status, said = _verdict(tmp_path, header, [*rows[:line], {**row, **change}, *rows[line + 1 :]], capsys)
        assert status == 1 and f"line {line + 2}" in said, said


def test_a_pending_loaded_cup_commits_to_its_weights_before_the_shake():
    from maxchen.dice import LoadedDice, Placed
    from maxchen.rulesets.maexchen.game import MaexchenGame

    dice = Placed(LoadedDice("1/4", ReplayDice(3)), "ROOM", 2)
    game = MaexchenGame(["ann", "ben"], dice=dice)
    before = game.pending
    assert before["weights"] == [3, 3, 3, 3, 3, 5] and before["commit"] == fair.commit_of(
        before["seed"], (3,) * 5 + (5,)
    )
    assert "weights" not in game.view_for("ben")["fair"]  # secret until the reveal, as the seed
    game.apply("ann", "shake", {"seed": "ab" * 16})
    assert game.record["weights"] == [3, 3, 3, 3, 3, 5] and game.record["commit"] == before["commit"]
    assert fair.check(game.record, game.cup, "1/4") is True


def test_the_worked_example_of_a_loaded_cup_in_the_docs():
    weights = fair.weights("1/4")
    record = {**fair.EXAMPLE, "weights": list(weights)}
    commit = fair.commit_of(record["server_seed"], weights)
    assert commit == CHECK.commit(record["server_seed"], weights) != fair.commit_of(record["server_seed"])
    assert fair.faces(record, 2) == [3, 5] and fair.faces(record, 5) == [3, 5, 6, 4, 6]
    docs = (ROOT / "docs" / "API.md").read_text()
    assert all(text in docs for text in (record["server_seed"] + ":3,3,3,3,3,5", commit, "5-3 (53)", "6-6-5-4-3"))
