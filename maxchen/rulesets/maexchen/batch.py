"""The two-dice batch simulator: many games of Mäxchen or Poschen at once over numpy arrays (docs/rules.md §2, §3).

Every game is a row, every step moves all unfinished games by one decision.
The strategies are the tables `bots` makes, and every game reads its dice
and its bluffers' draws from its own row of `Tapes`: the real engine, given
the same rows (`Tapes.dice_of`, `Tapes.chances_of`), plays the same games,
which a test checks game by game.
"""

import time
from dataclasses import dataclass

import numpy as np

from ...rules import two_dice
from . import bots
from .game import MaexchenGame

OUT_AT = MaexchenGame.OUT_AT


@dataclass(frozen=True)
class Ladder:
    """What the two-dice rule sets differ in, for the batch engine."""

    lives: int  # each player's margin at the start: Mäxchen's points to go out, Poschen's lives
    points: bool  # the score counts points up (Mäxchen), else lives down and never below 0 (Poschen)
    accept: bool  # a 21 may be accepted
    checker_opens: bool  # the checker opens the next round (Poschen), else the loser


MAEXCHEN = Ladder(OUT_AT, points=True, accept=True, checker_opens=False)
M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15  # SplitMix64's step
TAPES = ("dice", "chances")
CHUNK = 20_000  # games played at once: a run stops at its time between two chunks


def _mix(z):
    """SplitMix64's output function, on a Python int or a numpy uint64 array alike."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class Tapes:
    """Every game's own two streams of draws, SplitMix64 from a key of (seed, game, stream): its dice, and
    its bluffers' draws in [0, 1). A draw is a function of its game and place alone, so the batch engine and
    the real one (`dice_of`, `chances_of`) read the same ones in whatever order the games are played."""

    def __init__(self, seed: int, games: int, first: int = 0):
        """The tapes of games `first` to `first + games - 1` of the run `seed` (a whole number, 0 or more)."""
        self.seed = int(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])  # every bit of a big seed
        self.games, self.first = games, first
        streams = np.arange(len(TAPES), dtype=np.uint64)[:, None]
        numbers = np.arange(first, first + games, dtype=np.uint64)[None, :]
        self.keys = self.key(numbers, streams)  # [stream, game - first]

    def key(self, game, stream):
        """The key of a game's stream (ints, or numpy uint64 arrays)."""
        return _mix((self.seed + (len(TAPES) * game + stream + 1) * GAMMA) & M64)

    @staticmethod
    def _bits(key, place):
        """The top 53 bits of draw `place` (from 0) of the stream with `key`."""
        return _mix((key + (place + 1) * GAMMA) & M64) >> 11

    def read(self, tape: str, rows: np.ndarray, at: np.ndarray, count: int) -> np.ndarray:
        """`count` draws of each row (a game, counted from `first`) from its place `at`: shape (count, len(rows))."""
        places = (at + np.arange(count)[:, None]).astype(np.uint64)
        bits = self._bits(self.keys[TAPES.index(tape), rows], places)
        return (bits * 6 >> 53).astype(np.int64) + 1 if tape == "dice" else bits * 2.0**-53

    def dice_of(self, game: int) -> "TapeDice":
        """Game `game`'s dice for the real engine."""
        return TapeDice(self.key(game, TAPES.index("dice")), self._bits)

    def chances_of(self, game: int) -> "Draws":
        """Game `game`'s draws for the real engine's bots."""
        return Draws(self.key(game, TAPES.index("chances")), self._bits)


class TapeDice:
    """A game's dice stream read one die at a time, as the batch engine reads it."""

    def __init__(self, key: int, bits):
        self._key, self._bits, self._place = key, bits, 0

    def _next(self) -> int:
        self._place += 1
        return self._bits(self._key, self._place - 1)

    def roll(self, count: int) -> list[int]:
        return [(self._next() * 6 >> 53) + 1 for _ in range(count)]


class Draws(TapeDice):
    """A `random.Random` stand-in for the bots: a game's stream of draws in [0, 1)."""

    def random(self) -> float:
        return self._next() * 2.0**-53


def _tables(strategy: str, may_accept: bool) -> tuple[np.ndarray, np.ndarray]:
    """(answer[earlier + 1, announced]: 0 believe, 1 check, 2 accept; announce[earlier + 1, roll]: rank)."""
    answer = np.zeros((22, 21), dtype=np.int8)
    announce = np.full((22, 21), -1, dtype=np.int8)
    for earlier in range(-1, 21):
        for rank in range(21):
            move = bots.answer_rank(strategy, rank, earlier, may_accept)
            answer[earlier + 1, rank] = ("believe", "check", "accept").index(move)
            if strategy != "bluffer" and earlier < 20:
                announce[earlier + 1, rank] = bots.announce_rank(strategy, rank, earlier, None)
    return answer, announce


# The rank of two dice, indexed [die1 - 1, die2 - 1].
ROLL_RANK = np.array(
    [[two_dice.rank(two_dice.value_of((a, b))) for b in range(1, 7)] for a in range(1, 7)], dtype=np.int8
)


def play(
    strategies: list[str], games: int, seed: int | None = None, ladder: Ladder = MAEXCHEN, deadline: float | None = None
) -> dict:
    """`games` games between `strategies` (seats rotated each game): what `simulate.Result` holds.

    They are played `CHUNK` at a time until `deadline` (perf_counter): a run that stops there holds the
    first games of the same run played to its end.
    """
    seed = np.random.SeedSequence().entropy if seed is None else seed
    n = len(strategies)
    result = {"wins": [0] * n, "rounds": [], "points": [], "rolls": {}, "checks": 0, "lies_caught": 0}
    for first in range(0, games, CHUNK):
        if first and deadline is not None and time.perf_counter() > deadline:
            break
        tapes = Tapes(seed, min(CHUNK, games - first), first)
        played = play_tapes(strategies, tapes, ladder)
        home = (played["winner"] + first + np.arange(tapes.games)) % n  # seat j of game g: strategies[(j + g) % n]
        lost = played["score"] if ladder.points else ladder.lives - played["score"]
        result["wins"] = [w + int(more) for w, more in zip(result["wins"], np.bincount(home, minlength=n), strict=True)]
        result["rounds"] += played["rounds"].tolist()
        result["points"] += lost.sum(axis=1).tolist()
        result["rolls"] = {value: result["rolls"].get(value, 0) + count for value, count in played["rolls"].items()}
        result["checks"] += int(played["checks"].sum())
        result["lies_caught"] += int(played["caught"].sum())
    return result


def play_tapes(strategies: list[str], tapes: Tapes, ladder: Ladder = MAEXCHEN) -> dict:
    """Every game of `tapes`, seat j of game g holding strategies[(j + g) % n]: per game its winner's seat,
    rounds, each seat's score (points or lives, as the game counts them), checks and lies caught (arrays, a
    row per game), and every roll's count."""
    n, games = len(strategies), tapes.games
    names = list(dict.fromkeys(strategies))
    answer = np.stack([_tables(name, ladder.accept)[0] for name in names])
    announce = np.stack([_tables(name, ladder.accept)[1] for name in names])
    bluffs = np.array([name == "bluffer" for name in names])
    of_seat = np.array([names.index(s) for s in strategies])
    numbers = tapes.first + np.arange(games)  # each game's number in its run
    kind = of_seat[(np.arange(n)[None, :] + numbers[:, None]) % n]  # [games, seats] -> strategy index

    lives = np.full((games, n), ladder.lives, dtype=np.int64)  # in at more than 0
    turn = np.zeros(games, dtype=np.int64)
    standing = np.full(games, -1, dtype=np.int64)  # the standing announcement's rank
    earlier = np.full(games, -1, dtype=np.int64)  # the one before it
    real = np.zeros(games, dtype=np.int64)  # the rank under the announcer's cup
    announcer = np.zeros(games, dtype=np.int64)
    rounds = np.ones(games, dtype=np.int64)
    winner = np.full(games, -1, dtype=np.int64)
    checks = np.zeros(games, dtype=np.int64)
    caught = np.zeros(games, dtype=np.int64)
    dice_at = np.zeros(games, dtype=np.int64)  # each game's place on its tapes
    chances_at = np.zeros(games, dtype=np.int64)
    roll_counts = np.zeros(21, dtype=np.int64)
    live = np.arange(games)

    def next_in(rows, seats):
        """The next seat after `seats` (per row) still in the game."""
        found = np.full(len(rows), -1, dtype=np.int64)
        for step in range(1, n + 1):
            candidate = (seats + step) % n
            free = (found < 0) & (lives[rows, candidate] > 0)
            found[free] = candidate[free]
        return found

    def roll_and_announce(rows, over):
        """The player with the turn rolls and announces over rank `over` (-1: none)."""
        dice = tapes.read("dice", rows, dice_at[rows], 2)
        dice_at[rows] += 2
        roll = ROLL_RANK[dice[0] - 1, dice[1] - 1].astype(np.int64)
        np.add.at(roll_counts, roll, 1)
        who = kind[rows, turn[rows]]
        said = announce[who, over + 1, roll].astype(np.int64)
        bluffing = bluffs[who]
        if bluffing.any():  # as bots.announce_rank: two draws at every announcement
            b = np.flatnonzero(bluffing)
            bluff, pick = tapes.read("chances", rows[b], chances_at[rows[b]], 2)
            chances_at[rows[b]] += 2
            lowest = over[b] + 1
            can = roll[b] >= lowest
            lie = (~can) | ((roll[b] < 20) & (bluff < bots.BLUFF_RATE))
            floor = np.where(can, roll[b] + 1, lowest)
            said[b] = np.where(lie, floor + (pick * (21 - floor)).astype(np.int64), roll[b])
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
                is_check = move[move != 0] == 1
                true = real[ended] >= standing[ended]
                checks[ended] += is_check
                caught[ended] += is_check & ~true
                loser = np.where(is_check & ~true, announcer[ended], turn[ended])
                penalty = np.where(is_check & (standing[ended] == 20), 2, 1)
                lives[ended, loser] -= penalty
                if not ladder.points:
                    lives[ended, loser] = np.maximum(lives[ended, loser], 0)
                over = (lives[ended] > 0).sum(axis=1) <= 1
                if over.any():
                    done = ended[over]
                    winner[done] = np.argmax(lives[done] > 0, axis=1)
                going = ended[~over]
                opener = turn[going] if ladder.checker_opens else loser[~over]
                turn[going] = np.where(lives[going, opener] > 0, opener, next_in(going, opener))
                standing[going] = -1
                rounds[going] += 1
        live = live[winner[live] < 0]

    return {
        "winner": winner,
        "rounds": rounds,
        "score": ladder.lives - lives if ladder.points else lives,
        "checks": checks,
        "caught": caught,
        "rolls": {two_dice.VALUES[rank]: int(count) for rank, count in enumerate(roll_counts)},
    }
