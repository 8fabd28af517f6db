"""Every simulated game's own streams of draws, read alike by a batch engine and by the real one.

A batch engine (a rule set's `batch.py`) plays many games at once over numpy
arrays. Each game reads its dice and its bluffers' draws from its own
SplitMix64 streams here, so the real engine, given the same streams
(`Tapes.dice_of`, `Tapes.chances_of`), plays the same games: a test checks
it game by game for every rule set.
"""

import numpy as np

M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15  # SplitMix64's step
TAPES = ("dice", "chances")


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

    def cast(self, count: int, cup: dict) -> list[int]:
        """A cup's dice from the tape (a simulation's: its seeds do not make them)."""
        return self.roll(count)


class Draws(TapeDice):
    """A `random.Random` stand-in for the bots: a game's stream of draws in [0, 1)."""

    def random(self) -> float:
        return self._next() * 2.0**-53
