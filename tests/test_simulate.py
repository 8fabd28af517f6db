"""The batch simulator: it agrees with the real engine, follows theory, and ranks the strategies."""

import csv
import dataclasses
import io
import subprocess
import sys

import pytest
import scipy.stats as scipy

from maxchen import simulate, stats
from maxchen.rules import two_dice as rules
from maxchen.rules.tapes import Tapes
from maxchen.rulesets import REGISTRY

from .conftest import ROOT

BATCHES = {name: rule_set for name, rule_set in REGISTRY.items() if rule_set.batch}


def test_the_statistician_beats_honest_players():
    result = simulate.simulate(["statistician", "honest", "honest"], 5000, seed=11)
    rates = {row["strategy"]: row for row in result.win_rates()}
    # Far from a coin flip: its interval's low end is above a fair share plus a margin.
    assert rates["statistician"]["low"] > 1 / 3 + 0.2
    assert rates["honest"]["high"] < 1 / 3
    assert sum(result.wins) == 5000


MIXES = {  # per rule set's least players: the strategies, and a table of bluffers
    2: [["statistician", "honest", "bluffer"], ["honest", "honest", "bluffer"], ["statistician"] * 3, ["bluffer"] * 6],
    3: [["statistician", "honest", "bluffer"], ["bluffer", "bluffer", "honest", "statistician"], ["bluffer"] * 6],
}
SHORTER = {"maexchen": {"out_at": 3}, "poschen": {"lives": 3}, "luegen": {"mats": 4}, "perudo": {"dice": 3}}
GAME_BY_GAME = [
    (name, mix, 200 if name in ("maexchen", "poschen") else 30, {})  # a liar's-dice game on the real engine: ~10 ms
    for name, rule_set in sorted(BATCHES.items())
    for mix in MIXES[rule_set.game.MIN_PLAYERS]
] + [  # and a shorter game of each (docs/rules.md, "A shorter game"), its first mix
    (name, MIXES[rule_set.game.MIN_PLAYERS][0], 100 if name in ("maexchen", "poschen") else 20, SHORTER[name])
    for name, rule_set in sorted(BATCHES.items())
]


def test_every_rule_set_has_a_batch_engine():
    assert set(BATCHES) == set(REGISTRY)  # /learn plays 10,000 games of any of them in seconds


def _id(param) -> str:
    if isinstance(param, list):
        return "-".join(param)
    if isinstance(param, dict):
        return "-".join(f"{name}={value}" for name, value in param.items()) or "usual"
    return str(param)


@pytest.mark.parametrize(("rules_name", "mix", "games", "options"), GAME_BY_GAME, ids=_id)
def test_the_batch_engine_plays_the_real_engines_games_game_by_game(rules_name, mix, games, options):
    """The same dice and the same draws for the bluffers, and the same length of game: every game ends as the
    real engine plays it."""
    n = len(mix)
    tapes = Tapes(seed=7, games=games)
    played = REGISTRY[rules_name].batch(mix, tapes, options)
    scored = played["scored"]
    kind = REGISTRY[rules_name].dice
    rolls = dict.fromkeys(stats.theory(kind), 0)
    for g in range(games):
        seats = mix[g % n :] + mix[: g % n]  # seat j of game g holds mix[(j + g) % n]
        game = simulate.play_engine(seats, tapes.chances_of(g), rules_name, options, dice=tapes.dice_of(g))
        batch_game = {
            "winner": int(played["winner"][g]),
            "rounds": int(played["rounds"][g]),
            scored: played["score"][g].tolist(),
            "checks": int(played["checks"][g]),
            "caught": int(played["caught"][g]),
        }
        engine_game = {
            "winner": game["seat"],
            "rounds": game["rounds"],
            scored: [seat[scored] for seat in game["standing"]],
            "checks": game["checks"],
            "caught": game["caught"],
        }
        assert batch_game == engine_game, (g, seats)
        for roll in game["rolls"]:
            for key in [roll["value"]] if kind == "values" else roll["dice"]:
                rolls[key] += 1
    assert played["rolls"] == rolls  # and every roll of every game came up as the engine rolled it


@pytest.mark.parametrize("shorter", [False, True], ids=["usual", "shorter"])
@pytest.mark.parametrize("rules_name", sorted(BATCHES))
def test_a_batch_run_counts_what_the_real_engine_counts(rules_name, shorter):
    """simulate() of the same games on either engine: the same wins, rounds, points (or lives lost) and rolls."""
    mix = ["statistician", "honest", "bluffer"]
    games = 300 if rules_name in ("maexchen", "poschen") else 40
    options = SHORTER[rules_name] if shorter else None
    result = simulate.simulate(mix, games, seed=9, rules_name=rules_name, options=options)
    tapes = Tapes(seed=9, games=games)
    engine = simulate._one_by_one(mix, games, None, rules_name, deadline=float("inf"), tapes=tapes, options=options)
    for key in ("wins", "rounds", "points", "rolls", "checks", "lies_caught"):
        assert getattr(result, key) == engine[key], key


@pytest.mark.parametrize("rules_name", sorted(BATCHES))
def test_a_shorter_game_is_shorter(rules_name):
    """The same seats and dice: fewer rounds a game, and (Mäxchen) fewer points handed out, at the shorter length."""
    mix = ["honest", "honest", "statistician"]
    usual = simulate.simulate(mix, 400, seed=5, rules_name=rules_name)
    shorter = simulate.simulate(mix, 400, seed=5, rules_name=rules_name, options=SHORTER[rules_name])
    assert sum(shorter.rounds) < 0.8 * sum(usual.rounds)
    if rules_name == "maexchen":  # every loser goes out: three points at least, five at least
        assert min(shorter.points) >= 2 * 3 and min(usual.points) >= 2 * 5


@pytest.mark.parametrize("options", [{"out_at": 4}, {"lives": 3}, {"out_at": "3"}])
def test_a_length_the_rule_set_does_not_offer_is_no_simulation(options):
    with pytest.raises(ValueError, match="bad options"):
        simulate.simulate(["honest", "honest"], 10, rules_name="maexchen", options=options)


def test_the_command_line_simulates_a_shorter_game(capsys):
    assert simulate.main(["--games", "50", "--seed", "1", "--rules", "perudo", "--option", "dice=3"]) == 0
    assert "50 games of honest honest honest" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        simulate.main(["--games", "50", "--option", "out_at=4"])
    assert "bad options" in capsys.readouterr().err


def test_every_roll_follows_theory():
    result = simulate.simulate(["honest"] * 3, 20_000, seed=3)
    test = stats.test(result.rolls, "values")
    assert test["total"] > 500_000 and test["verdict"] != "few"
    assert test["p"] > 0.001  # fixed seed: not a coin flip, and a biased table would be far below
    assert list(result.rolls) == list(rules.VALUES)


def test_three_honest_players_win_equally_often_whatever_their_seat():
    result = simulate.simulate(["honest"] * 3, 30_000, seed=8)
    assert all(abs(w / 30_000 - 1 / 3) < 0.015 for w in result.wins)


@pytest.mark.parametrize(
    ("strategies", "games"), [(["honest"], 10), (["honest"] * 11, 10), (["honest"] * 2, 0), (["psychic", "honest"], 5)]
)
def test_bad_requests_are_refused(strategies, games):
    with pytest.raises(ValueError):
        simulate.simulate(strategies, games)


def test_a_win_rates_interval_counts_games_not_seats():
    from maxchen.simulate import Result, wilson

    # 1,000 games: the two honest seats won 600 between them, the bluffer 400.
    result = Result(strategies=["honest", "honest", "bluffer"], games=1000, wins=[310, 290, 400])
    honest, bluffer = result.win_rates()
    low, high = wilson(600, 1000)
    assert honest["rate"] == 0.3 and (honest["low"], honest["high"]) == (low / 2, high / 2)
    assert (bluffer["low"], bluffer["high"]) == wilson(400, 1000) and not bluffer["fixed"]
    import scipy.stats as scipy

    interval = scipy.binomtest(600, 1000).proportion_ci(method="wilson")
    assert (low, high) == pytest.approx((interval.low, interval.high), rel=1e-6)
    (alone,) = Result(strategies=["honest", "honest"], games=1000, wins=[503, 497]).win_rates()
    assert alone["fixed"] and alone["rate"] == alone["low"] == alone["high"] == 0.5


def test_the_command_writes_csv():
    command = [sys.executable, "-m", "maxchen.simulate", "--games", "2000", "--seed", "4"]
    answer = subprocess.run(
        [*command, "--strategies", "honest", "bluffer", "--csv", "-"], capture_output=True, text=True, check=True
    )
    rows = list(csv.DictReader(io.StringIO(answer.stdout)))
    wins = [row for row in rows if row["section"] == "wins"]
    assert [row["key"] for row in wins] == ["honest", "bluffer"]
    assert sum(int(row["count"]) for row in wins) == 2000
    for row in rows:  # every column one meaning: the rate is count / out_of, in every section
        assert float(row["rate"]) == pytest.approx(int(row["count"]) / int(row["out_of"]), abs=1e-5)
    checks = next(row for row in rows if row["section"] == "checks")
    assert checks["key"] == "caught_a_lie" and int(checks["out_of"]) >= int(checks["count"]) > 0
    rounds = next(row for row in rows if row["section"] == "rounds")
    assert int(rounds["out_of"]) == 2000 and (rounds["low95"], rounds["high95"]) == ("", "")
    assert [int(row["key"]) for row in rows if row["section"] == "roll"] == list(rules.VALUES)
    refused = subprocess.run([*command, "--strategies", "psychic"], capture_output=True, text=True)
    assert refused.returncode == 2 and "invalid choice" in refused.stderr


@pytest.mark.parametrize("rules_name", sorted(REGISTRY))
def test_the_simulator_plays_every_rule_set_and_counts_its_dice_fairly(rules_name):
    """Whole games of three strategies: one best seat per game, and the dice as fair as scipy can tell."""
    games = 40
    result = simulate.simulate(["honest", "bluffer", "statistician"], games, seed=4, rules_name=rules_name)
    assert sum(result.wins) == games and len(result.rounds) == games
    kind = REGISTRY[rules_name].dice
    expected = stats.theory(kind)
    assert list(result.rolls) == list(expected)  # every key, in ladder (or face) order
    observed = [result.rolls[key] for key in expected]
    total = sum(observed)
    assert total > 0
    p = scipy.chisquare(observed, [float(share) * total for share in expected.values()]).pvalue
    assert p > 1e-4, (rules_name, observed)  # a fair die fails this one time in ten thousand


def without_batch(monkeypatch, rules_name):
    """The rule set as one without a batch engine: its games on the real engine."""
    monkeypatch.setitem(REGISTRY, rules_name, dataclasses.replace(REGISTRY[rules_name], batch=None))


@pytest.mark.parametrize("rules_name", ["luegen", "perudo"])
def test_a_run_on_the_real_engine_stops_at_its_time_and_says_how_many_games_it_played(monkeypatch, rules_name):
    """Six statisticians at Perudo take about 0.1 s a game: a run of 1,000 must not hold the simulator minutes."""
    without_batch(monkeypatch, rules_name)
    monkeypatch.setattr(simulate, "ENGINE_SECONDS", 0.02)
    result = simulate.simulate(["statistician"] * 6, 1000, seed=2, rules_name=rules_name)
    assert 0 < result.games < 1000 and result.asked == 1000
    assert sum(result.wins) == result.games == len(result.rounds)
    with pytest.raises(ValueError, match="1 to 1000 games"):
        simulate.simulate(["statistician"] * 6, 1001, rules_name=rules_name)


@pytest.mark.parametrize("rules_name", sorted(BATCHES))
def test_a_batch_run_in_chunks_plays_the_games_of_one_run_and_stops_at_its_time(monkeypatch, rules_name):
    """Chunks of 70 games play the very games one chunk of 200 plays; out of time, a run keeps the first ones."""
    mix = ["statistician", "honest", "bluffer"]
    whole = simulate.simulate(mix, 200, seed=12, rules_name=rules_name)
    monkeypatch.setattr(simulate, "CHUNK", 70)
    chunked = simulate.simulate(mix, 200, seed=12, rules_name=rules_name)
    for key in ("wins", "rounds", "points", "rolls", "checks", "lies_caught"):
        assert getattr(chunked, key) == getattr(whole, key), key
    assert (Tapes(12, 5, first=3).keys == Tapes(12, 10).keys[:, 3:8]).all()
    monkeypatch.setattr(simulate, "ENGINE_SECONDS", 0.0)  # no time at all: the first chunk only
    short = simulate.simulate(mix, 200, seed=12, rules_name=rules_name)
    assert short.games == 70 and short.asked == 200 and short.rounds == whole.rounds[:70]
    monkeypatch.setattr(simulate, "CHUNK", 20_000)
    monkeypatch.setattr(simulate, "FIRST_CHUNK", 30)  # the first chunk alone: the one that measures the pace
    assert simulate.simulate(mix, 200, seed=12, rules_name=rules_name).rounds == whole.rounds[:30]


def test_seeds_are_whole_numbers_from_0_and_every_bit_counts():
    mix = ["honest", "bluffer"]
    runs = [simulate.simulate(mix, 300, seed).rounds for seed in (0, 2**64, 2**64 + 1)]
    assert runs[0] != runs[1] != runs[2]  # no seed wraps round at 64 bits
    assert simulate.simulate(mix, 300, 2**64).rounds == runs[1]
    with pytest.raises(ValueError):
        simulate.simulate(mix, 10, -1)
    refused = subprocess.run(
        [sys.executable, "-m", "maxchen.simulate", "--seed", "-1"], capture_output=True, text=True, cwd=ROOT
    )
    assert refused.returncode == 2 and "a seed is a whole number, 0 or more" in refused.stderr
    unwritable = [sys.executable, "-m", "maxchen.simulate", "--games", "3", "--csv", "/nonexistent/x.csv"]
    refused = subprocess.run(unwritable, capture_output=True, text=True, cwd=ROOT)
    assert refused.returncode == 2 and "cannot write /nonexistent/x.csv" in refused.stderr  # said, not a traceback


def test_the_command_simulates_any_rule_set():
    answer = subprocess.run(
        [sys.executable, "-m", "maxchen.simulate", "--rules", "luegen", "--games", "12", "--seed", "1", "--csv", "-"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    rows = list(csv.DictReader(io.StringIO(answer.stdout)))
    assert [int(row["key"]) for row in rows if row["section"] == "roll"] == [1, 2, 3, 4, 5, 6]  # faces: Lügen's dice
    assert sum(int(row["count"]) for row in rows if row["section"] == "wins") == 12


def test_a_batch_run_sizes_its_chunks_to_the_time_left_at_the_pace_of_its_games(monkeypatch):
    """Thirty mats at six seats play ten times as long a game: a run still ends at its time, not a chunk later."""
    import types

    from maxchen.rulesets import REGISTRY

    clock = {"now": 0.0}
    monkeypatch.setattr(simulate, "time", types.SimpleNamespace(perf_counter=lambda: clock["now"]))
    chunks = []

    def slow(strategies, tapes, options):  # 10 ms a game on the fake clock
        chunks.append(tapes.games)
        clock["now"] += 0.01 * tapes.games
        return REGISTRY["luegen"].batch(strategies, tapes, options)

    played = simulate.batches(slow, ["honest"] * 6, 100_000, 5, deadline=12.0, options={"mats": 2})
    assert chunks == [500, 700] and len(played["rounds"]) == 1200  # 5 s, then the 7 s left: ended at 12 s
    assert clock["now"] == pytest.approx(12.0)
