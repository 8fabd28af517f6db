"""The simulator's speed: games per second of the batch engine and of the real engine, same strategies.

    .venv/bin/python bench/simulate.py [--games 100000] [--engine-games 2000]

Prints one row per strategy mix: the batch engine's time for `--games`
games on one core, its games per second, the real engine's games per second
(one game at a time, `bots.act` on every view) and the ratio, measured in the
same run.
"""

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from maxchen import simulate  # noqa: E402

MIXES = (["honest"] * 3, ["statistician", "honest", "bluffer"], ["statistician"] * 6)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--engine-games", type=int, default=2000)
    args = parser.parse_args(argv)
    print(f"{'mix':<40} {'batch s':>8} {'batch games/s':>14} {'engine games/s':>15} {'ratio':>7}")
    for mix in MIXES:
        simulate.simulate(mix, 1000, seed=0)  # warm: numpy's first calls, the strategy tables
        result = simulate.simulate(mix, args.games, seed=1)
        rng = random.Random(1)
        started = time.perf_counter()
        for g in range(args.engine_games):
            rotation = g % len(mix)
            simulate.play_engine(mix[rotation:] + mix[:rotation], rng)
        engine = args.engine_games / (time.perf_counter() - started)
        batch = args.games / result.seconds
        name = ", ".join(f"{s} × {mix.count(s)}" if mix.count(s) > 1 else s for s in dict.fromkeys(mix))
        print(f"{name:<40} {result.seconds:>8.2f} {batch:>14,.0f} {engine:>15,.0f} {batch / engine:>6.0f}×")


if __name__ == "__main__":
    main()
