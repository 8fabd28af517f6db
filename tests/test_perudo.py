"""Perudo (docs/rules.md §6): raises onto and off pacos, dudo, calza, palifico, who opens, who is out."""

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule

from maxchen.dice import FixedDice
from maxchen.errors import IllegalMove
from maxchen.rulesets.perudo.game import PerudoGame, count_matches, raise_ok

from .bidding_machine import BiddingMachine
from .conftest import SeededDice, refused

A, B, C, D = "ann", "ben", "cem", "dora"


@pytest.mark.parametrize(
    ("count", "face", "last", "palifico", "ok"),
    [
        (4, 6, (4, 5), False, True),  # same count, higher face
        (5, 2, (4, 6), False, True),  # higher count, any face
        (4, 5, (4, 5), False, False),  # equal
        (4, 4, (4, 5), False, False),  # same count, lower face
        (4, 1, (7, 5), False, True),  # seven fives -> four pacos (half, rounded up)
        (3, 1, (7, 5), False, False),
        (3, 1, (6, 5), False, True),  # six fives -> three pacos
        (9, 3, (4, 1), False, True),  # four pacos -> nine threes (twice plus one)
        (8, 6, (4, 1), False, False),
        (5, 1, (4, 1), False, True),  # pacos onto pacos: a higher count
        (4, 1, (4, 1), False, False),
        (1, 1, None, False, False),  # no opening on pacos
        (1, 2, None, False, True),
        (1, 1, None, True, True),  # ... except in palifico
        (3, 4, (2, 4), True, True),  # palifico: the face stays, the count goes up
        (2, 5, (2, 4), True, False),
        (3, 5, (2, 4), True, False),
        (3, 1, (2, 1), True, True),
    ],
)
def test_raising_a_bid(count, face, last, palifico, ok):
    bid = None if last is None else {"player": A, "count": last[0], "face": last[1]}
    assert raise_ok(count, face, bid, palifico) is ok


@pytest.mark.parametrize(
    ("cups", "face", "wild", "found"),
    [
        ([[5, 5, 2], [1, 3, 4]], 5, True, 3),  # two fives and a paco
        ([[1, 1, 1], [6, 6]], 2, True, 3),  # pacos count for any face
        ([[1, 1, 1], [6, 6]], 1, True, 3),  # a bid on pacos counts pacos alone
        ([[5, 5, 1], [1, 3]], 5, False, 2),  # palifico: pacos are not jokers
        ([[6, 4, 3], [3, 2, 2]], 5, True, 0),
    ],
)
def test_counting_with_pacos(cups, face, wild, found):
    assert count_matches(cups, face, wild) == found


def new_game(*rolls, players=(A, B, C), **options):
    return PerudoGame(list(players), options, dice=FixedDice(rolls))


def shake_all(game):
    for player in game.active():
        game.apply(player, "shake")


def test_a_round_every_cup_then_bids_then_a_dudo():
    game = new_game([1, 3, 4, 5, 5], [6, 6, 2, 2, 1], [3, 3, 3, 4, 4])
    assert all(game.allowed(p) == ["shake"] for p in (A, B, C))
    game.apply(A, "shake")
    refused(game, A, "bid", "not_allowed", count=2, face=5)  # not before every cup is shaken
    game.apply(B, "shake")
    game.apply(C, "shake")
    assert game.view_for(A)["dice"] == [5, 5, 4, 3, 1]
    assert game.view_for(B)["dice"] == [6, 6, 2, 2, 1] and game.view_for(B)["dice_in_play"] == 15
    # Ann opens; not on pacos.
    assert game.allowed(A) == ["bid"] and game.allowed(B) == []
    refused(game, A, "bid", "not_higher", count=2, face=1)
    refused(game, A, "bid", "bad_value", count=16, face=5)  # 15 dice on the table
    refused(game, A, "bid", "bad_value", count=2, face=7)
    game.apply(A, "bid", {"count": 4, "face": 5})
    # Ben raises onto pacos: half of four.
    refused(game, B, "bid", "not_higher", count=1, face=1)
    refused(game, C, "dudo", "not_your_turn")  # only the player whose turn it is calls
    assert game.allowed(B) == ["bid", "dudo", "calza"]
    game.apply(B, "bid", {"count": 2, "face": 1})
    # Cem calls dudo on two pacos: Ann's and Ben's, exactly two. The bid stands: Cem loses a die.
    game.apply(C, "dudo")
    reveal = game.reveal
    assert (reveal["call"], reveal["found"], reveal["loser"]) == ("dudo", 2, C)
    assert reveal["dice"][A] == [5, 5, 4, 3, 1]  # every cup is shown
    assert game.dice_left == {A: 5, B: 5, C: 4}
    # Cem lost the die: he opens the next round, with four dice to shake.
    assert game.opener == C and game.round == 2 and game.cups == {A: None, B: None, C: None}
    game.dice.add([2, 2, 2, 2, 2], [3, 3, 3, 3, 3], [4, 4, 4, 4])
    shake_all(game)
    assert game.turn == C and game.dice_in_play() == 14


def test_a_dudo_that_catches_a_bid_too_high_costs_the_bidder():
    game = new_game([2, 2, 3, 4, 5], [6, 6, 6, 5, 1], [3, 3, 3, 4, 4])
    shake_all(game)
    game.apply(A, "bid", {"count": 5, "face": 6})  # four sixes on the table (three and a paco)
    game.apply(B, "dudo")
    assert (game.reveal["found"], game.reveal["loser"]) == (4, A)
    assert game.dice_left[A] == 4 and game.opener == A
    assert game.tally["checks"] == 1 and game.tally["caught"] == 1


def test_a_right_calza_never_takes_a_player_above_five_dice():
    game = new_game([2, 2, 3, 4], [6, 6, 6, 5, 1], [3, 3, 3, 4, 4])
    game.dice_left[A] = 4  # Ann is down to four dice
    shake_all(game)
    game.apply(A, "bid", {"count": 3, "face": 3})
    game.apply(B, "bid", {"count": 5, "face": 3})  # A 3, C 3-3-3, B a paco: exactly five
    game.apply(C, "calza")
    reveal = game.reveal
    assert (reveal["call"], reveal["found"], reveal["gainer"], reveal["loser"]) == ("calza", 5, C, None)
    assert game.dice_left == {A: 4, B: 5, C: 5} and not reveal["back"]  # Cem had five: no sixth die
    assert game.opener == C  # the right caller opens
    assert game.tally["checks"] == 0  # a calza is no doubt


def test_a_right_calza_gives_a_die_back_and_a_wrong_one_costs_the_caller():
    game = new_game([2, 2, 3], [6, 6, 6, 1], [3, 3, 3, 4, 4])
    game.dice_left.update({A: 3, B: 4})
    game._new_round(A)
    shake_all(game)
    game.apply(A, "bid", {"count": 4, "face": 6})
    game.apply(B, "calza")  # three sixes and a paco: exactly four
    assert game.reveal["gainer"] == B and game.reveal["back"] and game.dice_left[B] == 5 and game.opener == B
    game.dice.add([2, 2, 3], [6, 6, 6, 5, 1], [3, 3, 3, 4, 4])
    shake_all(game)
    game.apply(B, "bid", {"count": 2, "face": 2})
    game.apply(C, "calza")  # two twos and a paco: three, not two
    assert game.reveal["loser"] == C and game.dice_left[C] == 4 and game.opener == C


def test_a_shorter_game_of_three_dice_each():
    # docs/rules.md §6, "A shorter game": the host chose three dice each.
    game = new_game([2, 2, 3], [6, 6, 1], [3, 3, 4], dice=3)
    assert game.dice_left == {A: 3, B: 3, C: 3} and game.player_fields(A)["dice"] == 3
    assert PerudoGame.lobby_fields(game.options) == {"dice": 3} and game.cup_size(A) == 3
    shake_all(game)
    assert game.view_for(A)["dice"] == [3, 2, 2] and game.view_for(A)["dice_in_play"] == 9
    # No bid names more dice than the nine on the table.
    assert max(choice["count"] for choice in game.view_for(A)["choices"]) == 9
    assert refused(game, A, "bid", "bad_value", count=10, face=3).params == {"dice": 9}
    game.apply(A, "bid", {"count": 3, "face": 3})
    game.apply(B, "bid", {"count": 4, "face": 3})
    # Cem calls calza: a three of Ann's, two of his, Ben's paco: exactly four. He has his three dice: no fourth.
    game.apply(C, "calza")
    assert (game.reveal["gainer"], game.reveal["back"]) == (C, False)
    assert game.dice_left == {A: 3, B: 3, C: 3}
    # Cem opens two sixes; there are none: Ann's dudo costs him a die.
    game.dice.add([5, 5, 5], [2, 2, 2], [4, 4, 4])
    shake_all(game)
    game.apply(C, "bid", {"count": 2, "face": 6})
    game.apply(A, "dudo")
    assert game.reveal["loser"] == C and game.dice_left[C] == 2 and game.dice_in_play() == 8
    game.dice.add([6, 2, 3], [6, 4, 5], [6, 1])
    shake_all(game)
    game.apply(C, "bid", {"count": 2, "face": 6})
    game.apply(A, "bid", {"count": 3, "face": 6})
    game.apply(B, "bid", {"count": 4, "face": 6})
    # Three sixes and Cem's paco: exactly four. A right calza gives his third die back, as many as at the start.
    game.apply(C, "calza")
    assert (game.reveal["gainer"], game.reveal["back"]) == (C, True)
    assert game.dice_left == {A: 3, B: 3, C: 3}


@pytest.mark.parametrize("dice", [2, 6, 0, "3", 3.0, True, None])
def test_three_four_or_five_dice_each_and_nothing_else(dice):
    with pytest.raises(IllegalMove) as caught:
        PerudoGame.check_options({"dice": dice})
    assert (caught.value.reason, caught.value.params) == ("option_choice", {"option": "dice", "choices": "3, 4, 5"})


def test_a_game_saved_before_the_host_chose_the_dice_has_five_each():
    state = new_game().to_dict()
    state["options"] = {"calza": "on", "hint": "off"}
    again = PerudoGame.from_dict(state, FixedDice([]))
    assert again.options["dice"] == 5 and again.cup_size(A) == 5


def test_a_second_call_of_the_same_bid_is_told_the_table_moved_on():
    game = new_game([2, 2, 3, 4, 5], [6, 6, 6, 5, 1], [3, 3, 3, 4, 4])
    shake_all(game)
    game.apply(A, "bid", {"count": 2, "face": 2})
    game.apply(B, "dudo")
    # Ben's phone sends the dudo again (a double tap): a new round, nothing to call, and it says so.
    assert refused(game, B, "dudo", "stale").reason == "stale"
    assert refused(game, B, "calza", "stale").reason == "stale"


def test_no_calza_with_two_players_or_when_switched_off():
    game = new_game([2, 2, 3, 4, 5], [6, 6, 6, 5, 1], players=(A, B))
    shake_all(game)
    game.apply(A, "bid", {"count": 2, "face": 2})
    assert game.allowed(B) == ["bid", "dudo"]
    refused(game, B, "calza", "not_allowed")
    off = new_game([2, 2, 3, 4, 5], [6, 6, 6, 5, 1], [3, 3, 3, 4, 4], calza="off")
    shake_all(off)
    off.apply(A, "bid", {"count": 2, "face": 2})
    error = refused(off, B, "calza", "not_allowed")
    assert error.reason == "perudo_no_calza"


def test_the_loser_out_of_dice_is_out_and_the_next_still_in_opens():
    game = new_game([2], [6, 6], [3, 3, 3, 3, 3], players=(A, B, C))
    game.dice_left.update({A: 1, B: 2, C: 5})
    game.palificos = [A, B]  # their palifico rounds were played
    game._new_round(A)
    shake_all(game)
    game.apply(A, "bid", {"count": 2, "face": 2})  # one two on the table
    game.apply(B, "bid", {"count": 3, "face": 6})  # two sixes: Cem doubts
    game.apply(C, "dudo")
    assert game.reveal["loser"] == B and game.dice_left[B] == 1
    game.dice.add([4], [6], [5, 5, 5, 5, 5])
    shake_all(game)
    assert game.opener == B
    game.apply(B, "bid", {"count": 2, "face": 6})
    game.apply(C, "bid", {"count": 3, "face": 6})
    game.apply(A, "dudo")  # one six: Cem's bid is too high
    assert game.dice_left[C] == 4
    game.dice.add([4], [6], [5, 5, 5, 5])
    shake_all(game)
    game.apply(C, "bid", {"count": 2, "face": 4})  # one four: too high
    game.apply(A, "dudo")
    game.dice.add([4], [6], [5, 5, 5])
    shake_all(game)
    game.apply(C, "bid", {"count": 1, "face": 4})
    game.apply(A, "bid", {"count": 1, "face": 6})
    game.apply(B, "dudo")  # Ben's six: Ann's bid stands, Ben is out of dice
    assert game.reveal["loser"] == B and game.reveal["out"] and game.out == [B]
    assert game.opener == C  # Ben is out: the next player still in after him opens
    assert game.allowed(B) == [] and B not in game.cups
    refused(game, B, "shake", "not_allowed")


def test_the_last_with_dice_wins_and_the_ranking_is_by_going_out():
    game = new_game([2], [6], [3], players=(A, B, C))
    game.dice_left.update({A: 1, B: 1, C: 1})
    game.palificos = [A, B, C]
    game._new_round(A)
    shake_all(game)
    game.apply(A, "bid", {"count": 2, "face": 3})
    game.apply(B, "dudo")  # one three: Ann is out
    assert game.out == [A] and game.opener == B
    game.dice.add([6], [3])
    shake_all(game)
    game.apply(B, "bid", {"count": 1, "face": 6})
    game.apply(C, "dudo")  # the six stands: Cem is out, Ben wins
    assert game.over and game.winner == B
    view = game.view_for(None)
    assert view["winner"] == B and view["ranking"] == [B, C, A]
    refused(game, B, "shake", "not_allowed")


def test_palifico_rounds():
    # Cem goes down to one die with three players in: the next round is palifico.
    game = new_game([2, 2, 3], [6, 6, 6, 5, 1], [3, 3], players=(A, B, C))
    game.dice_left.update({A: 3, C: 2})
    game._new_round(A)
    shake_all(game)
    game.apply(A, "bid", {"count": 2, "face": 2})
    game.apply(B, "bid", {"count": 3, "face": 6})  # three sixes and a paco
    game.apply(C, "dudo")  # wrong: Cem is down to one die
    assert game.reveal["next_palifico"] == C and game.palifico == C and game.opener == C
    assert game.view_for(A)["palifico"] == C
    game.dice.add([1, 4, 4], [1, 1, 6, 5, 4], [4])
    shake_all(game)
    # Cem opens and may bid pacos; the face then stays; pacos are not jokers.
    assert {"count": 1, "face": 1} in game.choices()
    game.apply(C, "bid", {"count": 2, "face": 4})
    assert all(choice["face"] == 4 for choice in game.choices())
    refused(game, A, "bid", "not_higher", count=2, face=5)
    error = refused(game, A, "bid", "not_higher", count=3, face=5)
    assert error.reason == "perudo_palifico_raise"
    game.apply(A, "bid", {"count": 4, "face": 4})
    game.apply(B, "dudo")  # fours: Ann 2, Ben 1, Cem 1 = four (the three pacos do not count)
    assert game.reveal["palifico"] and game.reveal["found"] == 4 and game.reveal["loser"] == B
    assert game.palifico is None  # the round after is an ordinary one
    # Cem climbs back to two dice by a calza, then falls to one again: no second palifico (§6).
    game.dice.add([2, 2, 3], [2, 2, 2, 2], [2])
    shake_all(game)
    game.apply(B, "bid", {"count": 7, "face": 2})
    game.apply(C, "calza")  # 2 + 4 + 1 = exactly seven twos
    assert game.dice_left[C] == 2 and game.opener == C
    game.dice.add([5, 5, 5], [5, 5, 5, 5], [6, 6])
    shake_all(game)
    game.apply(C, "bid", {"count": 3, "face": 6})
    game.apply(A, "dudo")  # two sixes: Cem's bid is too high
    assert game.dice_left[C] == 1 and game.palifico is None and game.reveal["next_palifico"] is None


def test_no_palifico_with_two_players():
    game = new_game([2, 2], [6, 6, 6, 5, 1], players=(A, B))
    game.dice_left[A] = 2
    game._new_round(A)
    shake_all(game)
    game.apply(A, "bid", {"count": 3, "face": 2})  # two twos and a paco: three
    game.apply(B, "bid", {"count": 5, "face": 6})
    game.apply(A, "dudo")  # three sixes and a paco: four, too high for Ben
    assert game.dice_left[B] == 4
    game.dice.add([2, 2], [6, 6, 6, 5])
    shake_all(game)
    game.apply(B, "bid", {"count": 5, "face": 6})
    game.apply(A, "dudo")
    game.dice.add([2, 2], [6, 6, 6])
    shake_all(game)
    game.apply(B, "bid", {"count": 1, "face": 2})
    game.apply(A, "dudo")  # two twos: Ann loses, down to one, but only two are in the game
    assert game.dice_left[A] == 1 and game.palifico is None and game.reveal["next_palifico"] is None


def test_leaving_mid_round_voids_it_and_keeps_a_palifico_round():
    game = new_game([2, 2, 3], [6, 6, 6, 5, 1], [3], [5, 5, 5, 5, 5], players=(A, B, C, D))
    game.dice_left.update({A: 3, C: 1})
    game.palifico = C
    game.palificos = [C]
    game._new_round(C)
    shake_all(game)
    game.apply(C, "bid", {"count": 1, "face": 3})
    game.remove(B)
    assert game.round == 3 and game.voided == {"player": B, "round": 3}
    assert game.palifico == C and game.opener == C and game.bid is None
    assert [roll["outcome"] for roll in game.drain_rolls()] == ["void"] * 4
    assert B in game.out and B not in game.cups


class PerudoMachine(BiddingMachine):
    """Dice only go where the rules say, one turn at a time, never below zero or above the dice at the start."""

    @initialize(
        count=st.integers(2, 5),
        seed=st.integers(0, 2**32),
        calza=st.sampled_from(["on", "off"]),
        dice=st.sampled_from([3, 4, 5]),
    )
    def start(self, count, seed, calza, dice):
        self.players = [f"p{i}" for i in range(count)]
        self.game = PerudoGame(self.players, {"calza": calza, "dice": dice}, dice=SeededDice(seed))

    @rule(data=st.data())
    def legal(self, data):
        if self.game.over:
            return
        player = data.draw(st.sampled_from(self.game.waiting_for()))
        action = data.draw(st.sampled_from(self.game.allowed(player)))
        payload = data.draw(st.sampled_from(self.game.choices())) if action == "bid" else {}
        before = sum(self.game.dice_left.values())
        self.game.apply(player, action, payload)
        moved = sum(self.game.dice_left.values()) - before
        # A call moves one die at most (a right calza on all the dice of the start moves none); nothing else
        # moves any.
        assert moved in ((0,) if action in ("shake", "bid") else (-1, 0, 1))

    @invariant()
    def one_turn_and_someone_can_act(self):
        if not self.game.over:
            waiting = self.game.waiting_for()
            assert any(self.game.allowed(p) for p in waiting)
            if self.game.turn is not None:
                assert waiting == [self.game.turn]
                assert [p for p in self.game.active() if {"bid", "dudo"} & set(self.game.allowed(p))] == [
                    self.game.turn
                ]

    @invariant()
    def dice_counts_hold(self):
        game = self.game
        assert all(0 <= n <= game.options["dice"] for n in game.dice_left.values())
        assert all(len(cup) <= game.options["dice"] for cup in game.cups.values() if cup)
        assert {p for p in game.players if game.dice_left[p] == 0} <= set(game.out)
        assert all(game.dice_left[p] == 0 or p in game.left for p in game.out)
        assert len(game.out) == len(set(game.out))
        # A bid never asks for more dice than the round's cups hold (the last call of a game removes one;
        # a round a teacher ends leaves its cups unseen).
        if game.cups and all(game.cups.values()):
            assert all(bid["count"] <= sum(map(len, game.cups.values())) for bid in game.bids)
        if not game.over:
            assert all(bid["count"] <= game.dice_in_play() for bid in game.bids)
            assert game.dice_in_play() == sum(game.dice_left[p] for p in game.active())
            for player, cup in game.cups.items():
                assert cup is None or len(cup) == game.dice_left[player]


TestPerudoMachine = PerudoMachine.TestCase
TestPerudoMachine.settings = settings(max_examples=60, stateful_step_count=60, deadline=None)


@pytest.mark.parametrize(
    ("view", "p"),
    [
        ({"bid": {"count": 3, "face": 1}, "dice_in_play": 12, "palifico": None}, 1 / 6),  # pacos: ones alone
        ({"bid": {"count": 2, "face": 4}, "dice_in_play": 7, "palifico": "ann"}, 1 / 6),  # palifico: no jokers
        ({"bid": {"count": 1, "face": 6}, "dice_in_play": 25, "palifico": None}, 1 / 3),  # a six or a paco
    ],
)
def test_the_teaching_hint_counts_the_dice_as_the_round_does(view, p):
    import scipy.stats as scipy

    from maxchen.rules import bidding

    odds = bidding.odds(view)
    count, dice = view["bid"]["count"], view["dice_in_play"]
    assert odds["wild"] == (p == 1 / 3)
    assert float(odds["chance"]) == pytest.approx(scipy.binom.sf(count - 1, dice, p), rel=1e-12)
    assert [k for k, _ in odds["rows"]] == list(range(max(1, count - 2), count + 3))  # never a count below 1
    for k, chance in odds["rows"]:
        assert float(chance) == pytest.approx(scipy.binom.sf(k - 1, dice, p), rel=1e-12)
