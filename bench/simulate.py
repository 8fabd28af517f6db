"""The simulator's speed on one core: the real engine of every rule set, the batch engines, and the floor.

    .venv/bin/python bench/simulate.py [--seconds 3] [--repeat 3] [--batch-games 20000] [--mix honest honest honest]

Every row plays whole games of the same bots (three `honest` by default) on
one core (the process is pinned to one CPU):

- `floor`: the smallest pure-Python Mäxchen loop that plays the same games as
  the real engine with three honest bots (the same dice give the same games:
  tests/test_bench.py checks it game by game); no views, no checks of a move,
  no roll log, no seals. How far the engine is from it is the cost of being
  a game server's engine.
- `engine`: the real engine (`simulate.play_engine`): every move through
  `Game.apply`, every bot reading its seat's view.
- `batch`: a rule set's batch engine (numpy, every game a row; it plays the
  real engine's games, game by game: tests/test_simulate.py), over
  `--batch-games` games.

Each figure is the median of `--repeat` runs (the engine's of at least
`--seconds` each); `/learn 10,000` is how long the simulator behind `/learn`
takes for 10,000 games of that rule set.
"""

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from maxchen import simulate  # noqa: E402
from maxchen.rulesets import REGISTRY  # noqa: E402

# The targets for the real engine (issue 23 §5), games per second on one core, three bots.
TARGETS = {"maexchen": 10_000, "luegen": 2_000}

# --- the floor: Mäxchen and three honest bots, nothing else ---

VALUES = (31, 32, 41, 42, 43, 51, 52, 53, 54, 61, 62, 63, 64, 65, 11, 22, 33, 44, 55, 66, 21)
RANK = [[0] * 7] + [
    [0] + [VALUES.index(21 if {a, b} == {1, 2} else max(a, b) * 10 + min(a, b)) for b in range(1, 7)]
    for a in range(1, 7)
]
# Honest checks a value a fresh roll beats less than 1 time in 4 (in 36ths: fewer than 9 of 36 rolls beat it).
BEATEN_BY = [sum(1 if v % 11 == 0 else 2 for v in VALUES[rank + 1 :]) for rank in range(21)]
CHECKS = [rank < 20 and BEATEN_BY[rank] < 9 for rank in range(21)]


def floor_game(rng: random.Random) -> tuple[int, int, list[int]]:
    """One game of Mäxchen between three honest players: (the winner's seat, rounds, points per seat)."""
    randint = rng.randint
    points = [0, 0, 0]
    turn, rounds = 0, 1
    while True:
        standing = -1
        while True:
            roll = RANK[randint(1, 6)][randint(1, 6)]
            said = roll if roll > standing else standing + 1  # the truth, or the smallest lie
            announcer, turn = turn, (turn + 1) % 3
            while points[turn] >= 5:
                turn = (turn + 1) % 3
            if said == 20:  # 21 is accepted: a point for the one who accepts
                loser, penalty = turn, 1
                break
            if CHECKS[said]:
                loser, penalty = (turn if roll >= said else announcer), 1
                break
            standing = said
        points[loser] += penalty
        still = [seat for seat in range(3) if points[seat] < 5]
        if len(still) == 1:
            return still[0], rounds, points
        rounds += 1
        turn = loser
        while points[turn] >= 5:
            turn = (turn + 1) % 3


# --- timing ---


def rate(play, seconds: float) -> float:
    """Games per second of `play(index)` (one game a call) over at least `seconds`."""
    play(0)  # warm: caches, first imports
    games, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for _ in range(20):
            play(games)
            games += 1
    return games / elapsed


def batch_seconds(rules: str, mix: list[str], games: int) -> float:
    """Seconds the simulator takes for `games` games of a rule set (its batch engine, where it has one)."""
    simulate.simulate(mix, 100, seed=0, rules_name=rules)  # warm: numpy's first calls, the tables
    result = simulate.simulate(mix, games, seed=1, rules_name=rules)
    return result.seconds if result.games == games else float("inf")  # cut short at the simulator's time


def median_of(repeat: int, measure) -> float:
    return statistics.median(measure() for _ in range(repeat))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="each run lasts at least this long")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch-games", type=int, default=20_000)
    parser.add_argument("--mix", nargs="+", default=["honest"] * 3)
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    mix, n = args.mix, len(args.mix)

    def engine(rules):
        rng = random.Random(1)
        return lambda g: simulate.play_engine(mix[g % n :] + mix[: g % n], rng, rules)

    moves = {}
    for rules in REGISTRY:  # moves per game, to say what one move costs
        rng = random.Random(2)
        moves[rules] = statistics.mean(simulate.play_engine(mix, rng, rules)["moves"] for _ in range(50))
    floor_rng = random.Random(1)
    floor = median_of(args.repeat, lambda: rate(lambda g: floor_game(floor_rng), args.seconds))
    print(f"one core, {' '.join(mix)}; median of {args.repeat} runs of at least {args.seconds:g} s")
    print(
        f"{'rule set':<10} {'engine':>8} {'target':>8} {'µs/move':>8} {'floor':>8} {'floor×':>7} {'batch':>9} "
        f"{'/learn 10,000':>14}"
    )
    for rules, rule_set in REGISTRY.items():
        games = median_of(args.repeat, lambda rules=rules: rate(engine(rules), args.seconds))
        batch = None
        if rule_set.batch:
            batch = args.batch_games / median_of(args.repeat, lambda r=rules: batch_seconds(r, mix, args.batch_games))
        learn = median_of(args.repeat, lambda r=rules: batch_seconds(r, mix, 10_000))
        target = f"{TARGETS[rules]:,}" if rules in TARGETS else ""
        is_floor = rules == "maexchen" and mix == ["honest"] * 3
        print(
            f"{rules:<10} {games:>8,.0f} {target:>8} {1e6 / games / moves[rules]:>8.1f} "
            f"{f'{floor:,.0f}' if is_floor else '':>8} {f'{floor / games:.0f}×' if is_floor else '':>7} "
            f"{f'{batch:,.0f}' if batch else '–':>9} {learn:>13.2f}s"
        )


if __name__ == "__main__":
    main()
