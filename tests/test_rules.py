"""Values, ranking, parsing and penalties (docs/rules.md §1–§2) as tables."""

import itertools
from fractions import Fraction

import pytest

from maxchen.rules import two_dice as rules

LADDER = [31, 32, 41, 42, 43, 51, 52, 53, 54, 61, 62, 63, 64, 65, 11, 22, 33, 44, 55, 66, 21]


@pytest.mark.parametrize(("position", "value"), list(enumerate(LADDER)))
def test_every_value_has_its_rank(position, value):
    assert rules.rank(value) == position
    assert rules.is_value(value)


@pytest.mark.parametrize(("lower", "higher"), list(itertools.combinations(LADDER, 2)))
def test_each_value_beats_every_lower_one(lower, higher):
    assert rules.is_higher(higher, lower)
    assert not rules.is_higher(lower, higher)


@pytest.mark.parametrize("value", LADDER)
def test_no_value_beats_itself_and_all_beat_nothing(value):
    assert not rules.is_higher(value, value)
    assert rules.is_higher(value, None)


@pytest.mark.parametrize("not_a_value", [12, 13, 7, 0, 56, 77, 10, 21.0, "21", None, True])
def test_only_the_21_values_are_values(not_a_value):
    assert not rules.is_value(not_a_value)


@pytest.mark.parametrize(
    ("dice", "value"),
    [((2, 1), 21), ((1, 2), 21), ((6, 5), 65), ((5, 6), 65), ((1, 3), 31), ((1, 5), 51), ((4, 4), 44), ((1, 1), 11)],
)
def test_value_of_dice_puts_the_higher_die_first(dice, value):
    assert rules.value_of(dice) == value


def test_every_roll_of_two_dice_is_one_of_the_21_values():
    seen = {rules.value_of(d) for d in itertools.product(range(1, 7), repeat=2)}
    assert seen == set(LADDER)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("21", 21),
        (21, 21),
        ("Mäxchen", 21),
        ("maexchen", 21),
        (" MÄXCHEN ", 21),
        ("Mayer", 21),
        ("6-5", 65),
        ("5-6", 65),
        ("6 5", 65),
        ("1-2", 21),
        ("4-4", 44),
        ("65", 65),
        ("31", 31),
        ("51", 51),
        (66, 66),
        ("12", None),
        ("13", None),
        ("7", None),
        ("56", None),
        ("7-1", None),
        ("", None),
        ("max", None),
        (None, None),
        (65.0, None),
        (True, None),
        ([6, 5], None),
        ("٦٥", None),
    ],
)
def test_parsing(text, value):
    assert rules.parse_value(text) == value


@pytest.mark.parametrize(
    ("actual", "announced", "checker_loses"),
    [
        (65, 65, True),  # the truth: real = announced
        (66, 65, True),  # real higher than announced
        (21, 11, True),
        (64, 65, False),  # a lie
        (31, 21, False),
        (21, 21, True),  # a real Mäxchen
        (66, 21, False),  # a fake Mäxchen
        (11, 66, False),  # doubles ascend
        (31, 32, False),
    ],
)
def test_who_loses_a_check(actual, announced, checker_loses):
    assert rules.checker_loses(actual, announced) is checker_loses


@pytest.mark.parametrize(("announced", "penalty"), [(v, 2 if v == 21 else 1) for v in LADDER])
def test_check_penalty_is_two_only_for_maexchen(announced, penalty):
    assert rules.check_penalty(announced) == penalty


def test_accepting_maexchen_costs_one():
    assert rules.ACCEPT_PENALTY == 1


def test_probabilities_match_rules_md():
    chance = {v: Fraction(2 if v // 10 != v % 10 else 1, 36) for v in LADDER}
    assert sum(chance.values()) == 1
    assert sum(chance[v] for v in LADDER[LADDER.index(61) :]) == Fraction(1, 2)
    assert sum(chance[v] for v in LADDER[LADDER.index(11) :]) == Fraction(8, 36)
    for value in LADDER:
        assert rules.probability(value) == pytest.approx(float(chance[value]))


@pytest.mark.parametrize(
    ("value", "rules_name", "name"),
    [(21, "maexchen", "Mäxchen"), (44, "maexchen", "double four"), (65, "maexchen", "65"), (21, "poschen", "Mayer")],
)
def test_value_names_are_the_rule_sets_words(value, rules_name, name):
    from maxchen.live import value_label

    assert value_label(value, rules_name, "en") == name
