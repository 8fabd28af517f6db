"""Where dice come from: the system's secure generator, a seeded one, a loaded one, or a fixed list."""

import random
import secrets
from fractions import Fraction


class SeededDice:
    """Replayable dice from a seed (or a `random.Random`): simulations and tests, never a real game."""

    def __init__(self, seed=None):
        self._random = seed if isinstance(seed, random.Random) else random.Random(seed)

    def roll(self, count: int) -> list[int]:
        """Roll `count` six-sided dice."""
        return [self._random.randint(1, 6) for _ in range(count)]


class SystemDice(SeededDice):
    """Production dice: `secrets.SystemRandom` (docs/rules.md §5)."""

    def __init__(self):
        super().__init__(secrets.SystemRandom())


class LoadedDice:
    """A lesson's loaded dice (a class's table only, docs/rules.md §7): every die shows a six `six` of
    the time and each other face an equal share of the rest; drawn from `base`'s generator when it has one."""

    def __init__(self, six: Fraction, base=None):
        self.six = Fraction(six)
        self._random = getattr(base, "_random", None) or secrets.SystemRandom()

    def roll(self, count: int) -> list[int]:
        """Roll `count` loaded dice."""
        return [6 if self._random.random() < self.six else self._random.randint(1, 5) for _ in range(count)]


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
