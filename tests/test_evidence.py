"""The evidence against fair dice, computed another way: exact fractions, scipy, and simulations that look at
every die (a lesson looks less often, so it can only do better)."""

import math
import random
from fractions import Fraction
from math import factorial

import numpy as np
import pytest

from maxchen import evidence

FACES = range(1, 7)


def _exact_any(counts) -> Fraction:
    """The one-face mixture by exact fractions: (1/6) Σ_f ∫ s^n_f ((1 − s)/5)^(n − n_f) ds ÷ 6^-n."""
    n = sum(counts)
    total = Fraction(0)
    for c in counts:
        beta = Fraction(factorial(c) * factorial(n - c), factorial(n + 1))  # ∫ s^c (1 − s)^(n − c) ds
        total += beta / 5 ** (n - c)
    return total / 6 * 6**n


@pytest.mark.parametrize("counts", [(0,) * 6, (1, 0, 0, 0, 0, 0), (3, 4, 5, 2, 6, 10), (10, 10, 10, 10, 10, 10)])
def test_the_mixtures_evidence_is_the_exact_integral(counts):
    faces = dict(zip(FACES, counts, strict=True))
    assert evidence.evidence(faces) == pytest.approx(float(_exact_any(counts)), rel=1e-9)
    assert evidence.evidence({str(k): v for k, v in faces.items()}) == evidence.evidence(faces)  # stored keys


@pytest.mark.parametrize("six", ["1/4", "1/3", "1/2"])
def test_for_fair_dice_each_evidence_is_a_martingale_its_next_die_expects_no_change(six):
    # Under fair dice the expected evidence after one more die is the evidence now, exactly: so it ever
    # reaches 20 at most one time in 20 (Ville's inequality), whenever and however often anyone looks.
    for counts in [(0,) * 6, (2, 0, 1, 0, 0, 3), (5, 1, 1, 2, 0, 9)]:
        now = _exact_any(counts)
        after = sum(_exact_any(tuple(c + (i == f) for i, c in enumerate(counts))) for f in range(6)) / 6
        assert after == now
    ratio = Fraction(six) * 6, (1 - Fraction(six)) / 5 * 6  # a six, any other face
    assert (ratio[0] + 5 * ratio[1]) / 6 == 1
    faces = {1: 3, 2: 1, 3: 0, 4: 2, 5: 1, 6: 4}
    assert evidence.evidence(faces, six) == pytest.approx(float(ratio[0] ** 4 * ratio[1] ** 7))


def test_fair_dice_looked_at_after_every_die_reach_20_to_1_less_than_one_time_in_20():
    # 4,000 runs of 600 fair dice (Python's random), each evidence looked at after every single die.
    rng = random.Random(20)
    runs, dice = 4000, 600
    told = mixture = 0
    for _ in range(runs):
        rolled = [rng.randint(1, 6) for _ in range(dice)]
        sixes = np.cumsum([face == 6 for face in rolled])
        n = np.arange(1, dice + 1)
        log_told = sixes * math.log(1.5) + (n - sixes) * math.log(0.9)  # a six 1 time in 4, told
        told += bool((log_told >= math.log(20)).any())
        counts = np.zeros((dice, 6), dtype=np.int64)
        counts[n - 1, np.array(rolled) - 1] = 1
        mixture += bool((evidence._log_any_matrix(np.cumsum(counts, axis=0)) >= math.log(20)).any())
    for alarms in (told, mixture):
        assert alarms / runs <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / runs)


@pytest.mark.parametrize("six", ["1/4", "1/3", "1/2"])
def test_the_told_loadings_power_is_exact_and_its_line_is_where_it_reaches_8_in_10(six):
    import scipy.stats as scipy

    p = float(Fraction(six))
    for n in (10, 60, 283, 500):
        # Evidence of 20 to 1 or more: k sixes with k ln(6s) + (n − k) ln(6(1 − s)/5) ≥ ln 20.
        k = next(k for k in range(n + 2) if k > n or evidence.evidence({6: k, 1: n - k}, six) >= 20 * (1 - 1e-12))
        assert evidence.told_power(n, six) == pytest.approx(scipy.binom.sf(k - 1, n, p), rel=1e-9, abs=1e-15)
    needed = evidence.told_needed(six)
    assert needed == {"1/4": 283, "1/3": 79, "1/2": 24}[six]
    assert all(evidence.told_power(n, six) >= 0.8 for n in range(needed, 2 * needed))
    assert evidence.told_power(needed - 1, six) < 0.8


def test_the_told_loadings_line_holds_for_the_servers_own_loaded_dice():
    # The server's loaded dice (from their seeds, as a table rolls them), at the stated 283 dice: 8 in 10.
    from maxchen import fair

    found, trials = 0, 1000
    rng = random.Random(5)
    for trial in range(trials):
        record = {"server_seed": f"{rng.getrandbits(256):064x}", "client_seed": "ab" * 16, "room": "HUNT1"}
        record.update(game=trial, round=1, seat=1, weights=list(fair.weights("1/4")))
        rolled = fair.faces(record, 283)
        found += evidence.evidence({6: rolled.count(6), 1: 283 - rolled.count(6)}, "1/4") >= 20
    assert abs(found / trials - evidence.told_power(283, "1/4")) <= 3 * math.sqrt(0.8 * 0.2 / trials)


def test_the_mixtures_power_is_its_seeded_simulation_checked_by_another_one():
    rng = random.Random(8)
    n, trials, found = 300, 1000, 0
    for _ in range(trials):
        rolled = rng.choices(FACES, [3, 3, 3, 3, 3, 5], k=n)
        found += evidence.evidence({face: rolled.count(face) for face in FACES}) >= 20
    assert abs(found / trials - evidence.any_power(300, "1/4")) <= 3 * math.sqrt(0.25 / trials)
    needed = evidence.any_needed("1/4")
    assert evidence.any_power(needed, "1/4") >= 0.8 > evidence.any_power(needed - 10, "1/4")


def test_the_band_is_clopper_pearson_and_holds_fair_dice_at_least_95_times_in_100():
    import scipy.stats as scipy

    from .test_stats import _clopper_pearson_holds_a_sixth

    for n in (1, 5, 10, 30, 100, 257, 1000):
        low, high = evidence.band(n)
        assert scipy.binomtest(low, n).proportion_ci(0.95, method="exact").high >= 1 / 6  # scipy's own, at the edges
        assert scipy.binomtest(high, n).proportion_ci(0.95, method="exact").low <= 1 / 6
        inside = _clopper_pearson_holds_a_sixth(n)
        assert (low, high) == (inside[0], inside[-1])
        assert scipy.binom.cdf(high, n, 1 / 6) - scipy.binom.cdf(low - 1, n, 1 / 6) >= 0.95
    # The normal approximation's band held 0.930 at n = 10; this one 0.985.
    low, high = evidence.band(10)
    assert scipy.binom.cdf(high, 10, 1 / 6) - scipy.binom.cdf(low - 1, 10, 1 / 6) == pytest.approx(0.98454, abs=1e-4)


def test_repeated_looks_dip_under_005_as_often_as_an_independent_simulation_says():
    import scipy.stats as scipy

    assert scipy.chi2.isf(0.05, 5) == pytest.approx(evidence.CRITICAL_5, rel=1e-12)
    looks = tuple(range(30, 1001, 30))
    rng = random.Random(3)
    runs, dipped = 1500, 0
    at = np.array(looks)
    for _ in range(runs):
        rolled = np.array([rng.randint(1, 6) for _ in range(looks[-1])])
        counts = np.stack([np.cumsum(rolled == f)[at - 1] for f in FACES], axis=1)
        statistic = ((counts - at[:, None] / 6) ** 2 / (at[:, None] / 6)).sum(axis=1)
        dipped += bool((scipy.chi2.sf(statistic, 5) < 0.05).any())
    ours = evidence.dips(looks)
    assert abs(ours - dipped / runs) <= 3 * math.sqrt(0.3 * 0.7 / runs) + 3 * math.sqrt(0.3 * 0.7 / 4000)
    assert ours > 0.2  # 34 looks: far more than one time in twenty
    assert evidence.dips((600,)) == pytest.approx(0.05, abs=0.012)  # one look: one time in twenty
