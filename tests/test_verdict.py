"""The dice verdict a class reads, over many seeded bot games: false alarms on fair dice, power on a loaded die.

A class of eight tables of three honest bots plays ten games; at random
moments in games 2–10 the verdict of the class's pooled statistics (what the
class board shows) is read. With fair dice it may call them unusual about
one time in twenty (α = 5 %): checked cups are a skewed sample (the bots
check what looks like a lie) and never enter the test. With one die of every cup loaded (a six a
quarter of the time) it must say so once enough games are over.

    .venv/bin/python -m pytest tests/test_verdict.py -s    # prints the figures
"""

import random

import pytest

from maxchen import bots, stats
from maxchen.dice import SeededDice
from maxchen.rulesets import REGISTRY, RULESETS
from maxchen.table import Room

TABLES = 8


class LoadedDice(SeededDice):
    """Every cup's first die shows a six a quarter of the time (stats.LOADED_SIX), the others are fair."""

    def roll(self, count):
        dice = super().roll(count)
        weights = [float((1 - stats.LOADED_SIX) / 5)] * 5 + [float(stats.LOADED_SIX)]
        dice[0] = self._random.choices(range(1, 7), weights)[0]
        return dice


def _table(rules, rng):
    room = Room("TABLE" + str(rng.randrange(10**6)), rules, RULESETS[rules].default_options(), [], None)
    seats = [room.add(name)[0].id for name in ("Ann", "Ben", "Cem")]
    room.host = seats[0]
    return room, dict.fromkeys(seats, "honest")


def _move(room, seats, dice, rng) -> bool:
    """One bot's move at a table (a new game when none runs); False when it ended a game."""
    if room.phase != "playing":
        room.apply(room.host, {"action": "start"}, {}, dice)
        return True
    for player in rng.sample(list(seats), len(seats)):
        move = bots.act(seats[player], room.view_for(player, {}), rng)
        if move:
            room.apply(player, move, {}, dice)
            room.log_rolls(room.game.drain_rolls())  # as Rooms does after every change: the counts
            return room.phase == "playing"
    raise AssertionError("no bot could move")


def verdicts(seed, dice, rules="maexchen", games=10, after=1, chance=0.002):
    """Play a class; at random moments once every table has `after` games over, the class's verdict."""
    rng = random.Random(seed)
    tables = [_table(rules, rng) for _ in range(TABLES)]
    over = [0] * TABLES
    seen = []
    while min(over) < games:
        number = rng.randrange(TABLES)
        if over[number] >= games:
            continue
        room, seats = tables[number]
        if not _move(room, seats, dice, rng):
            over[number] += 1
        if min(over) >= after and rng.random() < chance:
            pooled = stats.new_counts()
            for room, _ in tables:
                stats.merge(pooled, room.counts)
            test = stats.shown(pooled)[REGISTRY[rules].dice]
            if test and test["verdict"] != "few":
                seen.append(test["verdict"])
    return seen


def _rate(samples):
    return sum(v in ("unusual", "suspect") for v in samples) / len(samples)


@pytest.mark.timeout(300)
def test_fair_dice_are_called_unusual_about_one_time_in_twenty():
    samples = []
    for seed in range(30):
        samples += verdicts(seed, SeededDice(seed))
    rate = _rate(samples)
    print(f"\nfair dice, {len(samples)} verdicts of 30 classes: unusual or worse {rate:.1%}")
    assert len(samples) >= 400
    assert rate <= 0.07


@pytest.mark.timeout(300)
def test_one_loaded_die_is_noticed_once_three_games_are_over():
    # 8 tables × 3 games ≈ 850 rolls: the χ² test's 80 % point for this die (stats.rolls_to_notice).
    samples = []
    for seed in range(20):
        samples += verdicts(seed, LoadedDice(seed), games=6, after=3, chance=0.006)
    rate = _rate(samples)
    print(f"\none loaded die, {len(samples)} verdicts once 3 games were over: noticed {rate:.1%}")
    assert len(samples) >= 100
    assert rate >= 0.75
