"""Dice against theory: shares, χ² and p-values checked against hand sums and printed tables."""

import random
from fractions import Fraction

import pytest

from maxchen import stats
from maxchen.rules import two_dice as rules
from maxchen.rulesets import REGISTRY


def test_the_ladders_shares_sum_to_one_with_doubles_half_as_likely():
    shares = stats.theory("values")
    assert list(shares) == list(rules.VALUES)  # ladder order, 31 first, Mäxchen last
    assert sum(shares.values()) == 1
    assert shares[31] == shares[65] == shares[21] == Fraction(2, 36)
    assert shares[11] == shares[66] == Fraction(1, 36)
    assert sum(stats.theory("faces").values()) == 1


@pytest.mark.parametrize(
    ("value", "at_least", "beats"),
    [
        (31, Fraction(1), Fraction(34, 36)),  # anything is at least 31; 31 itself does not beat it
        (65, Fraction(10, 36), Fraction(8, 36)),  # the six doubles and Mäxchen beat 65: 6 × 1/36 + 2/36
        (66, Fraction(2, 36) + Fraction(1, 36), Fraction(2, 36)),
        (21, Fraction(2, 36), Fraction(0)),
    ],
)
def test_the_odds_of_a_fresh_roll_on_the_ladder(value, at_least, beats):
    assert stats.at_least(value) == at_least
    assert stats.beats(value) == beats


# Critical values from a printed χ² table (e.g. NIST/SEMATECH e-Handbook, 1.3.6.7.4).
@pytest.mark.parametrize(
    ("df", "critical", "p"),
    [
        (1, 3.841, 0.05),
        (1, 6.635, 0.01),
        (2, 5.991, 0.05),
        (3, 7.815, 0.05),
        (4, 13.277, 0.01),
        (5, 11.070, 0.05),
        (5, 20.515, 0.001),
        (20, 31.410, 0.05),
        (20, 37.566, 0.01),
        (20, 45.315, 0.001),
    ],
)
def test_p_values_match_the_printed_table(df, critical, p):
    assert stats.p_value(critical, df) == pytest.approx(p, rel=2e-3)


def test_the_tail_of_two_degrees_of_freedom_is_e_to_minus_half_x():
    for x in (0.5, 2.0, 10.0):
        assert stats.p_value(x, 2) == pytest.approx(2.718281828459045 ** (-x / 2))
    assert stats.p_value(0, 5) == 1.0


def test_chi_square_of_faces_by_hand():
    # 60 throws, 10 expected per face: (14-10)² + (6-10)² over 10 = 3.2; the other four on target.
    observed = {1: 14, 2: 6, 3: 10, 4: 10, 5: 10, 6: 10}
    result = stats.test(observed, "faces")
    assert result["chi2"] == pytest.approx(3.2)
    assert result["df"] == 5 and result["total"] == 60
    assert result["verdict"] == "no_sign"  # no evidence against fair dice, which is not evidence for them
    assert [row["observed"] for row in result["rows"]] == [14, 6, 10, 10, 10, 10]
    assert [row["expected"] for row in result["rows"]] == [10.0] * 6


def test_a_loaded_die_is_called_loaded_and_few_throws_get_no_chi_square_at_all():
    loaded = stats.test({6: 300, 1: 20, 2: 20, 3: 20, 4: 20, 5: 20}, "faces")
    assert loaded["verdict"] == "loaded" and loaded["evidence"] > 1e6 and loaded["p"] < 1e-100
    few = stats.test({6: 3, 1: 2}, "faces")
    assert (few["verdict"], few["chi2"], few["p"], few["needed"]) == ("few", None, None, 30)  # 30 × 1/6 = 5
    # Two dice: 180 rolls put 5 on each double: enough to read; one fewer is not.
    fair = {value: int(180 * stats.value_chance(value)) for value in rules.VALUES}
    result = stats.test(fair, "values")
    assert result["chi2"] == 0 and result["p"] == 1.0 and result["verdict"] == "no_sign" and result["df"] == 20
    assert result["evidence"] < 1  # every face exactly a sixth: the dice look fairer than loaded
    fair[31] -= 1
    assert stats.test(fair, "values")["chi2"] is None and stats.test(fair, "values")["needed"] == 180


def test_a_verdict_reads_the_evidence_of_the_single_dice_whatever_the_kind():
    from maxchen import evidence

    values = {65: 40, 66: 30, 21: 10, 31: 20}
    assert stats.dice_of(values, "values") == {1: 30, 2: 10, 3: 20, 4: 0, 5: 40, 6: 100}
    result = stats.test(values, "values")
    assert result["evidence"] == pytest.approx(evidence.evidence(stats.dice_of(values, "values")))
    assert result["verdict"] == "loaded"  # a hundred sixes of 200 dice


# --- every figure against scipy.stats, computed another way ---


@pytest.mark.parametrize("df", [1, 2, 4, 5, 19, 20])
def test_p_values_agree_with_scipy(df):
    import scipy.stats as scipy

    for x in (0.3, 1.0, 5.0, 11.07, 31.41, 60.0, 120.0):
        assert stats.p_value(x, df) == pytest.approx(scipy.chi2.sf(x, df), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("kind", ["values", "faces"])
def test_the_power_line_holds_for_the_verdict_on_real_loaded_dice(kind):
    # Against the verdict itself, drawn another way (Python's random, not numpy): one die of each roll (or
    # each die, single dice) shows a six a quarter of the time; at `to_notice` rolls, 8 times in 10.
    rng = random.Random(7)
    n = stats.test({}, kind)["to_notice"]
    assert n == {"values": 1056, "faces": 520}[kind]  # the seeded simulation's figures (bench/README.md)
    loaded = [3] * 5 + [5]  # weights of faces 1..6: a six 5 times in 20
    noticed = 0
    for _ in range(300):
        observed: dict[int, int] = {}
        for _ in range(n):
            first = rng.choices(range(1, 7), loaded)[0]
            key = rules.value_of([first, rng.randint(1, 6)]) if kind == "values" else first
            observed[key] = observed.get(key, 0) + 1
        noticed += stats.test(observed, kind)["verdict"] == "loaded"
    assert 0.73 <= noticed / 300 <= 0.87  # 0.8 in theory; ±3 standard errors of 300 samples


def test_a_two_dice_value_counts_as_its_two_faces():
    counts = stats.new_counts()
    counts["values"] = {"21": 3, "63": 2, "55": 1}
    assert stats.faces_of(counts) == {1: 3, 2: 3, 3: 2, 4: 0, 5: 2, 6: 2}
    counts = stats.new_counts()
    counts["faces"] = {"6": 4, "1": 1}
    assert stats.faces_of(counts) == {1: 1, 2: 0, 3: 0, 4: 0, 5: 0, 6: 4}


def test_the_hunt_table_per_face_residuals_evidence_and_false_alarm_line():
    import scipy.stats as scipy

    observed = [10, 12, 9, 11, 8, 22]
    loaded = dict(zip(range(1, 7), observed, strict=True))
    fair = dict.fromkeys(range(1, 7), 12)
    hunt = stats.hunt([(1, fair), (2, loaded), (3, dict.fromkeys(range(1, 7), 0))], Fraction(1, 4))
    row = hunt["rows"][1]
    chi2 = scipy.chisquare(observed).statistic
    assert sum(cell["z"] ** 2 for cell in row["cells"]) == pytest.approx(chi2)  # each face's part of χ²
    assert [c["observed"] for c in row["cells"]] == observed and row["dice"] == 72
    # The told loading's likelihood ratio, by hand: each six 1/4 ÷ 1/6, each other face 3/20 ÷ 1/6.
    assert row["evidence"] == pytest.approx(1.5**22 * 0.9**50)
    assert hunt["rows"][0]["evidence"] == pytest.approx(1.5**12 * 0.9**60)
    assert hunt["rows"][2] == {**hunt["rows"][2], "dice": 0, "evidence": 1.0, "verdict": "few"}
    assert hunt["to_notice"] == 283  # exact (tests/test_evidence.py)
    # Two fair tables (nobody knows which two): each reaches 20 to 1 at some look less than 1 time in 20.
    assert hunt["fair_tables"] == 2 and hunt["false_alarm"] == pytest.approx(1 - 0.95**2)
    plain = stats.hunt([(1, fair), (2, loaded), (3, fair)])  # no loading: every table is fair for all we know
    assert plain["fair_tables"] == 3 and plain["to_notice"] is None
    assert plain["rows"][1]["evidence"] == pytest.approx(stats.test(loaded, "faces")["evidence"])


def test_loaded_dice_show_a_six_as_often_as_stated():
    import scipy.stats as scipy

    from maxchen.dice import LoadedDice, SeededDice

    rolled = LoadedDice(Fraction(1, 3), SeededDice(5)).roll(6000)
    shares = [Fraction(2, 15)] * 5 + [Fraction(1, 3)]
    observed = [rolled.count(face) for face in range(1, 7)]
    assert scipy.chisquare(observed, [6000 * float(p) for p in shares]).pvalue > 0.001


# --- is this claim true? ---


def test_a_claims_chance_to_be_true_by_counting_the_36_rolls():
    # The model played out on every roll of two dice: announce the roll if it beats the one before, else the
    # smallest value that does. Among the rolls announced as a claim, the share that were that claim.
    assert stats.claim_true(63, 62) == Fraction(1, 12) and stats.at_least(63) == Fraction(7, 18)  # issue 23's example
    for previous in (None, *[v for v in rules.VALUES if v != rules.MAEXCHEN]):
        higher = [v for v in rules.VALUES if rules.is_higher(v, previous)]
        said = {v: [0, 0] for v in higher}  # announced, of them true
        for a in range(1, 7):
            for b in range(1, 7):
                roll = rules.value_of((a, b))
                claim = roll if rules.is_higher(roll, previous) else min(higher, key=rules.rank)
                said[claim][0] += 1
                said[claim][1] += claim == roll
        for claim, (announced, true) in said.items():
            assert stats.claim_true(claim, previous) == Fraction(true, announced), (claim, previous)
    with pytest.raises(ValueError):
        stats.claim_true(31, 62)  # no claim falls below the one before


# --- the dice over time ---


def test_the_running_share_band_p_value_and_evidence_computed_another_way():
    import scipy.stats as scipy

    from maxchen import evidence

    rng = random.Random(4)
    faces = [rng.randint(1, 6) for _ in range(1000)]
    run = stats.running(faces, points=50, looks=[100, 250, 1000, 1200])
    assert run["total"] == 1000 and run["theory"] == pytest.approx(1 / 6) and len(run["points"]) == 50
    assert [pt["n"] for pt in run["points"]] == [20 * i for i in range(1, 51)]
    for pt in run["points"]:
        n, seen = pt["n"], faces[: pt["n"]]
        assert pt["share"] == seen.count(6) / n
        # The band: the counts whose exact (Clopper–Pearson) 95 % interval holds a sixth.
        inside = _clopper_pearson_holds_a_sixth(n)
        assert (pt["low"], pt["high"]) == (inside[0] / n, inside[-1] / n)
        counts = [seen.count(f) for f in range(1, 7)]
        assert pt["evidence"] == pytest.approx(evidence.evidence(dict(zip(range(1, 7), counts, strict=True))))
        if n < 30:
            assert pt["p"] is None  # no test before 5 dice are expected of each face
        else:
            assert pt["p"] == pytest.approx(scipy.chisquare(counts).pvalue)
    assert run["looks"] == 3 and run["dips"] == evidence.dips((100, 250, 1000))  # a look past the dice is none
    assert stats.running([]) is None


def _clopper_pearson_holds_a_sixth(n: int) -> list[int]:
    """The counts k of n whose exact 95 % interval (beta quantiles: Clopper–Pearson) holds 1/6."""
    import numpy as np
    import scipy.stats as scipy

    k = np.arange(n + 1)
    low = np.where(k == 0, 0.0, scipy.beta.ppf(0.025, np.maximum(k, 1), n - k + 1))
    high = np.where(k == n, 1.0, scipy.beta.ppf(0.975, k + 1, np.maximum(n - k, 1)))
    return [int(i) for i in k[(low <= 1 / 6) & (high >= 1 / 6)]]


# --- a room's counts: what the table may know, and when ---


def test_the_dice_are_judged_on_games_that_are_over_and_checked_cups_are_shown_apart():
    from maxchen.dice import FixedDice
    from maxchen.rooms import Rooms

    rooms = Rooms(dice=FixedDice([(4, 1), (5, 2), (6, 6)]))
    ann = rooms.create("Ann")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    cem = rooms.join(code, "Cem")
    rooms.act(code, ann["player"], {"action": "start"})

    def shown():
        return stats.shown(rooms.load(code).counts)

    # Ann's 4-1 behind a "62": Ben believes. Nothing the table may know yet.
    rooms.act(code, ann["player"], {"action": "shake"})
    rooms.act(code, ann["player"], {"action": "announce", "value": 62})
    rooms.act(code, ben["player"], {"action": "believe"})
    before = shown()
    assert (before["values"], before["checked_values"], before["ladder"], before["checks"]) == (None, None, [], 0)
    # Ben's 5-2 behind a "63": Cem checks. A lie, caught, at 63 on the ladder.
    rooms.act(code, ben["player"], {"action": "shake"})
    rooms.act(code, ben["player"], {"action": "announce", "value": 63})
    rooms.act(code, cem["player"], {"action": "check"})
    now = shown()
    assert (now["checks"], now["lies"]) == (1, 1)
    assert now["ladder"] == [{"value": 63, "checks": 1, "lies": 1, "announced": 0, "untrue": 0}]
    # The checked cup is this game's checked sample, never in the test of the dice while the game runs.
    assert now["values"] is None
    assert now["checked_values"]["total"] == 1
    assert [r["key"] for r in now["checked_values"]["rows"] if r["observed"]] == [52]
    # Ben opens again: a true 66, checked by Cem: a check that found no lie.
    rooms.act(code, ben["player"], {"action": "shake"})
    rooms.act(code, ben["player"], {"action": "announce", "value": 66})
    rooms.act(code, cem["player"], {"action": "check"})
    now = shown()
    assert (now["checks"], now["lies"], now["values"]) == (2, 1, None)
    assert [row["value"] for row in now["ladder"]] == [63, 66]  # ladder order
    assert now["ladder"][1] == {"value": 66, "checks": 1, "lies": 0, "announced": 0, "untrue": 0}
    # The game ends: every roll counts now, the believed 62 too (a lie the table may know now, never as
    # a check), and the checked sample starts again with the next game.
    for seat in (ben, cem):
        rooms.act(code, seat["player"], {"action": "leave"})
    after = shown()
    assert (after["checks"], after["lies"], after["announced"], after["untrue"]) == (2, 1, 3, 2)
    assert after["ladder"][0] == {"value": 62, "checks": 0, "lies": 0, "announced": 1, "untrue": 1}
    assert after["values"]["total"] == 3 and after["checked_values"] is None
    assert after["values"]["verdict"] == "few" and after["values"]["chi2"] is None


def test_luegen_doubts_count_right_and_wrong_by_the_bids_count():
    from maxchen.dice import FixedDice
    from maxchen.rooms import Rooms

    # Round 1: Ann bids four fives on 5-1-2, 5-3-3, 6-4-2 (three there): Cem's doubt is right.
    # Round 2 (Ann opens): two threes on 3-3-2, 4-1-2, 6-6-6 (three there): Ben's doubt is wrong.
    rooms = Rooms(dice=FixedDice([[5, 1, 2], [5, 3, 3], [6, 4, 2], [3, 3, 2], [4, 1, 2], [6, 6, 6]]))
    seats = [rooms.create("Ann", "luegen")]
    code = seats[0]["code"]
    seats += [rooms.join(code, name) for name in ("Ben", "Cem")]
    ann, ben, cem = (seat["player"] for seat in seats)
    rooms.act(code, ann, {"action": "start"})
    for bid, doubter in (((4, 5), cem), ((2, 3), ben)):
        for player in (ann, ben, cem):
            rooms.act(code, player, {"action": "shake"})
        rooms.act(code, ann, {"action": "bid", "count": bid[0], "face": bid[1]})
        rooms.act(code, doubter, {"action": "doubt"})
    shown = stats.shown(rooms.load(code).counts)
    assert (shown["doubts"], shown["fell"]) == (2, 1)
    assert shown["bids"] == [{"count": 2, "doubts": 1, "fell": 0}, {"count": 4, "doubts": 1, "fell": 1}]
    # Every die of both doubts, this game's checked cups (no test while the game runs); no Mäxchen check.
    assert shown["faces"] is None and shown["checked_faces"]["total"] == 18 and shown["checks"] == 0
    outcomes = [(r["player"], r["outcome"]) for r in rooms.store.room_log(code)]
    assert outcomes == [
        (ann, "too_high"),  # a bid that fell: too high, not a lie
        (ben, "shown"),
        (cem, "shown"),
        (ann, "true"),
        (ben, "shown"),
        (cem, "shown"),
    ]


def test_counts_saved_before_the_lies_were_kept_take_them_up_empty():
    old = {"values": {"65": 1}, "faces": {}, "checks": 1, "lies": 0, "checked": {"65": [1, 0]}}
    old["pending"] = {"values": {"41": 1}, "faces": {}}
    stats.count_rolls(old, [{"dice": [2, 1], "value": 21, "announced": 21, "found": None, "public": False}])
    assert stats.settle(old) is True and stats.settle(old) is False  # once: nothing waits any more
    shown = stats.shown(old)
    assert shown["values"]["total"] == 3 and shown["announced"] == 1 and shown["bids"] == []


def test_a_lugen_bid_that_fell_is_too_high_in_the_csv_never_a_lie_and_a_running_games_rows_say_so():
    base = {"time": 0, "rules": "luegen", "player": "a", "name": "Ann", "answerer": "b", "answerer_name": "Ben"}
    bid = {"bid": {"count": 4, "face": 5}, "table": 3, "announced": None, "dice": [5, 1, 2], "value": 2}
    entries = [
        {**base, **bid, "game": 1, "round": 1, "found": False, "outcome": "lie", "public": True},  # logged before
        {**base, **bid, "game": 2, "round": 1, "found": False, "outcome": "too_high", "public": True},
        {**base, **bid, "game": 2, "round": 2, "found": None, "outcome": "void", "public": False},
    ]
    header = stats.log_csv_header()
    rows = [dict(zip(header, row, strict=True)) for row in stats.log_csv_rows(entries)]
    assert [(r["outcome"], r["lie"], r["too_high"], r["sample"]) for r in rows] == [
        ("too_high", "", 1, "all"),  # game 1 is over: every roll of it is here
        ("too_high", "", 1, "checked"),  # game 2 still hides a cup: its rows are a skewed sample
    ]


@pytest.mark.parametrize("rules", sorted(REGISTRY))
def test_every_rule_set_counts_each_roll_once_by_its_own_kind_and_only_once_the_game_is_over(rules):
    """A whole game of bots at a real table: nothing is tested before its end, then every die (or cup) once."""
    from maxchen.dice import SeededDice

    from .test_verdict import _move, _table

    rng, dice = random.Random(6), SeededDice(6)
    room, seats = _table(rules, rng)
    kind, other = REGISTRY[rules].dice, {"values": "faces", "faces": "values"}[REGISTRY[rules].dice]
    logged = []
    log_rolls = room.log_rolls
    room.log_rolls = lambda rolls: logged.extend(rolls) or log_rolls(rolls)
    _move(room, seats, dice, rng)  # the host starts the game
    while _move(room, seats, dice, rng):
        assert stats.shown(room.counts)[kind] is None  # a running game's rolls are no sample yet
    shown = stats.shown(room.counts)
    expected = len(logged) if kind == "values" else sum(len(roll["dice"]) for roll in logged)
    assert shown[kind]["total"] == expected > 0
    assert shown[other] is None and shown[f"checked_{kind}"] is None  # the game's own checked cups are gone
    # Doubts and checks count what the game counted, whichever the rule set calls them.
    assert shown["checks"] + shown["doubts"] == room.game.tally["checks"]


@pytest.mark.parametrize(
    ("chance", "shown"),
    [
        (0, "0 %"),
        (Fraction(1, 2000), "< 0.1 %"),
        (0.0123, "1.2 %"),
        (0.0996, "10.0 %"),
        (0.1, "10 %"),
        (Fraction(2851, 19683), "14 %"),
        (0.9949, "99 %"),
        (0.9972, "99.7 %"),
        (0.99951, "> 99.9 %"),
        (1, "100 %"),
    ],
)
def test_a_chance_reads_as_a_class_reads_it_never_0_or_100_unless_it_is(chance, shown):
    assert stats.percent_text(chance) == shown.replace(" %", "\u00a0%")


def test_a_chance_with_one_decimal_keeps_its_edges():
    assert [stats.percent_text(c, 1) for c in (0, 0.0004, 0.0562, 0.9989, 0.9996, 1)] == [
        s.replace(" %", "\u00a0%") for s in ("0.0 %", "< 0.1 %", "5.6 %", "99.9 %", "> 99.9 %", "100.0 %")
    ]
