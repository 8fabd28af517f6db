"""Dice against theory: shares, χ² and p-values checked against hand sums and printed tables."""

from fractions import Fraction

import pytest

from maxchen import rules, stats


def test_the_ladders_shares_sum_to_one_with_doubles_half_as_likely():
    shares = stats.theory("values")
    assert list(shares) == list(rules.VALUES)  # ladder order, 31 first, Mäxchen last
    assert sum(shares.values()) == 1
    assert shares[31] == shares[65] == shares[21] == Fraction(2, 36)
    assert shares[11] == shares[66] == Fraction(1, 36)
    assert sum(stats.theory("faces").values()) == 1


@pytest.mark.parametrize(
    ("value", "at_least", "beats"),
    [
        (31, Fraction(1), Fraction(34, 36)),  # anything is at least 31; 31 itself does not beat it
        (65, Fraction(10, 36), Fraction(8, 36)),  # the six doubles and Mäxchen beat 65: 6 × 1/36 + 2/36
        (66, Fraction(2, 36) + Fraction(1, 36), Fraction(2, 36)),
        (21, Fraction(2, 36), Fraction(0)),
    ],
)
def test_the_odds_of_a_fresh_roll_on_the_ladder(value, at_least, beats):
    assert stats.at_least(value) == at_least
    assert stats.beats(value) == beats


# Critical values from a printed χ² table (e.g. NIST/SEMATECH e-Handbook, 1.3.6.7.4).
@pytest.mark.parametrize(
    ("df", "critical", "p"),
    [
        (1, 3.841, 0.05),
        (1, 6.635, 0.01),
        (2, 5.991, 0.05),
        (3, 7.815, 0.05),
        (4, 13.277, 0.01),
        (5, 11.070, 0.05),
        (5, 20.515, 0.001),
        (20, 31.410, 0.05),
        (20, 37.566, 0.01),
        (20, 45.315, 0.001),
    ],
)
def test_p_values_match_the_printed_table(df, critical, p):
    assert stats.p_value(critical, df) == pytest.approx(p, rel=2e-3)


def test_the_tail_of_two_degrees_of_freedom_is_e_to_minus_half_x():
    for x in (0.5, 2.0, 10.0):
        assert stats.p_value(x, 2) == pytest.approx(2.718281828459045 ** (-x / 2))
    assert stats.p_value(0, 5) == 1.0


def test_chi_square_of_faces_by_hand():
    # 60 throws, 10 expected per face: (14-10)² + (6-10)² over 10 = 3.2; the other four on target.
    observed = {1: 14, 2: 6, 3: 10, 4: 10, 5: 10, 6: 10}
    result = stats.test(observed, "faces")
    assert result["chi2"] == pytest.approx(3.2)
    assert result["df"] == 5 and result["total"] == 60
    assert result["verdict"] == "fair"
    assert [row["count"] for row in result["rows"]] == [14, 6, 10, 10, 10, 10]


def test_a_loaded_die_is_called_suspect_and_few_throws_are_called_few():
    assert stats.test({6: 300, 1: 20, 2: 20, 3: 20, 4: 20, 5: 20}, "faces")["verdict"] == "suspect"
    assert stats.test({6: 3, 1: 2}, "faces")["verdict"] == "few"
    # Two dice: 180 rolls put 5 on each double: enough to read.
    fair = {value: int(180 * stats.value_chance(value)) for value in rules.VALUES}
    result = stats.test(fair, "values")
    assert result["chi2"] == 0 and result["p"] == 1.0 and result["verdict"] == "fair" and result["df"] == 20
