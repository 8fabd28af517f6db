"""Dice against theory: expected shares, the χ² test and its p-value, the ladder's odds.

Pure functions over counts: no state, no I/O. The χ² tail has a closed form
for whole degrees of freedom (even: a finite sum; odd: erfc and a finite
sum), so no statistics library is needed.
"""

import math
from fractions import Fraction
from functools import cache

from . import rules

FACES = (1, 2, 3, 4, 5, 6)
MIN_EXPECTED = 5  # the usual rule: χ² reads well when every expected count is at least 5


value_chance = rules.probability  # RULES.md §1


def theory(kind: str) -> dict[int, Fraction]:
    """Expected shares: `values` (two dice, ladder order) or `faces` (one die)."""
    if kind == "values":
        return {value: value_chance(value) for value in rules.VALUES}
    return {face: Fraction(1, 6) for face in FACES}


@cache
def at_least(value: int) -> Fraction:
    """The chance that a fresh roll is `value` or higher on the ladder."""
    return sum((value_chance(v) for v in rules.VALUES if rules.rank(v) >= rules.rank(value)), Fraction(0))


@cache
def beats(value: int) -> Fraction:
    """The chance that a fresh roll beats `value` (what the next player needs without a bluff)."""
    return sum((value_chance(v) for v in rules.VALUES if rules.rank(v) > rules.rank(value)), Fraction(0))


def chi_square(observed: dict[int, int], expected: dict[int, Fraction]) -> tuple[float, int]:
    """Pearson's χ² of `observed` counts against `expected` shares, and its degrees of freedom."""
    total = sum(observed.get(key, 0) for key in expected)
    if total == 0:
        return 0.0, len(expected) - 1
    statistic = 0.0
    for key, share in expected.items():
        wanted = total * float(share)
        statistic += (observed.get(key, 0) - wanted) ** 2 / wanted
    return statistic, len(expected) - 1


def p_value(statistic: float, df: int) -> float:
    """P(χ² with `df` degrees of freedom ≥ `statistic`): the upper regularized gamma Q(df/2, x/2)."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if statistic <= 0:
        return 1.0
    half = statistic / 2
    if df % 2 == 0:
        # Q(m, h) = e^-h Σ_{j<m} h^j / j!
        term = total = 1.0
        for j in range(1, df // 2):
            term *= half / j
            total += term
        return min(1.0, math.exp(-half) * total)
    # Q(m + 1/2, h) = erfc(√h) + e^-h Σ_{j=1..m} h^(j-1/2) / Γ(j + 1/2)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(half) / (math.sqrt(math.pi) / 2)  # j = 1: h^(1/2) / Γ(3/2)
    for j in range(1, (df - 1) // 2 + 1):
        total += math.exp(-half) * term
        term *= half / (j + 0.5)
    return min(1.0, total)


def test(observed: dict[int, int], kind: str) -> dict:
    """Counts against theory: per key the count, share and expected share; χ², df, p, and a verdict.

    The verdict (a code for the page to word): `few` while some expected
    count is under `MIN_EXPECTED`, `fair` for p ≥ 0.05, `unusual` for
    0.001 ≤ p < 0.05, `suspect` below.
    """
    expected = theory(kind)
    total = sum(observed.get(key, 0) for key in expected)
    statistic, df = chi_square(observed, expected)
    p = p_value(statistic, df)
    if total * min(float(share) for share in expected.values()) < MIN_EXPECTED:
        verdict = "few"
    elif p >= 0.05:
        verdict = "fair"
    elif p >= 0.001:
        verdict = "unusual"
    else:
        verdict = "suspect"
    rows = [
        {
            "key": key,
            "count": observed.get(key, 0),
            "share": observed.get(key, 0) / total if total else 0.0,
            "expected": float(share),
        }
        for key, share in expected.items()
    ]
    return {"kind": kind, "total": total, "rows": rows, "chi2": statistic, "df": df, "p": p, "verdict": verdict}


# --- a room's counts, shown only when the table may know them ---
#
# A roll counts at once when everyone saw it (at a check or a doubt); a roll
# passed on unseen (believed, accepted, left in a cup) waits in `pending`
# until its game is over. Else the board would tell on a liar: "41" ticking
# up right after Ann's "62" was believed. Keys are strings (the counts are
# stored as JSON).


def new_counts() -> dict:
    """Empty counts of a room."""
    return {"values": {}, "faces": {}, "checks": 0, "lies": 0, "checked": {}, "pending": {"values": {}, "faces": {}}}


def count_rolls(counts: dict, rolls) -> None:
    """Add settled rolls (from `Game.drain_rolls`) to a room's counts."""
    for roll in rolls:
        target = counts if roll.get("public") else counts["pending"]
        if len(roll["dice"]) == 2:  # Mäxchen and Poschen: the value of the two dice
            _add(target["values"], roll["value"])
        else:  # Lügen: every die of a cup
            for face in roll["dice"]:
                _add(target["faces"], face)
        if roll.get("found") is not None:  # a check: who lied, at what height of the ladder
            counts["checks"] += 1
            counts["lies"] += not roll["found"]
            checked = counts["checked"].setdefault(str(roll["announced"]), [0, 0])
            checked[0] += 1
            checked[1] += not roll["found"]


def settle(counts: dict) -> None:
    """The game is over: the rolls nobody saw count now."""
    for kind in ("values", "faces"):
        for key, n in counts["pending"][kind].items():
            _add(counts[kind], key, n)
        counts["pending"][kind] = {}


def merge(total: dict, counts: dict) -> None:
    """Add one room's counts to `total` (a class's tables pooled): every number, at every depth."""
    for key, value in counts.items():
        if isinstance(value, dict):
            merge(total.setdefault(key, {}), value)
        elif isinstance(value, list):
            held = total.setdefault(key, [0] * len(value))
            held[:] = [a + b for a, b in zip(held, value, strict=True)]
        else:
            total[key] = total.get(key, 0) + value


def _add(counter: dict, key, n: int = 1) -> None:
    counter[str(key)] = counter.get(str(key), 0) + n


def shown(counts: dict) -> dict:
    """What the table may see of a room's counts: the rolls against theory, and the checks."""
    values = {int(k): n for k, n in counts["values"].items()}
    faces = {int(k): n for k, n in counts["faces"].items()}
    ladder = [
        {"value": value, "checks": counts["checked"][str(value)][0], "lies": counts["checked"][str(value)][1]}
        for value in rules.VALUES
        if str(value) in counts["checked"]
    ]
    return {
        "values": test(values, "values") if values else None,
        "faces": test(faces, "faces") if faces else None,
        "checks": counts["checks"],
        "lies": counts["lies"],
        "ladder": ladder,
    }
