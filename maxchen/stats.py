"""Dice against theory: expected shares, the χ² test and its p-value, the ladder's odds, lies.

Pure functions over counts: no state, no I/O (the CSV writer writes to the
stream it is given). The χ² tail has a closed form for whole degrees of
freedom (even: a finite sum; odd: erfc and a finite sum), so no statistics
library is needed.
"""

import datetime
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
#
# Lies along the ladder: `checked` counts, per announced value, the checks and
# the lies they caught (public at once); `announced` counts every announcement
# and its lies once the table may know the dice under it (a believed one only
# when its game is over). Lügen: `doubted` counts, per bid count, the doubts
# and the bids that fell.

PENDING = ("values", "faces", "announced")


def new_counts() -> dict:
    """Empty counts of a room."""
    return {
        "values": {},
        "faces": {},
        "checks": 0,
        "lies": 0,
        "checked": {},
        "announced": {},
        "doubts": 0,
        "fell": 0,
        "doubted": {},
        "pending": {kind: {} for kind in PENDING},
    }


def _upgrade(counts: dict) -> dict:
    """Counts saved before a kind of count existed get it, empty."""
    for key, empty in new_counts().items():
        counts.setdefault(key, empty)
    for kind in PENDING:
        counts["pending"].setdefault(kind, {})
    return counts


def is_lie(roll: dict) -> bool | None:
    """Whether the claim made with a logged roll was a lie (None: it made none, or it is unknown).

    Two dice: the value under the cup is below the announced one (RULES.md §2).
    Lügen: the bidder's cup of a doubt, when the table held fewer than the bid.
    """
    if roll.get("announced") is not None and roll.get("value") is not None:
        return rules.rank(roll["value"]) < rules.rank(roll["announced"])
    if roll.get("bid") and roll.get("found") is not None:
        return not roll["found"]
    return None


def count_rolls(counts: dict, rolls) -> None:
    """Add settled rolls (from `Game.drain_rolls`) to a room's counts."""
    _upgrade(counts)
    for roll in rolls:
        target = counts if roll.get("public") else counts["pending"]
        if len(roll["dice"]) == 2:  # Mäxchen and Poschen: the value of the two dice
            _add(target["values"], roll["value"])
        else:  # Lügen: every die of a cup
            for face in roll["dice"]:
                _add(target["faces"], face)
        lie = is_lie(roll)
        if roll.get("announced") is not None:
            _tally(target["announced"], roll["announced"], lie)
        if roll.get("found") is None:
            continue
        if roll.get("bid"):  # a doubt: did the bid stand, at what count
            counts["doubts"] += 1
            counts["fell"] += lie
            _tally(counts["doubted"], roll["bid"]["count"], lie)
        else:  # a check: who lied, at what height of the ladder
            counts["checks"] += 1
            counts["lies"] += lie
            _tally(counts["checked"], roll["announced"], lie)


def settle(counts: dict) -> bool:
    """The game is over: the rolls nobody saw count now. Whether there were any."""
    _upgrade(counts)
    moved = False
    for kind in PENDING:
        for key, n in counts["pending"][kind].items():
            moved = True
            if kind == "announced":
                said = counts["announced"].setdefault(key, [0, 0])
                said[0] += n[0]
                said[1] += n[1]
            else:
                _add(counts[kind], key, n)
        counts["pending"][kind] = {}
    return moved


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


def _tally(counter: dict, key, lie: bool) -> None:
    """One more claim at `key`, and one more lie if it was one."""
    entry = counter.setdefault(str(key), [0, 0])
    entry[0] += 1
    entry[1] += bool(lie)


def shown(counts: dict) -> dict:
    """What the table may see of a room's counts: the rolls against theory, and the lies along the ladder.

    `ladder`: per announced value (ladder order), the checks and the lies
    they caught, and all announcements whose dice the table knows and their
    lies. `bids`: per Lügen bid count, the doubts and the bids that fell.
    """
    counts = _upgrade(counts)
    values = {int(k): n for k, n in counts["values"].items()}
    faces = {int(k): n for k, n in counts["faces"].items()}
    checked, said = counts["checked"], counts["announced"]
    ladder = [
        {
            "value": value,
            "checks": checked.get(str(value), [0, 0])[0],
            "lies": checked.get(str(value), [0, 0])[1],
            "announced": said.get(str(value), [0, 0])[0],
            "untrue": said.get(str(value), [0, 0])[1],
        }
        for value in rules.VALUES
        if str(value) in checked or str(value) in said
    ]
    bids = [{"count": int(k), "doubts": n, "fell": fell} for k, (n, fell) in counts["doubted"].items()]
    return {
        "values": test(values, "values") if values else None,
        "faces": test(faces, "faces") if faces else None,
        "checks": counts["checks"],
        "lies": counts["lies"],
        "ladder": ladder,
        "announced": sum(row["announced"] for row in ladder),
        "untrue": sum(row["untrue"] for row in ladder),
        "doubts": counts["doubts"],
        "fell": counts["fell"],
        "bids": sorted(bids, key=lambda row: row["count"]),
    }


# --- a room's roll log as CSV ---

LOG_CSV_COLUMNS = (
    "game",
    "round",
    "time",
    "rules",
    "player",
    "dice",
    "value",
    "announced",
    "bid_count",
    "bid_face",
    "table_count",
    "answered_by",
    "outcome",
    "lie",
)
# A cell starting with one of these is a formula to a spreadsheet (OWASP, "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    """Text a spreadsheet shows as it is: a leading formula character is quoted away with an apostrophe."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def log_csv_header(tables: bool = False) -> tuple:
    """The CSV's first row (a class's starts with its table)."""
    return ("table", *LOG_CSV_COLUMNS) if tables else LOG_CSV_COLUMNS


def log_csv_rows(entries, names: bool = False, table=None):
    """A room's roll log (`store.room_log`) as CSV rows: one per roll the table may know, oldest first.

    Players are P1, P2, … in the order they first appear in the log (rolling
    or answering), so a label stays the same from one download to the next;
    with `names`, their names as they were then. A class's table puts its
    number (`table`) first. docs/API.md lists the columns.
    """
    labels: dict[str, str] = {}
    for entry in entries:
        for player in (entry["player"], entry["answerer"]):
            if player is not None and player not in labels:
                labels[player] = f"P{len(labels) + 1}"

    def who(player, name):
        if names and name:
            return _cell(name)
        return labels.get(player, "")

    for entry in entries:
        if not entry["public"]:
            continue  # not yet the table's to know: a roll passed on unseen, in a game not over
        bid = entry["bid"] or {}
        lie = is_lie(entry)
        moment = datetime.datetime.fromtimestamp(entry["time"], datetime.UTC)
        yield ([] if table is None else [table]) + [
            entry["game"],
            entry["round"],
            moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
            entry["rules"],
            who(entry["player"], entry["name"]),
            " ".join(map(str, entry["dice"])),
            entry["value"],
            entry["announced"],
            bid.get("count"),
            bid.get("face"),
            entry["table"],
            who(entry["answerer"], entry["answerer_name"]),
            entry["outcome"],
            "" if lie is None else int(lie),
        ]
