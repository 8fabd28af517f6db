"""The dice verdict a class reads, over many seeded bot games: false alarms on fair dice, power on a loaded die.

A class of eight tables of three honest bots plays ten games; after every
game that ends, the class board looks: the verdict of the class's pooled
statistics and of every table's own. With fair dice a class sees "loaded"
at some look of its lesson at most one time in twenty (the evidence is a
test martingale): checked cups are a skewed sample (the bots check what
looks like a lie) and never enter the test. With one die of every cup
loaded (a six a quarter of the time) it must say so once enough games are
over.

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


def verdicts(seed, dice, rules="maexchen", games=10, after=1):
    """Play a class; after every game that ends, once every table has `after` games over, the verdicts the
    class sees: the pooled statistics' and each table's own (None while it has no test)."""
    rng = random.Random(seed)
    tables = [_table(rules, rng) for _ in range(TABLES)]
    over = [0] * TABLES
    looks = []
    kind = REGISTRY[rules].dice
    while min(over) < games:
        number = rng.randrange(TABLES)
        if over[number] >= games:
            continue
        room, seats = tables[number]
        if _move(room, seats, dice, rng):
            continue
        over[number] += 1
        if min(over) >= after:
            pooled = stats.new_counts()
            for room, _ in tables:
                stats.merge(pooled, room.counts)
            shown = [
                stats.shown(counts, power=False)[kind] for counts in (pooled, *(room.counts for room, _ in tables))
            ]
            looks.append([test["verdict"] if test else None for test in shown])
    return looks


@pytest.mark.timeout(300)
def test_fair_dice_are_called_loaded_at_some_look_of_a_lesson_less_than_one_time_in_twenty():
    alarmed = looked = 0
    for seed in range(16):
        looks = verdicts(seed, SeededDice(seed))
        looked += len(looks)
        alarmed += any("loaded" in look for look in looks)
    print(f"\nfair dice, 16 lessons of {looked / 16:.0f} looks at 9 verdicts: a 'loaded' at some look {alarmed}")
    assert looked >= 16 * 70
    # 5 % of 16 is 0.8; 2 or fewer 96 % of the time even at 5 % (bench/lesson.py: 0.6 % of 2,000 lessons)
    assert alarmed <= 2


@pytest.mark.timeout(300)
def test_one_loaded_die_is_noticed_once_five_games_are_over():
    # 8 tables × 5 games ≈ 1,200 rolls: past the verdict's 80 % point for this die (1,056 rolls).
    noticed = looked = 0
    for seed in range(20):
        looks = verdicts(seed, LoadedDice(seed), games=6, after=5)
        looked += len(looks)
        noticed += sum(look[0] == "loaded" for look in looks)
    rate = noticed / looked
    print(f"\none loaded die, {looked} looks once 5 games were over: noticed {rate:.1%}")
    assert looked >= 100
    assert rate >= 0.75
