"""Dice against theory: expected shares, the evidence against fair dice, the one-look χ² test, the ladder's odds, lies.

Pure functions over counts: no state, no I/O (the CSV writer writes to the
stream it is given). The verdict on the dice is the evidence of
maxchen/evidence.py, true however often a class looks; the χ² test and its
p-value stay beside it as a one-look test. The χ² tail has a closed form for
whole degrees of freedom (even: a finite sum; odd: erfc and a finite sum),
so no statistics library is needed (tests check every figure against
scipy.stats).
"""

import datetime
import math
from fractions import Fraction
from functools import cache

from babel.numbers import format_decimal

from . import evidence
from .rules import two_dice

FACES = (1, 2, 3, 4, 5, 6)
MIN_EXPECTED = 5  # the usual rule: χ² reads well when every expected count is at least 5
ALPHA = evidence.ALPHA  # the one-look χ² test's level, and the verdict's false-alarm rate over a lesson
LOADED_SIX = Fraction(1, 4)  # the loading the power line speaks of: one die showing a six a quarter of the time


value_chance = two_dice.probability  # docs/rules.md §1


def theory(kind: str) -> dict[int, Fraction]:
    """Expected shares: `values` (two dice, ladder order) or `faces` (one die)."""
    if kind == "values":
        return {value: value_chance(value) for value in two_dice.VALUES}
    return {face: Fraction(1, 6) for face in FACES}


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


def odds_parts(strength: float, lang: str = "en") -> tuple[str, str]:
    """Evidence against fair dice as the two sides of "25 to 1" (or "1 to 3": the dice look fairer than
    loaded), two significant figures in `lang`'s digits, never more than "> 1,000,000 to 1"."""
    if strength >= 1e6:
        return "> " + format_decimal(1_000_000, locale=lang), "1"
    if strength <= 1e-6:
        return "1", "> " + format_decimal(1_000_000, locale=lang)
    big = strength if strength >= 1 else 1 / strength
    shown = format_decimal(float(f"{big:.2g}") if big >= 10 else round(big, 1), format="#,##0.#", locale=lang)
    return (shown, "1") if strength >= 1 else ("1", shown)


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


def dice_of(observed: dict, kind: str) -> dict[int, int]:
    """The single dice of counts by `kind`: faces as they are, a two-dice value as its two faces (63: 6 and 3)."""
    faces = dict.fromkeys(FACES, 0)
    for key, n in observed.items():
        for face in divmod(int(key), 10) if kind == "values" else (int(key),):
            faces[face] += n
    return faces


def test(observed: dict[int, int], kind: str, power: bool = True) -> dict:
    """Counts against theory: the rows, the evidence against fair dice and its verdict, the one-look χ² and
    its p, and how the verdict would fare against a loaded die.

    `evidence`: how much likelier these dice are if one face is loaded than
    if they are fair (maxchen/evidence.py, over the single dice), whatever
    the order and however often anyone looks. The verdict (a code for the
    page to word): `loaded` from 20 to 1 on (fair dice ever get there less
    than one time in twenty), else `few` while some expected count is under
    `MIN_EXPECTED`, else `no_sign` (no evidence against fair dice, which is
    not evidence for them). `chi2`, `p`: Pearson's test, true at one look
    only (None before `needed`). `power`: how often the verdict says
    `loaded` at this many rolls when one die of each roll shows a six a
    quarter of the time; `to_notice`: the rolls it needs for 8 times in 10
    (both by a seeded simulation; None without `power`: a key or a verdict alone).
    """
    table = rows(observed, kind)
    total = sum(row["observed"] for row in table)
    single = dice_of(observed, kind)
    per_cup = 2 if kind == "values" else 1  # one die of a cup of two loaded: the power line's loading
    strength = evidence.evidence(single)
    result = {
        "kind": kind,
        "total": total,
        "rows": table,
        "df": len(table) - 1,
        "needed": needed(kind),
        "chi2": None,
        "p": None,
        "evidence": strength,
        "verdict": evidence.verdict(strength, total, needed(kind)),
        "power": evidence.any_power(total * per_cup, LOADED_SIX, per_cup) if power else None,
        "to_notice": math.ceil(evidence.any_needed(LOADED_SIX, per_cup) / per_cup) if power else None,
    }
    if total < result["needed"]:
        return result
    statistic, df = chi_square(observed, theory(kind))
    return {**result, "chi2": statistic, "p": p_value(statistic, df)}


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
        "hunt": {},  # a lesson's hunt: every die, by face, of the games begun since it started (`settle`)
        "lengths": {},  # rule set -> its games over here by length, "3" -> games (`count_game`)
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


def count_game(counts: dict, rules: str, length: int) -> None:
    """One more game over, of rule set `rules` played to `length` (its `Game.LENGTH` option: points to go out,
    lives, mats, dice each)."""
    _add(_upgrade(counts)["lengths"].setdefault(rules, {}), length)


def settle(counts: dict, hunt: bool = False) -> bool:
    """The game is over: its rolls count now, every one of them (`hunt`: in the hunt's count too, a game
    begun since the lesson's hunt started). Whether there were any."""
    _upgrade(counts)
    if hunt:
        for kind in GAME:
            for face, n in dice_of(counts["pending"][kind], kind).items():
                if n:
                    _add(counts["hunt"], face, n)
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


def shown(counts: dict, power: bool = True) -> dict:
    """What the table may see of a room's counts: the dice against theory, this game's checks, the lies.

    `values`, `faces`: the test of every roll of the games that are over.
    `checked`: this game's checked cups only, per value or face (no test:
    a skewed sample). `ladder`: per announced value (ladder order), every
    check and the lies it caught, and every announcement of the games that
    are over and its lies. `bids`: per Lügen bid count, the doubts and the
    bids that fell (too high). `lengths`: the games over, by rule set and
    length (`count_game`).
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
        result[kind] = test(settled, kind, power) if settled else None
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
        # Per rule set, its games over by length, shortest first.
        "lengths": [
            {"rules": rules, "length": int(length), "games": n}
            for rules, games in sorted(counts["lengths"].items())
            for length, n in sorted(games.items(), key=lambda item: int(item[0]))
        ],
    }


# --- the hunt: which table's dice are loaded? ---
#
# Each table's dice by face, tested alone. While a hunt runs, only the dice
# of games begun after it started count, at every table alike (the loaded
# table's loading starts with its next game too): a count from before would
# dilute the loaded table's dice and tell nothing. The verdict is the evidence
# for the told loading against fair dice (maxchen/evidence.py): a fair table
# reaches 20 to 1 at some look less than one time in twenty, however often
# the class looks. Nothing here reads as a table's chance of being loaded.


def faces_of(counts: dict) -> dict[int, int]:
    """Every die of a room's games that are over, by face."""
    faces = dice_of(counts.get("faces", {}), "faces")
    for face, n in dice_of(counts.get("values", {}), "values").items():
        faces[face] += n
    return faces


def hunt_faces(counts: dict) -> dict[int, int]:
    """Every die, by face, of a room's games begun since the hunt started and over."""
    return dice_of(counts.get("hunt", {}), "faces")


def hunt(tables, six: Fraction | None = None) -> dict:
    """`tables` as (number, faces) pairs, the dice by face each table may count: each table's evidence
    against fair dice, for the told loading `six` (else for any one face loaded), and its verdict.

    Per table: `dice`, `cells` (per face: observed, expected, and `z`, the
    standardized residual (O − E)/√E), `evidence`, `verdict`. `to_notice`:
    after about how many dice the told loading gives a table away `POWER` of
    the time (exact). `false_alarm`: the most often that at least one of the
    fair tables (all but one, when one is loaded) ever reaches 20 to 1 by
    chance over the whole lesson.
    """
    out = []
    for number, faces in tables:
        table = rows(faces, "faces")
        strength = evidence.evidence(faces, six)
        total = sum(row["observed"] for row in table)
        cells = [
            {
                "face": row["key"],
                "observed": row["observed"],
                "expected": row["expected"],
                "z": (row["observed"] - row["expected"]) / math.sqrt(row["expected"]) if row["expected"] else 0.0,
            }
            for row in table
        ]
        verdict = evidence.verdict(strength, total, needed("faces"))
        out.append({"number": number, "dice": total, "cells": cells, "evidence": strength, "verdict": verdict})
    fair = max(0, len(out) - (six is not None))
    return {
        "rows": out,
        "six": six,
        "to_notice": evidence.told_needed(six) if six else None,
        "false_alarm": 1 - (1 - ALPHA) ** fair,
        "fair_tables": fair,
    }


# --- the dice over time: the running share of one face, the running p-value and the evidence ---

MOST_LOOKS = 240  # the looks a simulation of repeated looks follows at most (a board draws it at each game's end)
Z95 = 1.959963984540054  # the standard normal's 97.5 % point: a two-sided 95 % interval (the simulator's)


def running(faces, watch: int = 6, points: int = 120, looks=()) -> dict | None:
    """Along `faces` (every die in the order rolled): at about `points` places n, the share of `watch` so
    far with the band where fair dice's share falls at least 95 times in 100 after n dice (exact binomial,
    `evidence.band`), the one-look χ² p-value of all n dice (None before `needed`) and the evidence against
    fair dice. `looks`: the dice so far at each look (a game's end); `dips`: how often fair dice tested at
    each of them dip under p = 0.05 at least once (a seeded simulation)."""
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
            low, high = evidence.band(n, share)
            p = p_value(*chi_square(counts, fair)) if n >= needed("faces") else None
            out.append(
                {
                    "n": n,
                    "share": counts[watch] / n,
                    "low": low / n,
                    "high": high / n,
                    "p": p,
                    "evidence": evidence.evidence(counts),
                    "scale": min(max(evidence.log_any(counts) / math.log(10), -2.0), 4.0),  # log10, for a chart
                }
            )
    looks = tuple(n for n in looks if 0 < n <= total)
    counted = [n for n in looks if n >= needed("faces")]
    tested = counted
    if len(tested) > MOST_LOOKS:  # a long lesson: every k-th look, the last kept (fewer looks dip less: a floor)
        step = math.ceil(len(tested) / MOST_LOOKS)
        tested = tested[::-1][::step][::-1]
    return {
        "watch": watch,
        "theory": share,
        "total": total,
        "points": out,
        "looks": len(counted),
        "dips": evidence.dips(tuple(tested)) if tested else None,
        "dip_runs": evidence.DIP_RUNS,
        "evidence": out[-1]["evidence"],
    }


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
        keep = ("kind", "total", "df", "evidence", "verdict", "chi2", "p", "needed", "power", "to_notice")
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
        "lengths": [dict(row) for row in s["lengths"]],
    }


def hunt_report(figures: dict, loaded: dict | None, found: int | None) -> dict:
    """`hunt`'s figures for scripts (docs/API.md, "Statistics as JSON"): `loaded` the class's hunt (or None),
    `found` the loaded table's number once the teacher revealed it."""
    return {
        "running": bool(loaded and not loaded["revealed"]),
        "loading": loaded["six"] if loaded else None,
        "to_notice": figures["to_notice"],
        "tables": [
            {
                "table": row["number"],
                "dice": row["dice"],
                "faces": [cell["observed"] for cell in row["cells"]],
                "verdict": row["verdict"],
                "evidence": row["evidence"],
            }
            for row in figures["rows"]
        ],
        "loaded": found if loaded and loaded["revealed"] else None,
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
