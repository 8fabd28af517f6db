"""Two-dice values, their ranking, parsing and penalties (docs/rules.md §1–§2).

Pure functions over values: no state, no I/O, no randomness.
"""

import re
from fractions import Fraction

MAEXCHEN = 21
# docs/rules.md §1: plain numbers, then doubles, then Mäxchen; ascending.
VALUES = (31, 32, 41, 42, 43, 51, 52, 53, 54, 61, 62, 63, 64, 65) + (11, 22, 33, 44, 55, 66) + (MAEXCHEN,)
_RANK = {value: index for index, value in enumerate(VALUES)}

CHECK_PENALTY = 1
MAEXCHEN_CHECK_PENALTY = 2
ACCEPT_PENALTY = 1

_NAMES = {"maexchen", "mäxchen", "maxchen", "mäxle", "maexle", "mayer", "meier", "meyer"}
_DICE = re.compile(r"^([1-6])\s*[-–x×,/ ]\s*([1-6])$")


def value_of(dice) -> int:
    """The value of two dice: the higher die is the tens digit."""
    high, low = sorted(dice, reverse=True)
    if (high, low) == (2, 1):
        return MAEXCHEN
    return high * 10 + low


def is_value(value) -> bool:
    """True for the 21 values an announcement may name."""
    return type(value) is int and value in _RANK


def rank(value: int) -> int:
    """Position of a value on the ladder, 0 (31) to 20 (Mäxchen)."""
    return _RANK[value]


def is_higher(value: int, than: int | None) -> bool:
    """True when `value` beats `than` (anything beats no announcement)."""
    return than is None or rank(value) > rank(than)


def parse_value(text) -> int | None:
    """A value from 21, "21", "Mäxchen", "6-5" or "6 5"; None when it is none.

    Two digits are read as a value ("65"); dice with a separator may come in
    either order ("5-6" is 65, "1-2" is Mäxchen).
    """
    if type(text) is int:
        return text if is_value(text) else None
    if not isinstance(text, str):
        return None
    word = text.strip().lower()
    if word in _NAMES:
        return MAEXCHEN
    match = _DICE.match(word)
    if match:
        return value_of((int(match[1]), int(match[2])))
    if word.isascii() and word.isdigit() and is_value(int(word)):
        return int(word)
    return None


def checker_loses(actual: int, announced: int) -> bool:
    """docs/rules.md §2: the checker loses when the real value is not lower."""
    return rank(actual) >= rank(announced)


def check_penalty(announced: int) -> int:
    """Points (or lives) a lost check costs: 2 when Mäxchen was announced."""
    return MAEXCHEN_CHECK_PENALTY if announced == MAEXCHEN else CHECK_PENALTY


def probability(value: int) -> Fraction:
    """Chance that one roll of two dice shows exactly `value`: 1/36 for a double, else 2/36 (21 too)."""
    high, low = divmod(value, 10)
    return Fraction(1 if high == low else 2, 36)
