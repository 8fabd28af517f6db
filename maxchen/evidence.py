"""Evidence against fair dice that stays true however often a class looks (an e-value), and what it can find.

A lesson looks at its dice after every game. A p-value is true at one
look only: tested again and again, fair dice dip under 0.05 at some look
far more often than one time in twenty. The evidence here is a likelihood
ratio: how much likelier the dice so far are if loaded than if fair. For
fair dice it is a test martingale (its expected value stays 1 however many
dice come), so by Ville's inequality it ever reaches 1/α (20 to 1) at most
α of the time, whenever and however often anyone looks.

- A hunt whose loading the class was told ("a six 1 time in 4"): the ratio
  of that loading against fair dice (Wald's sequential test, the most
  powerful there is against that loading).
- Anything else: the ratio of "one face comes more or less often than the
  others, at an unknown rate" (uniform over the face and its share) against
  fair dice.

Both need only the counts of the faces, so any order of the dice gives the
same figure. Pure: numpy for the simulations, with fixed seeds (the same
figures on every run).
"""

import math
from fractions import Fraction
from functools import cache, lru_cache

import numpy as np

FACES = (1, 2, 3, 4, 5, 6)
ALPHA = 0.05  # the stated false-alarm rate of a verdict, over a whole lesson of looks
BAR = 1 / ALPHA  # evidence of 20 to 1 or more: "loaded"
POWER = 0.8  # the power line: after how many dice a loading is found 8 times in 10
RUNS = 20_000  # simulated samples behind a power figure (a simulation error of about 0.3 percentage points)
SEED = 43  # every simulation here draws from this seed: the same figures every time


def _counts(faces) -> tuple[int, ...]:
    """Counts of faces 1..6 from a {face: count} map (keys int or str)."""
    return tuple(int(faces.get(face, faces.get(str(face), 0))) for face in FACES)


def log_told(faces, six) -> float:
    """The log of the told loading's likelihood ratio: a six `six` of the time, each other face (1 − six)/5."""
    counts = _counts(faces)
    six = Fraction(six)
    other = (1 - six) / 5
    return counts[5] * math.log(6 * six) + (sum(counts) - counts[5]) * math.log(6 * other)


def log_any(faces) -> float:
    """The log of the mixture's likelihood ratio: one face (any of six) at a share s (uniform on 0..1), the
    others (1 − s)/5 each, against fair dice: (1/6) Σ_f B(n_f + 1, n − n_f + 1) · 6^n / 5^(n − n_f)."""
    counts = _counts(faces)
    n = sum(counts)
    terms = [
        math.lgamma(c + 1) + math.lgamma(n - c + 1) - math.lgamma(n + 2) + n * math.log(6) - (n - c) * math.log(5)
        for c in counts
    ]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms) / 6)


def evidence(faces, six=None) -> float:
    """The evidence against fair dice (a likelihood ratio: 25.0 reads "25 to 1"); `six`: the told loading."""
    log = log_told(faces, six) if six is not None else log_any(faces)
    return math.exp(min(log, 700.0))


def verdict(evidence_of: float, total: int, needed: int = 0) -> str:
    """`loaded` from 20 to 1 on (any number of dice); `few` below it while under `needed` dice; else `no_sign`."""
    if evidence_of >= BAR:
        return "loaded"
    return "few" if total < needed else "no_sign"


# --- what the evidence can find: exact for a told loading, a seeded simulation otherwise ---


def _binomial_tail(n: int, k: int, p: float) -> float:
    """P(Binomial(n, p) ≥ k), summed exactly in floating point from the log-pmf."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return min(1.0, sum(math.exp(_log_pmf(n, i, p)) for i in range(k, n + 1)))


def sixes_to_find(n: int, six) -> int:
    """The fewest sixes among `n` dice that take the told loading's evidence to 20 to 1."""
    six = Fraction(six)
    up, down = math.log(6 * six), math.log(6 * (1 - six) / 5)
    return max(0, math.ceil((math.log(BAR) - n * down) / (up - down) - 1e-9))


@lru_cache(maxsize=8192)
def told_power(n: int, six: str | Fraction, truth: str | Fraction | None = None) -> float:
    """How often `n` dice loaded as `truth` (the told loading `six` unless said) show evidence of 20 to 1
    or more for `six`: exact, from the binomial count of sixes."""
    return _binomial_tail(n, sixes_to_find(n, six), float(Fraction(truth if truth is not None else six)))


@cache
def told_needed(six: str | Fraction) -> int:
    """After about how many dice the told loading is found `POWER` of the time, and stays so: the fewest n
    from which on every count up to twice as many gives at least `POWER` (the count's steps make it saw)."""
    n = 1
    while True:
        while told_power(n, six) < POWER:
            n += 1
        later = next((m for m in range(n, 2 * n + 20) if told_power(m, six) < POWER), None)
        if later is None:
            return n
        n = later + 1


def _log_any_matrix(counts: np.ndarray) -> np.ndarray:
    """`log_any` of many samples at once: `counts` has a row of six face counts per sample."""
    n = counts.sum(axis=1, keepdims=True)
    size = int(n.max()) + 2
    lgamma = np.array([math.lgamma(i) for i in range(1, size + 2)])  # lgamma[i] = lgamma(i + 1) = log i!
    terms = lgamma[counts] + lgamma[n - counts] - lgamma[n + 1] + n * math.log(6) - (n - counts) * math.log(5)
    top = terms.max(axis=1, keepdims=True)
    return (top + np.log(np.exp(terms - top).sum(axis=1, keepdims=True) / 6)).ravel()


def _shares(six) -> np.ndarray:
    six = float(Fraction(six))
    return np.array([(1 - six) / 5] * 5 + [six])


@lru_cache(maxsize=4096)
def any_power(dice: int, six: str | Fraction, per_cup: int = 1) -> float:
    """How often `dice` dice show evidence of 20 to 1 or more of some loading (`log_any`) when one die in
    every `per_cup` is loaded (a six `six` of the time; a cup of two with one loaded die: `per_cup=2`):
    a seeded simulation of `RUNS` samples."""
    if dice <= 0:
        return 0.0
    rng = np.random.default_rng([SEED, dice, per_cup])
    loaded = dice // per_cup
    counts = rng.multinomial(loaded, _shares(six), size=RUNS)
    if dice > loaded:
        counts += rng.multinomial(dice - loaded, [1 / 6] * 6, size=RUNS)
    return float(np.mean(_log_any_matrix(counts) >= math.log(BAR)))


@cache
def any_needed(six: str | Fraction, per_cup: int = 1) -> int:
    """After about how many dice `any_power` reaches `POWER` (a search over the seeded simulation)."""
    low, high = 1, 64
    while any_power(high, six, per_cup) < POWER:
        low, high = high, high * 2
    while high - low > max(1, high // 200):  # to half a percent of the dice: the simulation is no finer
        middle = (low + high) // 2
        low, high = (middle, high) if any_power(middle, six, per_cup) < POWER else (low, middle)
    return high


# --- repeated looks: what a one-look test does when a lesson looks again and again ---


CRITICAL_5 = 11.070497693516351  # χ² with 5 degrees of freedom at 0.05 (a test asserts it against scipy)
DIP_RUNS = 4_000


@lru_cache(maxsize=256)
def dips(looks: tuple[int, ...], runs: int = DIP_RUNS) -> float:
    """How often fair dice, tested by the one-look χ² (single dice, 0.05) at each of `looks` (the dice so far
    at each look, ascending, each enough for the test: stats.needed), dip under p = 0.05 at least once: a
    seeded simulation of `runs` lessons."""
    tested = list(looks)
    if not tested:
        return 0.0
    rng = np.random.default_rng([SEED, len(tested), tested[-1]])
    counts = np.zeros((runs, 6), dtype=np.int64)
    dipped = np.zeros(runs, dtype=bool)
    before = 0
    for n in tested:
        counts += rng.multinomial(n - before, [1 / 6] * 6, size=runs)
        before = n
        expected = n / 6
        statistic = ((counts - expected) ** 2).sum(axis=1) / expected
        dipped |= statistic >= CRITICAL_5
    return float(dipped.mean())


# --- the band where fair dice's share of one face falls ---


@lru_cache(maxsize=16384)
def band(n: int, share: float = 1 / 6, alpha: float = ALPHA) -> tuple[int, int]:
    """The counts k of one face among `n` fair dice whose Clopper–Pearson interval holds `share`:
    P(X ≤ k) > α/2 and P(X ≥ k) > α/2. Fair dice land in it at least 1 − α of the time, at every n."""
    spread = 12 * math.sqrt(n * share * (1 - share)) + 12  # the mass beyond is under 1e-30
    first, last = max(0, int(n * share - spread)), min(n, int(n * share + spread) + 1)
    pmf = [math.exp(_log_pmf(n, first, share))]
    ratio = share / (1 - share)
    for i in range(first, last):
        pmf.append(pmf[-1] * (n - i) / (i + 1) * ratio)
    below, low = 0.0, 0
    while below + pmf[low] <= alpha / 2:  # P(X ≤ k) must pass α/2
        below += pmf[low]
        low += 1
    above, high = 0.0, len(pmf) - 1
    while above + pmf[high] <= alpha / 2:
        above += pmf[high]
        high -= 1
    return first + low, first + high


def _log_pmf(n: int, k: int, p: float) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p) + (n - k) * math.log1p(-p)
