"""Bots: each strategy's choices read off by hand, and whole games of the real engine without a refusal."""

import random
from fractions import Fraction

import pytest

from maxchen import bots, simulate
from maxchen.rules import two_dice as rules
from maxchen.rules.bots import chance_at_least
from maxchen.rulesets import REGISTRY
from maxchen.rulesets.maexchen import bots as two_dice_bots

R = rules.rank


def view(allowed, dice=None, said=None, history=(), choices=(), rules_name="maexchen"):
    """A seat's view as a bot gets it (only the keys a strategy reads)."""
    return {
        "rules": rules_name,
        "phase": "playing",
        "you": "me",
        "allowed": list(allowed),
        "dice": dice,
        "announcement": {"player": "ann", "value": said} if said else None,
        "history": [{"player": "x", "value": v} for v in history],
        "choices": list(choices),
    }


def higher(value):
    return [v for v in rules.VALUES if R(v) > R(value)]


def test_honest_tells_the_truth_when_it_beats_and_else_the_smallest_lie():
    rng = random.Random(0)
    # Ann said 43; I rolled 5-2 (52): the truth beats it.
    assert bots.act("honest", view(["announce"], [5, 2], 43, [43], higher(43)), rng)["value"] == 52
    # I rolled 3-1 (31): the smallest value above 43 is 51.
    assert bots.act("honest", view(["announce"], [3, 1], 43, [43], higher(43)), rng)["value"] == 51


@pytest.mark.parametrize(
    ("said", "move"), [(54, "believe"), (64, "believe"), (65, "check"), (66, "check"), (21, "accept")]
)
def test_honest_checks_what_a_fresh_roll_rarely_beats_and_accepts_21(said, move):
    allowed = ["check", "accept"] if said == 21 else ["believe", "check"]
    assert bots.act("honest", view(allowed, said=said, history=[said]), random.Random(0)) == {"action": move}


def test_poschen_has_no_accept_so_21_is_checked_or_matched():
    assert bots.act("honest", view(["believe", "check"], said=21, history=[21], rules_name="poschen"), None) == {
        "action": "check"
    }
    # Believed a 21 in Poschen: only 21 may follow, whatever the roll.
    assert bots.act("honest", view(["announce"], [3, 1], 21, [66, 21], [21], "poschen"), None)["value"] == 21


def test_the_statistician_weighs_the_announcement_against_the_one_before():
    # 62 over 61: a roll of 62 (2/36) against a liar's smallest lie after a roll of 61 or less
    # (20/36 × 1/2): true with chance 1/6. 63 over 61: 2/36 against 20/36 × 1/2 × 1/10: 2/3.
    assert two_dice_bots.chance_true(R(62), R(61)) == Fraction(1, 6)
    assert two_dice_bots.chance_true(R(63), R(61)) == Fraction(2, 3)
    assert bots.act("statistician", view(["believe", "check"], said=62, history=[61, 62]), None) == {"action": "check"}
    assert bots.act("statistician", view(["believe", "check"], said=63, history=[61, 63]), None) == {
        "action": "believe"
    }
    # The opener needs no lie: believed.
    assert bots.act("statistician", view(["believe", "check"], said=66, history=[66]), None) == {"action": "believe"}


def test_the_statistician_lies_with_the_most_believable_value():
    # After 61 with a 3-1 it must lie: not 62 (the liar's usual step), but a plain 63.
    assert bots.act("statistician", view(["announce"], [3, 1], 61, [61], higher(61)), None)["value"] == 63


def test_the_bluffer_lies_at_about_its_rate_even_with_a_good_roll():
    rng = random.Random(3)
    said = [bots.act("bluffer", view(["announce"], [5, 2], 43, [43], higher(43)), rng)["value"] for _ in range(2000)]
    lies = sum(1 for v in said if v != 52)
    assert all(R(v) > R(43) for v in said)
    assert abs(lies / 2000 - bots.BLUFF_RATE) < 0.05  # 0.3 ± 0.05 is more than 4 standard errors


def test_luegen_odds_of_the_unknown_dice():
    assert chance_at_least(1, 3) == pytest.approx(1 - (2 / 3) ** 3)
    assert chance_at_least(0, 6) == 1.0 and chance_at_least(7, 6) == 0.0
    # My dice 4-4-1 are three fours; six dice unknown. "5 × 4" needs two more of six: likely.
    luegen = {"rules": "luegen", "phase": "playing", "you": "me", "dice": [4, 4, 1], "dice_in_play": 9}
    likely = {**luegen, "allowed": ["bid", "doubt"], "bid": {"player": "ann", "count": 5, "face": 4}}
    likely["choices"] = [{"count": 5, "face": 5}, {"count": 6, "face": 4}]
    assert bots.act("honest", likely, random.Random(0)) == {"action": "bid", "count": 6, "face": 4}
    # "7 × 6" needs seven sixes or ones, I hold one: six of six unknown dice: doubted.
    unlikely = {**likely, "bid": {"player": "ann", "count": 7, "face": 6}}
    assert bots.act("statistician", unlikely, random.Random(0)) == {"action": "doubt"}
    # Nobody doubts their own bid.
    own = {**unlikely, "bid": {"player": "me", "count": 7, "face": 6}, "allowed": ["doubt"]}
    assert bots.act("honest", own, random.Random(0)) is None


MIXES = [["honest"] * 3, ["bluffer"] * 3, ["statistician"] * 3, ["honest", "bluffer", "statistician", "honest"]]


@pytest.mark.parametrize("mix", MIXES, ids="-".join)
def test_a_thousand_games_of_each_mix_play_to_a_winner_without_a_refusal(mix):
    rng = random.Random(len(mix))
    for _ in range(1000):
        result = simulate.play_engine(mix, rng)  # the engine raises IllegalMove on any refused action
        assert 0 <= result["seat"] < len(mix)


@pytest.mark.parametrize("rules_name", sorted(REGISTRY))
def test_bots_play_every_rule_set_to_the_end_with_every_strategy(rules_name):
    rng = random.Random(7)
    for n in range(40):
        mix = MIXES[n % len(MIXES)]
        result = simulate.play_engine(mix, rng, rules_name)  # raises IllegalMove on any refused action
        assert sorted(result["ranking"]) == list(range(len(mix)))  # everyone ranked, once


def test_unknown_strategies_are_refused():
    with pytest.raises(ValueError, match="no strategy"):
        bots.act("psychic", view(["check"], said=31, history=[31]), None)
