"""Where dice come from: the system's secure generator, a seeded one, a loaded one, or a fixed list.

Each has `roll(count)` and `cast(count, cup)`: a cup's dice from its record
(maxchen/fair.py). The system's dice read them from the record's seeds, as
anyone can again; seeded and fixed dice (simulations, tests) roll their own.
"""

import random
import secrets
from fractions import Fraction

from . import fair


class SeededDice:
    """Replayable dice from a seed (or a `random.Random`): simulations and tests, never a real game."""

    def __init__(self, seed=None):
        self._random = seed if isinstance(seed, random.Random) else random.Random(seed)

    def roll(self, count: int) -> list[int]:
        """Roll `count` six-sided dice."""
        return [self._random.randint(1, 6) for _ in range(count)]

    def cast(self, count: int, cup: dict) -> list[int]:
        """A cup's dice: rolled here (its seeds do not make them)."""
        return self.roll(count)


class SystemDice(SeededDice):
    """Production dice: `secrets.SystemRandom` (docs/rules.md §5)."""

    reads_seeds = True  # a cup's dice come from its seeds

    def __init__(self):
        super().__init__(secrets.SystemRandom())

    def cast(self, count: int, cup: dict) -> list[int]:
        """A cup's dice, read from its seeds (fair.faces): nobody chose them."""
        return fair.faces(cup, count)


class ReplayDice(SystemDice):
    """Dice read from their seeds as in production, the seeds drawn from a seed: the same games on every
    run, every reveal verifiable (tests that show boards and reveals)."""

    def __init__(self, seed):
        SeededDice.__init__(self, seed)

    def draw(self) -> str:
        """A server seed (or, cut short, a client seed) from this dice's generator."""
        return f"{self._random.getrandbits(256):064x}"


class LoadedDice:
    """A lesson's loaded dice (a class's table only, docs/rules.md §7): every die shows a six `six` of
    the time and each other face an equal share of the rest; drawn from `base`'s generator when it has one."""

    def __init__(self, six: Fraction, base=None):
        self.six = Fraction(six)
        self.weights = fair.weights(self.six)  # every pending cup's, in its commit before the shake
        self._random = getattr(base, "_random", None) or secrets.SystemRandom()
        self._fair = base is None or getattr(base, "reads_seeds", False)
        if hasattr(base, "draw"):
            self.draw = base.draw

    def roll(self, count: int) -> list[int]:
        """Roll `count` loaded dice."""
        return [6 if self._random.random() < self.six else self._random.randint(1, 5) for _ in range(count)]

    def cast(self, count: int, cup: dict) -> list[int]:
        """A cup's loaded dice: its record's weights, bound by its commit before the shake (a cup committed
        before its table was loaded, or saved before loadings were bound, has none: it rolls fair)."""
        return fair.faces(cup, count) if self._fair else self.roll(count)


class Placed:
    """A table's game's dice: its room's code and the game's number go into every cup's commit and record."""

    def __init__(self, dice, room: str, game: int):
        self.dice, self.room, self.game = dice, room, game
        self.weights = getattr(dice, "weights", None)  # a loaded game's, for each cup's commit
        if hasattr(dice, "draw"):
            self.draw = dice.draw

    def roll(self, count: int) -> list[int]:
        """Roll `count` dice of the underlying source."""
        return self.dice.roll(count)

    def cast(self, count: int, cup: dict) -> list[int]:
        """A cup's dice from the underlying source."""
        return self.dice.cast(count, cup)


class FixedDice:
    """Dice that come up as listed, in order: for tests and transcripts."""

    def __init__(self, rolls=()):
        self._rolls = [list(roll) for roll in rolls]

    def add(self, *rolls):
        """Queue more rolls."""
        self._rolls.extend(list(roll) for roll in rolls)

    def roll(self, count: int) -> list[int]:
        """The next queued roll; it must have `count` dice."""
        if not self._rolls:
            raise LookupError("no fixed roll left")
        roll = self._rolls.pop(0)
        if len(roll) != count:
            raise ValueError(f"fixed roll {roll} has not {count} dice")
        return roll

    def cast(self, count: int, cup: dict) -> list[int]:
        """The next queued roll (its seeds do not make it)."""
        return self.roll(count)
