"""Simulated games of bots: a rule set's batch engine, or the real engine one game at a time.

Every rule set here brings a batch engine: it plays many games at once over
numpy arrays, and it plays the real engine's games, game by game, from the
same dice and the same bluffers' draws (`rules/tapes.py`; a test checks
every rule set). A rule set without one would play on the real engine.

    python -m maxchen.simulate --games 100000 --strategies honest honest honest
    python -m maxchen.simulate --games 20000 --strategies statistician honest --csv results.csv
    python -m maxchen.simulate --rules luegen --games 10000 --strategies statistician honest bluffer
    python -m maxchen.simulate --rules perudo --option dice=3 --strategies statistician honest
"""

import argparse
import csv
import math
import random
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from . import stats
from .dice import SeededDice
from .errors import IllegalMove
from .rules.bots import STRATEGIES
from .rules.tapes import Tapes
from .rulesets import DEFAULT, REGISTRY

MAX_GAMES = 100_000  # with a batch engine
MAX_ENGINE_GAMES = 1_000  # one by one on the real engine (about 10 ms a game of liar's dice)
ENGINE_SECONDS = 10.0  # and for at most this long: six statisticians at Perudo take ten times as long a game
CHUNK = 20_000  # games of three seats a batch engine plays at once at most: a run stops at its time between two chunks
FIRST_CHUNK = 500  # the first chunk of a run: its pace sizes the next ones to the time left
Z95 = stats.Z95  # the normal quantile of a 95 % interval


@dataclass
class Result:
    """What a batch of games came to."""

    strategies: list[str]
    games: int
    wins: list[int]  # per seat of `strategies` (seats rotate from game to game)
    rounds: list[int] = field(default_factory=list)  # per game
    points: list[int] = field(default_factory=list)  # per game: every penalty point handed out (Poschen: life lost)
    rolls: dict[int, int] = field(default_factory=dict)  # value -> count, every roll made
    checks: int = 0
    lies_caught: int = 0
    seconds: float = 0.0
    seed: int | None = None
    asked: int | None = None  # the games asked for, where fewer were played in the time a run may take
    length: int | None = None  # the game's length option it was played at (/learn says it)

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


def play_engine(strategies: list[str], rng, rules_name: str = DEFAULT, options=None, dice=None, trace=None) -> dict:
    """One game of the real engine between bots: the best seat, rounds, rolls, each seat's standing.

    Every bot that may act is asked once after each move (in Lügen anyone
    may doubt at any time); the first that acts moves the game on. The dice
    come from `dice`, or from `rng` as the bots' draws do. `trace`: a list
    that gets each move as (action, the rolls it settled, the round after it).
    """
    players = [f"p{i}" for i in range(len(strategies))]
    rule_set = REGISTRY[rules_name]
    game = rule_set.game(players, options, dice=dice or SeededDice(rng))
    rolls: list[dict] = []
    moves = 0
    while not game.over:
        waiting = game.waiting_for()
        movers = [*waiting, *(p for p in players if p not in waiting and game.allowed(p))]
        for player in movers:
            view = game.view_for(player)
            view.update(rules=rules_name, phase="playing", you=player)
            action = rule_set.bots(strategies[players.index(player)], view, rng) if view["allowed"] else None
            if action is not None:
                name = action.pop("action")
                game.apply(player, name, action)
                moves += 1
                break
        else:
            raise RuntimeError("no bot could move")
        settled = game.drain_rolls()
        rolls += settled
        if trace is not None:
            trace.append((name, settled, game.round))
    ranking = game.view_for(None)["ranking"]
    return {
        "seat": players.index(ranking[0]),
        "ranking": [players.index(player) for player in ranking],
        "rounds": game.round,
        "rolls": rolls,
        "moves": moves,
        "standing": [game.player_fields(player) for player in players],
        **game.tally,
    }


def simulate(
    strategies: list[str], games: int, seed: int | None = None, rules_name: str = DEFAULT, options: dict | None = None
) -> Result:
    """`games` games of bots between `strategies` (2–10 seats, rotated each game), with the rule set's
    `options` (its defaults where none: a shorter game, say).

    A rule set with a batch engine plays all games at once; any other plays
    them one by one on the real engine.
    """
    rule_set = REGISTRY[rules_name]
    try:
        options = rule_set.game.merged_options(None, options or {})
    except IllegalMove as error:
        raise ValueError(f"bad options ({error.reason}: {error.params})") from None
    n = len(strategies)
    if not rule_set.game.MIN_PLAYERS <= n <= rule_set.game.MAX_PLAYERS:
        raise ValueError(f"{rule_set.game.MIN_PLAYERS} to {rule_set.game.MAX_PLAYERS} players")
    if not 1 <= games <= max_games(rules_name):
        raise ValueError(f"1 to {max_games(rules_name)} games")
    unknown = set(strategies) - set(STRATEGIES)
    if unknown:
        raise ValueError(f"no strategy {sorted(unknown)[0]!r}")
    started = time.perf_counter()
    if rule_set.batch:
        played = batches(rule_set.batch, strategies, games, seed, started + ENGINE_SECONDS, options)
    else:
        played = _one_by_one(strategies, games, seed, rules_name, started + ENGINE_SECONDS, options=options)
    done = len(played["rounds"])
    return Result(
        strategies=list(strategies),
        games=done,
        seconds=time.perf_counter() - started,
        seed=seed,
        asked=games if done < games else None,
        length=options[rule_set.game.LENGTH],
        **played,
    )


def batches(
    play_tapes, strategies: list[str], games: int, seed: int | None, deadline: float, options: dict | None = None
) -> dict:
    """Games by a batch engine (`play_tapes(strategies, tapes, options)`), seats rotated each game: what `Result`
    holds.

    They are played in chunks (`FIRST_CHUNK`, then what the time left holds, `CHUNK` at most) until `deadline`
    (perf_counter): a run that stops there holds the first games of the same run played to its end.
    """
    seed = np.random.SeedSequence().entropy if seed is None else seed
    n = len(strategies)
    most = max(1, CHUNK * 3 // n)  # more seats, more memory a game
    # The first chunk measures the pace of these games (seats, strategies, length); each next one is what the
    # time left holds at that pace: a long game (Lügen's thirty mats at six seats) keeps its time as a short one.
    chunk = min(most, FIRST_CHUNK)
    result = {"wins": [0] * n, "rounds": [], "points": [], "rolls": {}, "checks": 0, "lies_caught": 0}
    first = 0
    while first < games:
        if first and time.perf_counter() >= deadline:
            break
        began = time.perf_counter()
        tapes = Tapes(seed, min(chunk, games - first), first)
        played = play_tapes(strategies, tapes, options)
        pace = (time.perf_counter() - began) / tapes.games
        chunk = max(1, min(most, int((deadline - time.perf_counter()) / max(pace, 1e-9))))
        home = (played["winner"] + first + np.arange(tapes.games)) % n  # seat j of game g: strategies[(j + g) % n]
        result["wins"] = [w + int(more) for w, more in zip(result["wins"], np.bincount(home, minlength=n), strict=True)]
        result["rounds"] += played["rounds"].tolist()
        result["points"] += played["lost"].tolist()
        result["rolls"] = {key: result["rolls"].get(key, 0) + count for key, count in played["rolls"].items()}
        result["checks"] += int(played["checks"].sum())
        result["lies_caught"] += int(played["caught"].sum())
        first += tapes.games
    return result


def max_games(rules_name: str = DEFAULT) -> int:
    """How many games one run may simulate of a rule set."""
    return MAX_GAMES if REGISTRY[rules_name].batch else MAX_ENGINE_GAMES


def _one_by_one(
    strategies: list[str], games: int, seed: int | None, rules_name: str, deadline: float, tapes=None, options=None
) -> dict:
    """Games on the real engine with `options` (the defaults where none), seats rotated each game, until
    `deadline` (perf_counter): what `Result` holds.

    The dice and the bots' draws come from `seed`'s generator, or game by game from a batch engine's `tapes`.
    """
    rng = random.Random(seed)
    n = len(strategies)
    played = {"wins": [0] * n, "rounds": [], "points": [], "rolls": {}, "checks": 0, "lies_caught": 0}
    game_class = REGISTRY[rules_name].game
    options = game_class.merged_options(None, options or {})
    start = game_class.lobby_fields(options)
    scored = {"points", "lives"} & set(start)  # penalty points handed out, or lives lost
    for index in range(games):
        if index and time.perf_counter() > deadline:
            break
        shift = index % n
        seats = strategies[shift:] + strategies[:shift]  # seat j holds strategies[(j + shift) % n]
        if tapes is None:
            game = play_engine(seats, rng, rules_name, options)
        else:
            game = play_engine(seats, tapes.chances_of(index), rules_name, options, dice=tapes.dice_of(index))
        played["wins"][(game["seat"] + shift) % n] += 1
        played["rounds"].append(game["rounds"])
        played["points"].append(sum(abs(seat[key] - start[key]) for seat in game["standing"] for key in scored))
        for roll in game["rolls"]:
            for key in [roll["value"]] if REGISTRY[rules_name].dice == "values" else roll["dice"]:
                played["rolls"][key] = played["rolls"].get(key, 0) + 1
        played["checks"] += game["checks"]
        played["lies_caught"] += game["caught"]
    order = stats.theory(REGISTRY[rules_name].dice)  # ladder order, or faces 1 to 6
    played["rolls"] = {key: played["rolls"].get(key, 0) for key in order}
    return played


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


def _seed(text: str) -> int:
    seed = int(text)
    if seed < 0:
        raise argparse.ArgumentTypeError("a seed is a whole number, 0 or more")
    return seed


def _option(text: str) -> tuple[str, int | str]:
    name, equals, value = text.partition("=")
    if not (name and equals and value):
        raise argparse.ArgumentTypeError("an option is NAME=VALUE")
    return name, int(value) if value.isascii() and value.isdigit() else value


def main(argv=None) -> int:
    """The command line: simulate, print a summary (or CSV)."""
    parser = argparse.ArgumentParser(prog="python -m maxchen.simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help=f"1 to {MAX_GAMES}")
    parser.add_argument("--strategies", nargs="+", default=["honest", "honest", "honest"], choices=STRATEGIES)
    parser.add_argument("--rules", default=DEFAULT, choices=list(REGISTRY), help="the rule set (default: %(default)s)")
    parser.add_argument("--seed", type=_seed, default=None, help="a whole number, 0 or more: the same games again")
    parser.add_argument(
        "--option",
        action="append",
        type=_option,
        default=[],
        metavar="NAME=VALUE",
        help="a rule set's option, as the host sets it (out_at=3, dice=3, lives=3, mats=4)",
    )
    parser.add_argument("--csv", metavar="FILE", help="write CSV to FILE ('-' for standard output)")
    args = parser.parse_args(argv)
    out = None
    if args.csv and args.csv != "-":
        try:  # before the run: a file that cannot be written is said at once
            out = open(args.csv, "w", newline="", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as error:
            parser.error(f"cannot write {args.csv}: {error.strerror}")
    try:
        result = simulate(args.strategies, args.games, args.seed, args.rules, dict(args.option))
    except ValueError as error:
        if out is not None:
            out.close()
        parser.error(str(error))
    if args.csv == "-":
        write_csv(result, sys.stdout)
        return 0
    if out is not None:
        with out:
            write_csv(result, out)
    print(f"{result.games} games of {' '.join(result.strategies)} in {result.seconds:.2f} s")
    for row in result.win_rates():
        spread = "fixed by symmetry" if row["fixed"] else f"95 %: {row['low']:.2%} to {row['high']:.2%}"
        print(f"  {row['strategy']:<13} × {row['seats']} {row['rate']:7.2%} per seat ({spread})")
    print(f"  rounds per game: {sum(result.rounds) / len(result.rounds):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
