"""Dice against theory: expected shares, the χ² test, its p-value and its power, the ladder's odds, lies.

Pure functions over counts: no state, no I/O (the CSV writer writes to the
stream it is given). The χ² tail has a closed form for whole degrees of
freedom (even: a finite sum; odd: erfc and a finite sum), and the power of
the test is a Poisson mixture of such tails, so no statistics library is
needed (tests check every figure against scipy.stats).
"""

import datetime
import math
from fractions import Fraction
from functools import cache, lru_cache

from .rules import two_dice

FACES = (1, 2, 3, 4, 5, 6)
MIN_EXPECTED = 5  # the usual rule: χ² reads well when every expected count is at least 5
ALPHA = 0.05  # below it a spread is "unusual"; below SUSPECT "very unlikely by chance"
SUSPECT = 0.001
POWER = 0.8  # the power line: how many rolls the test needs to notice the loading 8 times in 10
LOADED_SIX = Fraction(1, 4)  # the loading the power line speaks of: one die showing a six a quarter of the time


value_chance = two_dice.probability  # docs/rules.md §1


def theory(kind: str) -> dict[int, Fraction]:
    """Expected shares: `values` (two dice, ladder order) or `faces` (one die)."""
    if kind == "values":
        return {value: value_chance(value) for value in two_dice.VALUES}
    return {face: Fraction(1, 6) for face in FACES}


@cache
def loaded(kind: str, six: Fraction = LOADED_SIX) -> dict[int, Fraction]:
    """Shares with one die loaded (a six `six` of the time): its `faces`, or `values` of it and a fair one."""
    die = {face: six if face == 6 else (1 - six) / 5 for face in FACES}
    if kind == "faces":
        return die
    shares = dict.fromkeys(two_dice.VALUES, Fraction(0))
    for first in FACES:
        for second in FACES:
            shares[two_dice.value_of([first, second])] += die[first] / 6
    return shares


@cache
def at_least(value: int) -> Fraction:
    """The chance that a fresh roll is `value` or higher on the ladder."""
    return sum((value_chance(v) for v in two_dice.VALUES if two_dice.rank(v) >= two_dice.rank(value)), Fraction(0))


@cache
def beats(value: int) -> Fraction:
    """The chance that a fresh roll beats `value` (what the next player needs without a bluff)."""
    return sum((value_chance(v) for v in two_dice.VALUES if two_dice.rank(v) > two_dice.rank(value)), Fraction(0))


def goes_on(value: int, follows) -> Fraction:
    """The chance that a fresh roll lets the next player announce it truthfully after `value`.

    `follows(value, previous)` is the rule set's ladder: what may be announced after what.
    """
    return sum((value_chance(v) for v in two_dice.VALUES if follows(v, value)), Fraction(0))


def claim_true(claim: int, previous: int | None = None) -> Fraction:
    """The chance that an announcement of `claim` after `previous` is true, for a player who announces
    their roll when it beats `previous` and otherwise the smallest value that does (docs/rules.md §1):
    P(roll = claim) / P(they announce claim), Bayes with dice."""
    if not two_dice.is_higher(claim, previous):
        raise ValueError("a claim beats the announcement before it")
    honest = value_chance(claim)
    smallest = min((v for v in two_dice.VALUES if two_dice.is_higher(v, previous)), key=two_dice.rank)
    lie = 1 - beats(previous) if previous is not None and claim == smallest else Fraction(0)
    return honest / (honest + lie)


def percent_text(chance, decimals: int | None = None) -> str:
    """A chance as a class reads it: whole percents, one decimal under 10 % and from 99.5 % (or always
    `decimals`), never "0 %" for a chance that is not 0 nor "100 %" for one that is not 1."""
    chance = float(chance)
    if 0 < chance < 0.001:
        return "< 0.1\u00a0%"
    if 0.999 < chance < 1:
        return "> 99.9\u00a0%"
    if decimals is None:
        decimals = 1 if chance not in (0, 1) and (chance < 0.1 or chance >= 0.995) else 0
    return f"{100 * chance:.{decimals}f}\u00a0%"


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


def _solve(f, low: float, high: float) -> float:
    """The x in [low, high] where the increasing `f` crosses 0 (bisection)."""
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if f(middle) < 0 else (low, middle)
    return (low + high) / 2


@cache
def critical(df: int, alpha: float = ALPHA) -> float:
    """The χ² a spread must reach to be called unusual at `alpha`."""
    return _solve(lambda x: alpha - p_value(x, df), 0.0, 1000.0)


def noncentral_tail(statistic: float, df: int, shift: float) -> float:
    """P(noncentral χ² (df, noncentrality `shift`) ≥ `statistic`): central tails mixed by Poisson(shift/2)."""
    half = shift / 2
    if shift + df - statistic > 6 * math.sqrt(2 * (df + 2 * shift)):  # 6 standard deviations past it
        return 1.0  # 1 to every digit shown (and e^-half would underflow): no need to sum
    if half > 700:
        return 1.0
    weight, total, j = math.exp(-half), 0.0, 0
    while j < half + 12 * math.sqrt(half) + 40:
        total += weight * p_value(statistic, df + 2 * j)
        j += 1
        weight *= half / j
    return min(1.0, total)


def _shift(kind: str, six: Fraction) -> float:
    """The noncentrality one roll adds under the loading: Σ (loaded − fair)² / fair."""
    fair, load = theory(kind), loaded(kind, six)
    return float(sum((load[key] - share) ** 2 / share for key, share in fair.items()))


@lru_cache(maxsize=4096)
def power(rolls: int, kind: str, six: Fraction = LOADED_SIX) -> float:
    """How often a test of `rolls` rolls at `ALPHA` notices the loading of `loaded` (large-sample χ²); never
    before `needed` rolls, when there is no test at all."""
    if rolls < needed(kind):
        return 0.0
    df = len(theory(kind)) - 1
    return noncentral_tail(critical(df), df, rolls * _shift(kind, six))


@cache
def rolls_to_notice(kind: str, six: Fraction = LOADED_SIX) -> int:
    """How many rolls the test needs to notice the loading `POWER` of the time (and to be made at all)."""
    df = len(theory(kind)) - 1
    shift = _solve(lambda s: noncentral_tail(critical(df), df, s) - POWER, 0.0, 1000.0)
    return max(needed(kind), math.ceil(shift / _shift(kind, six)))


def needed(kind: str) -> int:
    """Rolls before every expected count reaches `MIN_EXPECTED`: before that, no χ² at all."""
    return math.ceil(MIN_EXPECTED / min(theory(kind).values()))


def rows(observed: dict[int, int], kind: str) -> list[dict]:
    """Per key (ladder order, or face): the count and share observed, and the count and share expected."""
    total = sum(observed.get(key, 0) for key in theory(kind))
    return [
        {
            "key": key,
            "observed": observed.get(key, 0),
            "share": observed.get(key, 0) / total if total else 0.0,
            "expected": total * float(share),
            "expected_share": float(share),
        }
        for key, share in theory(kind).items()
    ]


def test(observed: dict[int, int], kind: str) -> dict:
    """Counts against theory: the rows, χ², df, p, a verdict, and how the test would fare against a loaded die.

    The verdict (a code for the page to word): `few` while some expected
    count is under `MIN_EXPECTED` (and then no χ² at all: `chi2` and `p`
    are None), `no_sign` for p ≥ `ALPHA` (no evidence against fair dice,
    which is not evidence for them), `unusual` for `SUSPECT` ≤ p < `ALPHA`,
    `suspect` below. `power`: how often a test of this many rolls notices
    one die showing a six a quarter of the time; `to_notice`: the rolls it
    needs to notice it `POWER` of the time.
    """
    table = rows(observed, kind)
    total = sum(row["observed"] for row in table)
    result = {
        "kind": kind,
        "total": total,
        "rows": table,
        "df": len(table) - 1,
        "needed": needed(kind),
        "chi2": None,
        "p": None,
        "verdict": "few",
        "power": power(total, kind),
        "to_notice": rolls_to_notice(kind),
    }
    if total < result["needed"]:
        return result
    statistic, df = chi_square(observed, theory(kind))
    p = p_value(statistic, df)
    verdict = "no_sign" if p >= ALPHA else ("unusual" if p >= SUSPECT else "suspect")
    return {**result, "chi2": statistic, "p": p, "verdict": verdict}


# --- a room's counts, shown only when the table may know them ---
#
# The dice are judged on every roll of the games that are over and on
# nothing else: every roll of the game still running waits in `pending`
# until it is over. Its checked cups alone are a skewed sample (people check
# what looks like a lie: low values), and a test of them would call fair
# dice loaded; they are counted apart in `game`, shown as what they are. An
# unseen roll is never shown before its game is over: the board would tell
# on a liar ("41" ticking up right after Ann's "62" was believed). Keys are
# strings (the counts are stored as JSON).
#
# Lies along the ladder: `checked` counts, per announced value, the checks and
# the lies they caught (public at once: a sample of what looked like a lie);
# `announced` counts every announcement of the games that are over and its
# lies. Lügen: `doubted` counts, per bid count, the doubts and the bids that
# fell (too high: the bidder could not see the other cups, so not a lie).

PENDING = ("values", "faces", "announced")
GAME = ("values", "faces")


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
        "game": {kind: {} for kind in GAME},
        "pending": {kind: {} for kind in PENDING},
    }


def _upgrade(counts: dict) -> dict:
    """Counts saved before a kind of count existed get it, empty."""
    for key, empty in new_counts().items():
        counts.setdefault(key, empty)
    for part, kinds in (("pending", PENDING), ("game", GAME)):
        for kind in kinds:
            counts[part].setdefault(kind, {})
    return counts


def is_lie(roll: dict) -> bool | None:
    """Whether the announcement made with a logged roll was a lie (None: it made none, or it is unknown).

    Two dice: the value under the cup is below the announced one (docs/rules.md §2).
    """
    if roll.get("announced") is not None and roll.get("value") is not None:
        return two_dice.rank(roll["value"]) < two_dice.rank(roll["announced"])
    return None


def too_high(roll: dict) -> bool | None:
    """Lügen: whether the bid of a doubt's bidder's cup fell, the table holding fewer than it (None: no doubt)."""
    if roll.get("bid") and roll.get("found") is not None:
        return not roll["found"]
    return None


def _add_dice(target: dict, roll: dict, dice: str) -> None:
    if dice == "values":  # the value of a two-dice cup
        _add(target["values"], roll["value"])
    else:  # every die of a cup
        for face in roll["dice"]:
            _add(target["faces"], face)


def count_rolls(counts: dict, rolls, dice: str = "values") -> None:
    """Add settled rolls (from `Game.drain_rolls`) to a room's counts; `dice` is the rule set's (`RuleSet.dice`)."""
    _upgrade(counts)
    for roll in rolls:
        _add_dice(counts["pending"], roll, dice)
        if roll.get("public"):
            _add_dice(counts["game"], roll, dice)
        if roll.get("announced") is not None:
            _tally(counts["pending"]["announced"], roll["announced"], is_lie(roll))
        if roll.get("found") is None:
            continue
        if roll.get("bid"):  # a doubt: did the bid stand, at what count
            fell = too_high(roll)
            counts["doubts"] += 1
            counts["fell"] += fell
            _tally(counts["doubted"], roll["bid"]["count"], fell)
        else:  # a check: who lied, at what height of the ladder
            lie = is_lie(roll)
            counts["checks"] += 1
            counts["lies"] += lie
            _tally(counts["checked"], roll["announced"], lie)


def settle(counts: dict) -> bool:
    """The game is over: its rolls count now, every one of them. Whether there were any."""
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
    counts["game"] = {kind: {} for kind in GAME}
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


def _keyed(counter: dict) -> dict[int, int]:
    return {int(k): n for k, n in counter.items()}


def shown(counts: dict) -> dict:
    """What the table may see of a room's counts: the dice against theory, this game's checks, the lies.

    `values`, `faces`: the test of every roll of the games that are over.
    `checked`: this game's checked cups only, per value or face (no test:
    a skewed sample). `ladder`: per announced value (ladder order), every
    check and the lies it caught, and every announcement of the games that
    are over and its lies. `bids`: per Lügen bid count, the doubts and the
    bids that fell (too high).
    """
    counts = _upgrade(counts)
    checked, said = counts["checked"], counts["announced"]
    ladder = [
        {
            "value": value,
            "checks": checked.get(str(value), [0, 0])[0],
            "lies": checked.get(str(value), [0, 0])[1],
            "announced": said.get(str(value), [0, 0])[0],
            "untrue": said.get(str(value), [0, 0])[1],
        }
        for value in two_dice.VALUES
        if str(value) in checked or str(value) in said
    ]
    bids = [{"count": int(k), "doubts": n, "fell": fell} for k, (n, fell) in counts["doubted"].items()]
    result = {}
    for kind in GAME:
        settled, game = _keyed(counts[kind]), _keyed(counts["game"][kind])
        result[kind] = test(settled, kind) if settled else None
        result[f"checked_{kind}"] = (
            {"kind": kind, "total": sum(game.values()), "rows": rows(game, kind)} if game else None
        )
    return {
        **result,
        "checks": counts["checks"],
        "lies": counts["lies"],
        "ladder": ladder,
        "announced": sum(row["announced"] for row in ladder),
        "untrue": sum(row["untrue"] for row in ladder),
        "doubts": counts["doubts"],
        "fell": counts["fell"],
        "bids": sorted(bids, key=lambda row: row["count"]),
    }


# --- the hunt: which table's dice are loaded? ---
#
# Each table's dice by face, from every roll of its games that are over (a
# two-dice value is its two faces: 63 is a six and a three), tested alone.
# With several fair tables one of them looks unusual by chance now and then:
# the board says how often.


def faces_of(counts: dict) -> dict[int, int]:
    """Every die of a room's games that are over, by face."""
    faces = dict.fromkeys(FACES, 0)
    for key, n in counts.get("faces", {}).items():
        faces[int(key)] += n
    for key, n in counts.get("values", {}).items():
        for face in divmod(int(key), 10):
            faces[face] += n
    return faces


def hunt(tables, six: Fraction | None = None) -> dict:
    """`tables` as (number, counts) pairs: each table's dice by face against theory, and what the test can do.

    Per table: `test` (as `test` of its faces), `cells` (per face: observed,
    expected, and `z`, the standardized residual (O − E)/√E: its square is the
    face's part of χ²), and `power`, how often a test of as many dice notices
    the loading `six`. `to_notice`: the dice a table needs for the test to
    notice it `POWER` of the time. `false_alarm`: the chance that at least one
    of the fair tables tested (all but one, when one is loaded) looks unusual by chance.
    """
    rows = []
    for number, counts in tables:
        result = test(faces_of(counts), "faces")
        cells = [
            {
                "face": row["key"],
                "observed": row["observed"],
                "expected": row["expected"],
                "z": (row["observed"] - row["expected"]) / math.sqrt(row["expected"]) if row["expected"] else 0.0,
            }
            for row in result["rows"]
        ]
        strength = power(result["total"], "faces", six) if six else None
        rows.append({"number": number, "test": result, "cells": cells, "power": strength})
    tested = sum(row["test"]["verdict"] != "few" for row in rows)  # a table of too few dice never alarms
    fair = max(0, tested - (six is not None))
    return {
        "rows": rows,
        "six": six,
        "to_notice": rolls_to_notice("faces", six) if six else None,
        "false_alarm": 1 - (1 - ALPHA) ** fair,
        "fair_tables": fair,
    }


# --- the dice over time: the running share of one face, and the running p-value ---

Z95 = 1.959963984540054  # the standard normal's 97.5 % point: a two-sided 95 % band


def running(faces, watch: int = 6, points: int = 120) -> dict | None:
    """Along `faces` (every die in the order rolled): at about `points` places n, the share of `watch` so
    far with the band where fair dice's share falls 95 times in 100 after n dice (normal approximation,
    p ± 1.96·√(p(1 − p)/n)), and the χ² test's p-value of all n dice (None before `needed`)."""
    total = len(faces)
    if total == 0:
        return None
    fair = theory("faces")
    share = float(fair[watch])
    marks = sorted({max(1, round(total * i / points)) for i in range(1, points + 1)})
    counts = dict.fromkeys(FACES, 0)
    out = []
    for n, face in enumerate(faces, 1):
        counts[face] += 1
        if n == marks[len(out)]:
            half = Z95 * math.sqrt(share * (1 - share) / n)
            p = p_value(*chi_square(counts, fair)) if n >= needed("faces") else None
            out.append(
                {"n": n, "share": counts[watch] / n, "low": max(0.0, share - half), "high": share + half, "p": p}
            )
    return {"watch": watch, "theory": share, "total": total, "points": out}


# --- the same figures as JSON (GET /api/rooms/<code>/stats, /api/classes/<code>/stats) ---

SAMPLES = {
    "games_over": "every roll (or announcement) of the games that are over: nobody chose which",
    "checked_cups": "the running game's checked cups only: people check what looks like a lie, so no test of the dice",
    "checks": "every check: announcements someone doubted",
    "doubts": "every doubt: bids someone doubted",
}


def report(shown_counts: dict) -> dict:
    """`shown`'s figures for scripts, each with the sample it comes from (docs/API.md, "Statistics as JSON")."""
    s = shown_counts

    def dice(test):
        if test is None:
            return None
        keep = ("kind", "total", "df", "chi2", "p", "verdict", "needed", "power", "to_notice")
        return {"sample": "games_over", **{k: test[k] for k in keep}, "rows": _json_rows(test["rows"])}

    def checked(sample):
        if sample is None:
            return None
        return {
            "sample": "checked_cups",
            "kind": sample["kind"],
            "total": sample["total"],
            "rows": _json_rows(sample["rows"]),
        }

    return {
        "samples": SAMPLES,
        "dice": {kind: dice(s[kind]) for kind in GAME},
        "checked_cups": {kind: checked(s[f"checked_{kind}"]) for kind in GAME},
        "checks": {
            "sample": "checks",
            "checks": s["checks"],
            "lies": s["lies"],
            "by_value": [{k: row[k] for k in ("value", "checks", "lies")} for row in s["ladder"] if row["checks"]],
        },
        "announcements": {
            "sample": "games_over",
            "announcements": s["announced"],
            "lies": s["untrue"],
            "by_value": [
                {"value": row["value"], "announcements": row["announced"], "lies": row["untrue"]}
                for row in s["ladder"]
                if row["announced"]
            ],
        },
        "doubts": {
            "sample": "doubts",
            "doubts": s["doubts"],
            "too_high": s["fell"],
            "by_count": [
                {"count": row["count"], "doubts": row["doubts"], "too_high": row["fell"]} for row in s["bids"]
            ],
        },
    }


def _json_rows(table: list[dict]) -> list[dict]:
    return [{"key": row["key"], "observed": row["observed"], "expected": row["expected"]} for row in table]


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
    "too_high",
    "sample",
    # The cup's record (maxchen/fair.py): what anyone needs to roll its dice again. Empty for a cup rolled
    # before the seeds, and the server seed and weights while a lesson's hunt keeps its table secret.
    "room",
    "seat",
    "commit",
    "server_seed",
    "client_seed",
    "seed_by",
    "weights",
)
RECORD_COLUMNS = ("room", "seat", "commit", "server_seed", "client_seed", "by", "weights")
# A cell starting with one of these is a formula to a spreadsheet (OWASP, "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    """Text a spreadsheet shows as it is: a leading formula character is quoted away with an apostrophe."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def log_csv_header(tables: bool = False) -> tuple:
    """The CSV's first row (a class's starts with its table and ends with its loading)."""
    return ("table", *LOG_CSV_COLUMNS, "loaded") if tables else LOG_CSV_COLUMNS


def _record_cells(record: dict | None, held: bool) -> list:
    """A cup's record as the CSV's last cells; a held one without what would tell its loading."""
    if not record:
        return [""] * len(RECORD_COLUMNS)
    shown = {**record, "weights": " ".join(map(str, record.get("weights") or ()))}
    if held:
        shown["server_seed"] = shown["weights"] = ""
    return [shown.get(column, "") for column in RECORD_COLUMNS]


def log_csv_rows(entries, names: bool = False, table=None, running=None, loaded=None, held=False):
    """A room's roll log (`store.room_log`) as CSV rows: one per roll the table may know, oldest first.

    Players are P1, P2, … in the order they first appear in the log (rolling
    or answering), so a label stays the same from one download to the next;
    with `names`, their names as they were then. A class's table puts its
    number (`table`) first. `sample`: `all` when every roll of its game is
    here (the game is over), `checked` for the game still `running` (its
    number) and for a game that never ended: only its checked cups may be
    known (a skewed sample, no test of the dice). `loaded`: the table's
    loading, once revealed: the share of sixes, on its rolls from the loading's
    first game on (a class's `loaded` column). `held`: a lesson's hunt keeps the
    table's dice secret: the server seeds and weights stay out.
    docs/API.md lists the columns.
    """
    labels: dict[str, str] = {}
    for entry in entries:
        for player in (entry["player"], entry["answerer"]):
            if player is not None and player not in labels:
                labels[player] = f"P{len(labels) + 1}"
    unsettled = {entry["game"] for entry in entries if not entry["public"]} | {running}

    def who(player, name):
        if names and name:
            return _cell(name)
        return labels.get(player, "")

    def flag(value):
        return "" if value is None else int(value)

    for entry in entries:
        if not entry["public"]:
            continue  # not yet the table's to know: a roll passed on unseen, in a game not over
        bid = entry["bid"] or {}
        moment = datetime.datetime.fromtimestamp(entry["time"], datetime.UTC)
        first = [] if table is None else [table]
        last = [] if table is None else [loaded["six"] if loaded and entry["game"] >= loaded["game"] else ""]
        yield (
            first
            + [
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
                "too_high"
                if entry["bid"] and entry["outcome"] == "lie"
                else entry["outcome"],  # logged before too_high
                flag(is_lie(entry)),
                flag(too_high(entry)),
                "checked" if entry["game"] in unsettled else "all",
                *_record_cells(entry.get("fair"), held),
            ]
            + last
        )
