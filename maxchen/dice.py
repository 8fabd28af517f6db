"""Where dice come from: the system's secure generator, a seeded one, or a fixed list."""

import random
import secrets


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
