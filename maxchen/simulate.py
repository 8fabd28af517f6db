"""Simulated games of bots: the real engine one game at a time, or a batch engine over arrays.

The batch engine plays Mäxchen (RULES.md §2) for many games at once with
numpy: every game is a row, every step moves all unfinished games by one
decision. The strategies are the tables `bots` makes, so both engines play
the same bots; a test checks that their results agree.

    python -m maxchen.simulate --games 100000 --strategies honest honest honest
    python -m maxchen.simulate --games 20000 --strategies statistician honest --csv results.csv
"""

import argparse
import csv
import math
import random
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from . import bots, rules
from .dice import SeededDice
from .rulesets import RULESETS

OUT_AT = 5  # RULES.md §2: 5 points and a player is out
MAX_GAMES = 100_000
Z95 = 1.959964  # the normal quantile of a 95 % interval


@dataclass
class Result:
    """What a batch of games came to."""

    strategies: list[str]
    games: int
    wins: list[int]  # per seat of `strategies` (seats rotate from game to game)
    rounds: list[int] = field(default_factory=list)  # per game
    points: list[int] = field(default_factory=list)  # per game: every penalty point handed out
    rolls: dict[int, int] = field(default_factory=dict)  # value -> count, every roll made
    checks: int = 0
    lies_caught: int = 0
    seconds: float = 0.0
    seed: int | None = None

    def win_rates(self) -> list[dict]:
        """Per strategy: its seats, the games one of them won, the rate per seat and its 95 % interval.

        A game has one winner, so the games a strategy wins are a binomial
        count of `games` trials, whatever its number of seats: the interval
        (Wilson) is of that share, divided by the seats. A strategy holding
        every seat wins every game: its rate per seat is fixed by symmetry
        (`fixed`, no interval).
        """
        rows = []
        for name in dict.fromkeys(self.strategies):
            seats = self.strategies.count(name)
            won = sum(w for s, w in zip(self.strategies, self.wins, strict=True) if s == name)
            fixed = seats == len(self.strategies)
            low, high = (won / self.games,) * 2 if fixed else wilson(won, self.games)
            rows.append(
                {
                    "strategy": name,
                    "seats": seats,
                    "wins": won,
                    "rate": won / self.games / seats,
                    "low": low / seats,
                    "high": high / seats,
                    "fixed": fixed,
                }
            )
        return rows


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


# --- the real engine, one game at a time ---


def play_engine(strategies: list[str], rng: random.Random, rules_name: str = "maexchen", options=None) -> dict:
    """One game of the real engine between bots: the winner's seat (Lügen: the loser's), rounds, rolls."""
    players = [f"p{i}" for i in range(len(strategies))]
    game = RULESETS[rules_name](players, options, dice=SeededDice(rng))
    game.apply(players[0], "start", {}) if "start" in game.allowed(players[0]) else None
    rolls: list[dict] = []
    moves = 0
    weighed: dict[str, tuple] = {}  # Lügen: the bid each bot last weighed (anyone may doubt at any time)
    while not game.over:
        acted = False
        movers = list(game.waiting_for())
        if rules_name == "luegen":
            bid = (game.round, tuple(sorted((game.bid or {}).items())))
            movers += [p for p in players if p not in movers and weighed.get(p) != bid]
            weighed.update(dict.fromkeys(movers, bid))
        for player in movers:
            strategy = strategies[players.index(player)]
            view = {**game.view_for(player), "rules": rules_name, "phase": "playing", "you": player}
            action = bots.act(strategy, view, rng)
            if action is not None:
                game.apply(player, action.pop("action"), action)
                acted = True
                moves += 1
                break
        if not acted:
            raise RuntimeError("no bot could move")
        rolls += game.drain_rolls()
    end = game.winner if rules_name != "luegen" else game.loser
    points = sum(game.score.values()) if rules_name == "maexchen" else None
    return {
        "seat": players.index(end),
        "rounds": game.round,
        "rolls": rolls,
        "moves": moves,
        "points": points,
        **game.tally,
    }


# --- the batch engine (Mäxchen) ---


def _tables(strategy: str) -> tuple[np.ndarray, np.ndarray]:
    """(answer[earlier + 1, announced]: 0 believe, 1 check, 2 accept; announce[earlier + 1, roll]: rank)."""
    answer = np.zeros((22, 21), dtype=np.int8)
    announce = np.full((22, 21), -1, dtype=np.int8)
    for earlier in range(-1, 21):
        for rank in range(21):
            move = bots.answer_rank(strategy, rank, earlier, may_accept=True)
            answer[earlier + 1, rank] = ("believe", "check", "accept").index(move)
            if strategy != "bluffer" and earlier < 20:
                announce[earlier + 1, rank] = bots.announce_rank(strategy, rank, earlier, None)
    return answer, announce


# The rank of two dice, indexed [die1 - 1, die2 - 1].
ROLL_RANK = np.array([[rules.rank(rules.value_of((a, b))) for b in range(1, 7)] for a in range(1, 7)], dtype=np.int8)


def simulate(strategies: list[str], games: int, seed: int | None = None) -> Result:
    """`games` games of Mäxchen between `strategies` (2–10 seats, rotated each game)."""
    n = len(strategies)
    if not 2 <= n <= 10:
        raise ValueError("2 to 10 players")
    if not 1 <= games <= MAX_GAMES:
        raise ValueError(f"1 to {MAX_GAMES} games")
    unknown = set(strategies) - set(bots.STRATEGIES)
    if unknown:
        raise ValueError(f"no strategy {sorted(unknown)[0]!r}")
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    names = list(dict.fromkeys(strategies))
    answer = np.stack([_tables(name)[0] for name in names])
    announce = np.stack([_tables(name)[1] for name in names])
    bluffs = np.array([name == "bluffer" for name in names])
    # Seat j of game g holds strategies[(j + g) % n]: every strategy opens as often as the others.
    of_seat = np.array([names.index(s) for s in strategies])
    g_index = np.arange(games)
    kind = of_seat[(np.arange(n)[None, :] + g_index[:, None]) % n]  # [games, seats] -> strategy index
    home = (np.arange(n)[None, :] + g_index[:, None]) % n  # [games, seats] -> position in `strategies`

    points = np.zeros((games, n), dtype=np.int8)
    turn = np.zeros(games, dtype=np.int64)
    standing = np.full(games, -1, dtype=np.int64)  # the standing announcement's rank
    earlier = np.full(games, -1, dtype=np.int64)  # the one before it
    real = np.zeros(games, dtype=np.int64)  # the rank under the announcer's cup
    announcer = np.zeros(games, dtype=np.int64)
    rounds = np.ones(games, dtype=np.int64)
    winner = np.full(games, -1, dtype=np.int64)
    roll_counts = np.zeros(21, dtype=np.int64)
    checks = caught = 0
    live = np.arange(games)

    def next_in(rows, seats):
        """The next seat after `seats` (per row) still in the game."""
        found = np.full(len(rows), -1, dtype=np.int64)
        for step in range(1, n + 1):
            candidate = (seats + step) % n
            free = (found < 0) & (points[rows, candidate] < OUT_AT)
            found[free] = candidate[free]
        return found

    def roll_and_announce(rows, over):
        """The player with the turn rolls and announces over rank `over` (-1: none)."""
        dice = rng.integers(0, 6, size=(2, len(rows)))
        roll = ROLL_RANK[dice[0], dice[1]].astype(np.int64)
        np.add.at(roll_counts, roll, 1)
        who = kind[rows, turn[rows]]
        said = announce[who, over + 1, roll].astype(np.int64)
        bluffing = bluffs[who]
        if bluffing.any():
            b = np.flatnonzero(bluffing)
            lowest = over[b] + 1
            can = roll[b] >= lowest
            lie = (~can) | ((roll[b] < 20) & (rng.random(len(b)) < bots.BLUFF_RATE))
            floor = np.where(can, roll[b] + 1, lowest)
            pick = floor + (rng.random(len(b)) * (21 - floor)).astype(np.int64)
            said[b] = np.where(lie, pick, roll[b])
        earlier[rows] = over
        standing[rows] = said
        real[rows] = roll
        announcer[rows] = turn[rows]
        turn[rows] = next_in(rows, turn[rows])

    while len(live):
        opening = standing[live] < 0
        if opening.any():
            rows = live[opening]
            roll_and_announce(rows, np.full(len(rows), -1, dtype=np.int64))
        rows = live[~opening]
        if len(rows):
            move = answer[kind[rows, turn[rows]], earlier[rows] + 1, standing[rows]]
            go_on = rows[move == 0]
            if len(go_on):
                roll_and_announce(go_on, standing[go_on])
            ended = rows[move != 0]
            if len(ended):
                m = move[move != 0]
                is_check = m == 1
                true = real[ended] >= standing[ended]
                checks += int(is_check.sum())
                caught += int((is_check & ~true).sum())
                loser = np.where(is_check & ~true, announcer[ended], turn[ended])
                penalty = np.where(is_check & (standing[ended] == 20), 2, 1)
                points[ended, loser] += penalty.astype(np.int8)
                still = (points[ended] < OUT_AT).sum(axis=1)
                over = still <= 1
                if over.any():
                    done = ended[over]
                    winner[done] = np.argmax(points[done] < OUT_AT, axis=1)
                going = ended[~over]
                turn[going] = np.where(points[going, loser[~over]] < OUT_AT, loser[~over], next_in(going, loser[~over]))
                standing[going] = -1
                rounds[going] += 1
        live = live[winner[live] < 0]

    wins = np.bincount(home[g_index, winner], minlength=n)
    rolls = {rules.VALUES[rank]: int(count) for rank, count in enumerate(roll_counts)}
    return Result(
        strategies=list(strategies),
        games=games,
        wins=[int(w) for w in wins],
        rounds=[int(r) for r in rounds],
        points=[int(p) for p in points.sum(axis=1)],
        rolls=rolls,
        checks=checks,
        lies_caught=caught,
        seconds=time.perf_counter() - started,
        seed=seed,
    )


CSV_COLUMNS = ("section", "key", "seats", "count", "out_of", "rate", "low95", "high95")


def write_csv(result: Result, out) -> None:
    """The result as CSV rows; every column means one thing (docs/API.md, "The simulator's CSV").

    `count` events out of `out_of` chances, `rate` = count / out_of, and the
    95 % interval (Wilson) of a rate that is a share (empty where it is fixed
    by symmetry or is no share). `wins`: games one of the strategy's `seats`
    won, of all games (per seat: divide by `seats`); `roll`: rolls of a value,
    of all rolls; `checks`: checks that caught a lie, of all checks;
    `rounds`: rounds played, of all games (the rate is rounds per game).
    """

    def share(count, out_of, interval=True):
        low, high = wilson(count, out_of) if interval and out_of else ("", "")
        return [count, out_of, _fraction(count, out_of)] + [_fraction(low), _fraction(high)]

    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in result.win_rates():
        writer.writerow(["wins", row["strategy"], row["seats"], *share(row["wins"], result.games, not row["fixed"])])
    total = sum(result.rolls.values())
    for value, count in result.rolls.items():
        writer.writerow(["roll", value, "", *share(count, total)])
    writer.writerow(["checks", "caught_a_lie", "", *share(result.lies_caught, result.checks)])
    writer.writerow(["rounds", "per_game", "", *share(sum(result.rounds), result.games, interval=False)])


def _fraction(part, whole=1) -> str:
    return f"{part / whole:.5f}" if part != "" and whole else ""


def main(argv=None) -> int:
    """The command line: simulate, print a summary (or CSV)."""
    parser = argparse.ArgumentParser(prog="python -m maxchen.simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help=f"1 to {MAX_GAMES}")
    parser.add_argument("--strategies", nargs="+", default=["honest", "honest", "honest"], choices=bots.STRATEGIES)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--csv", metavar="FILE", help="write CSV to FILE ('-' for standard output)")
    args = parser.parse_args(argv)
    try:
        result = simulate(args.strategies, args.games, args.seed)
    except ValueError as error:
        parser.error(str(error))
    if args.csv == "-":
        write_csv(result, sys.stdout)
        return 0
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as out:
            write_csv(result, out)
    print(f"{result.games} games of {' '.join(result.strategies)} in {result.seconds:.2f} s")
    for row in result.win_rates():
        spread = "fixed by symmetry" if row["fixed"] else f"95 %: {row['low']:.2%} to {row['high']:.2%}"
        print(f"  {row['strategy']:<13} × {row['seats']} {row['rate']:7.2%} per seat ({spread})")
    print(f"  rounds per game: {sum(result.rounds) / len(result.rounds):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
