"""Whole lessons simulated: do the boards' verdicts keep their false-alarm rate over every look, and does a
hunt find its loaded table within the lesson?

    .venv/bin/python bench/lesson.py                       # 2,000 lessons of each rule set (about 3 minutes)
    .venv/bin/python bench/lesson.py --lessons 200 --rules maexchen

A lesson: three tables of four honest bots, 45 minutes at a class's pace
(`PACE`), each table starting its next game as soon as one is over; the
countdown ends every table's game with the round in play. The boards look
after every game that ends anywhere: each table's own statistics, the class's
pooled statistics and, once the teacher started the hunt, the hunt's table.
In a hunt lesson the teacher loads one table mid-lesson (a six 1 time in 4):
every game in play ends with its round, and the hunt counts, at every table,
only dice of games begun since it started.

Games come from a pool played on the real engine (fair dice, and dice loaded
so), each move timed by its kind; a lesson draws its tables' games from the
pool. The plain χ² (p < 0.05 at each look) is measured beside the evidence:
the repeated-looks trap the boards no longer fall into.
"""

import argparse
import math
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from maxchen import evidence, stats  # noqa: E402
from maxchen.dice import LoadedDice, SeededDice  # noqa: E402
from maxchen.simulate import play_engine  # noqa: E402

LESSON = 45 * 60  # seconds
HUNT_AT = LESSON / 2  # the teacher loads a table mid-lesson (--hunt-at)
LOADING = "1/4"
TABLES, SEATS = 3, 4
# A class's pace, in seconds: a shake (a Lügen round's shakes overlap: the phones shake at once), an
# announcement or bid, a decision; a reveal's pause; the winner's moment and the next game's start.
PACE = {"shake": 2.0, "bid": 4.0, "announce": 4.0, "believe": 3.0, "check": 3.0, "doubt": 3.0, "accept": 3.0}
OTHER_MOVE = 3.0
SHAKES_AT_ONCE = {"luegen", "perudo"}
REVEAL = 4.0
BETWEEN_GAMES = 15.0
POOL = {"maexchen": 1500, "luegen": 300, "poschen": 1500, "perudo": 300}  # games of each kind in the pool
BAR = math.log(evidence.BAR)


def timed_game(rules: str, rng: random.Random, loaded: bool) -> dict:
    """One game of four honest bots: its length in seconds, and after each round (when its dice could count
    at the countdown) and at its end, the seconds so far and every die settled so far."""
    dice = LoadedDice(Fraction(LOADING), SeededDice(rng)) if loaded else SeededDice(rng)
    trace: list = []
    play_engine(["honest"] * SEATS, rng, rules, dice=dice, trace=trace)
    seconds, faces, rounds, shook = 0.0, [], [], False
    last_round = trace[0][2] if trace else 0
    for action, settled, round_now in trace:
        at_once = action == "shake" and rules in SHAKES_AT_ONCE and shook
        seconds += 0.0 if at_once else PACE.get(action, OTHER_MOVE)
        shook = action == "shake"
        for roll in settled:
            faces += roll["dice"]
        if round_now != last_round:
            seconds += REVEAL
            rounds.append((seconds, len(faces)))
            last_round = round_now
    return {"seconds": seconds, "faces": faces, "rounds": rounds}


def pool(rules: str, count: int, seed: int) -> dict:
    """Fair and loaded games of a rule set, played once."""
    rng = random.Random(seed)
    return {kind: [timed_game(rules, rng, kind == "loaded") for _ in range(count)] for kind in ("fair", "loaded")}


def table_looks(games: dict, rng: random.Random, loaded: bool, hunt_at: float | None, fresh: bool) -> list[tuple]:
    """One table's lesson: at each game's end, (time, every die of its games over, those of games begun since
    the hunt started at `hunt_at` seconds, None: no hunt). `fresh`: the hunt's start ends the game in play
    with its round, as the countdown does, and the next game begins."""
    t, all_faces, hunted, looks = 0.0, [], [], []
    while t < LESSON:
        begun_in_hunt = hunt_at is not None and t >= hunt_at
        game = rng.choice(games["loaded" if loaded and begun_in_hunt else "fair"])
        stop = hunt_at if fresh and not begun_in_hunt and hunt_at is not None else LESSON
        if t + game["seconds"] <= stop:
            t += game["seconds"]
            faces = game["faces"]
        else:  # the countdown (or a fresh hunt): the game ends with the round in play
            end = next(((s, n) for s, n in game["rounds"] if t + s >= stop), (game["seconds"], len(game["faces"])))
            t += end[0]
            faces = game["faces"][: end[1]]
        all_faces = all_faces + faces
        hunted = hunted + faces if begun_in_hunt else hunted
        looks.append((t, all_faces, hunted))
        t += BETWEEN_GAMES
    return looks


def counts(faces) -> dict[int, int]:
    """Faces 1..6 counted."""
    out = dict.fromkeys(range(1, 7), 0)
    for face in faces:
        out[face] += 1
    return out


def one_look_alarm(faces) -> bool:
    """The plain χ² at this look: p < 0.05 (once 30 dice are in)."""
    if len(faces) < stats.needed("faces"):
        return False
    return stats.p_value(*stats.chi_square(counts(faces), stats.theory("faces"))) < stats.ALPHA


def lesson(games: dict, rng: random.Random, hunt_at: float | None, fresh: bool = False) -> dict:
    """One lesson (a hunt from `hunt_at` seconds, or none); what its boards said, look by look."""
    hunt = hunt_at is not None
    loaded_table = 0 if hunt else None
    tables = [table_looks(games, rng, i == loaded_table, hunt_at, fresh) for i in range(TABLES)]
    events = sorted((t, i, looked) for i, looks in enumerate(tables) for t, *looked in looks)
    now = [([], [])] * TABLES
    out = {"board_alarm": False, "chi_alarm": False, "hunt_alarm": False, "found": False, "found_end": False}
    for _t, i, looked in events:
        now[i] = looked
        every = [faces for faces, _ in now]
        for board in (*every, [face for faces in every for face in faces]):  # each table's, the class's pooled
            out["board_alarm"] |= evidence.log_any(counts(board)) >= BAR
            out["chi_alarm"] |= one_look_alarm(board)
        if hunt:
            for table, (_, hunted) in enumerate(now):
                said = evidence.log_told(counts(hunted), LOADING) >= BAR
                if table == loaded_table:
                    out["found"] |= said
                else:
                    out["hunt_alarm"] |= said
    if hunt:
        hunted = now[loaded_table][1]
        out["found_end"] = evidence.log_told(counts(hunted), LOADING) >= BAR
        out["loaded_dice"] = len(hunted)
        out["chi_found_end"] = one_look_alarm(hunted)
    out["dice"] = sum(len(faces) for faces, _ in now)
    return out


def power_at(n: int, runs: int, seed: int) -> float:
    """The evidence at `n` dice of the server's loaded dice (`LoadedDice`): how often it says loaded."""
    dice = LoadedDice(Fraction(LOADING), SeededDice(seed))
    found = sum(evidence.log_told(counts(dice.roll(n)), LOADING) >= BAR for _ in range(runs))
    return found / runs


def share(hits: int, runs: int) -> str:
    """A share with its simulation error (one standard error)."""
    p = hits / runs
    return f"{100 * p:.1f} % ± {100 * math.sqrt(max(p * (1 - p), 1 / runs) / runs):.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", type=int, default=2000)
    parser.add_argument("--rules", nargs="+", default=["maexchen", "luegen"])
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--hunt-at", type=float, default=HUNT_AT / 60, help="the hunt's minute (default 22.5)")
    parser.add_argument(
        "--games-go-on", action="store_true", help="as before session 23: the games in play go on at the hunt's start"
    )
    args = parser.parse_args(argv)
    hunt_at = args.hunt_at * 60
    needed = evidence.told_needed(LOADING)
    print(
        f"{args.lessons} lessons of each kind, {TABLES} tables of {SEATS}, {LESSON // 60} minutes; hunt at minute "
        f"{hunt_at / 60:g}, a six {LOADING} of the time at one table. Stated rate: {evidence.ALPHA:.0%}."
    )
    print(
        f"The hunt's line: 'a table's dice give it away 8 times in 10 after about {needed} dice' "
        f"(exact: {evidence.told_power(needed, LOADING):.1%})."
    )
    for rules in args.rules:
        started = time.perf_counter()
        games = pool(rules, POOL[rules], args.seed)
        fair_games = games["fair"]
        per_game = sum(len(g["faces"]) for g in fair_games) / len(fair_games)
        minutes = sum(g["seconds"] for g in fair_games) / len(fair_games) / 60
        rng = random.Random(args.seed)
        fair = [lesson(games, rng, None) for _ in range(args.lessons)]
        hunts = [lesson(games, rng, hunt_at, not args.games_go_on) for _ in range(args.lessons)]
        runs = len(fair)

        def hits(rows, key):
            return sum(bool(row[key]) for row in rows)

        loaded_dice = sorted(row["loaded_dice"] for row in hunts)
        simulated = power_at(needed, 20_000, args.seed)
        print(
            f"\n## {rules}: a game {per_game:.0f} dice, {minutes:.1f} minutes; a lesson "
            f"{sum(r['dice'] for r in fair) / runs:.0f} dice at {TABLES} tables "
            f"({time.perf_counter() - started:.0f} s)"
        )
        print("| measure | evidence (the boards) | plain χ², p < 0.05 at each look |")
        print("|---|---|---|")
        print(
            f"| fair lessons: 'loaded' at any look, any board (3 tables, the class) | "
            f"{share(hits(fair, 'board_alarm'), runs)} | {share(hits(fair, 'chi_alarm'), runs)} |"
        )
        print(
            f"| hunt lessons: a fair table's hunt row says 'loaded' at any look | "
            f"{share(hits(hunts, 'hunt_alarm'), runs)} | |"
        )
        print(f"| hunt lessons: the loaded table found at some look | {share(hits(hunts, 'found'), runs)} | |")
        print(
            f"| hunt lessons: found at the lesson's last look | {share(hits(hunts, 'found_end'), runs)} | "
            f"{share(hits(hunts, 'chi_found_end'), runs)} |"
        )
        print(
            f"| the loaded table's hunt dice at the end: median (10th, 90th percentile) | "
            f"{loaded_dice[runs // 2]} ({loaded_dice[runs // 10]}, {loaded_dice[9 * runs // 10]}) | |"
        )
        print(
            f"| the evidence at {needed} of the server's loaded dice: says loaded | "
            f"{share(round(simulated * 20_000), 20_000)} (exact {evidence.told_power(needed, LOADING):.1%}) | |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
