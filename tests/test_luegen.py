"""Lügen (docs/rules.md §4): bids, jokers, doubts, mats, safe players and the play-off."""

import json

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule

from maxchen import messages
from maxchen.dice import FixedDice
from maxchen.errors import IllegalMove
from maxchen.rooms import Rooms
from maxchen.rulesets.luegen.game import LuegenGame, bid_beats, count_matches

from .bidding_machine import BiddingMachine
from .conftest import SeededDice, refused

A, B, C, D = "ann", "ben", "cem", "dora"


@pytest.mark.parametrize(
    ("count", "face", "last", "beats"),
    [
        (4, 6, (4, 5), True),  # same count, higher face
        (5, 3, (4, 5), True),  # higher count, any face
        (5, 2, (4, 6), True),
        (4, 5, (4, 5), False),  # equal
        (4, 4, (4, 5), False),  # same count, lower face
        (3, 6, (4, 5), False),  # lower count
        (1, 2, None, True),  # anything opens
    ],
)
def test_raising_a_bid(count, face, last, beats):
    bid = None if last is None else {"player": A, "count": last[0], "face": last[1]}
    assert bid_beats(count, face, bid) is beats


@pytest.mark.parametrize(
    ("cups", "face", "found"),
    [
        ([[5, 5, 2], [1, 3, 4]], 5, 3),  # two fives and a joker
        ([[1, 1, 1], [6, 6, 6]], 2, 3),  # ones count for any face
        ([[6, 4, 3], [3, 2, 2]], 5, 0),
        ([[6, 6, 1], [6, 1, 2], [4, 4, 4]], 6, 5),
    ],
)
def test_counting_with_jokers(cups, face, found):
    assert count_matches(cups, face) == found


def new_game(*rolls, players=(A, B, C), **options):
    return LuegenGame(list(players), options, dice=FixedDice(rolls))


def shake_all(game, order=None):
    for player in order or game.active():
        game.apply(player, "shake")


def test_a_round_every_cup_then_bids_then_a_doubt():
    game = new_game([1, 3, 4], [5, 5, 2], [6, 6, 6])  # in the order the cups are shaken
    assert all(game.allowed(p) == ["shake"] for p in (A, B, C))
    game.apply(B, "shake")  # any order: each on their own phone
    refused(game, A, "bid", "not_allowed", count=2, face=5)  # not before every cup is shaken
    game.apply(A, "shake")
    game.apply(C, "shake")
    assert game.view_for(A)["dice"] == [5, 5, 2]
    assert game.view_for(B)["dice"] == [4, 3, 1]
    # Ann opens: she bids three fives.
    assert game.allowed(A) == ["bid"] and game.allowed(B) == []
    game.apply(A, "bid", {"count": 3, "face": 5})
    refused(game, B, "bid", "not_higher", count=3, face=4)
    refused(game, C, "bid", "not_your_turn", count=4, face=2)
    refused(game, B, "bid", "bad_value", count=3, face=1)  # no bids on ones
    refused(game, B, "bid", "bad_value", count=10, face=6)  # only 9 dice on the table
    refused(game, A, "doubt", "not_allowed")  # not your own bid
    # Cem doubts out of turn: allowed for anyone but the bidder.
    assert "doubt" in game.allowed(C)
    game.apply(C, "doubt")
    reveal = game.reveal
    assert (reveal["found"], reveal["loser"], reveal["mat_from"]) == (3, C, "stack")
    assert reveal["dice"] == {A: [5, 5, 2], B: [4, 3, 1], C: [6, 6, 6]}
    assert (game.mats[C], game.stack) == (1, 11)
    # The loser opens the next round; every cup is empty again, and no bid heard yet.
    assert game.opener == C and game.cups == {A: None, B: None, C: None}
    assert game.view_for(A)["bids"] == []


def test_a_round_saved_before_the_bids_were_kept_loads_with_its_standing_bid_as_the_history():
    game = new_game([1, 3, 4], [5, 5, 2], [6, 6, 6])
    for player in (A, B, C):
        game.apply(player, "shake")
    game.apply(A, "bid", {"count": 3, "face": 5})
    old = json.loads(json.dumps(game.to_dict()))
    del old["bids"]
    again = LuegenGame.from_dict(old, FixedDice())
    standing = {"player": A, "count": 3, "face": 5}
    assert again.view_for(B)["bid"] == standing and again.view_for(B)["bids"] == [standing]
    again.apply(B, "bid", {"count": 4, "face": 2})
    assert again.view_for(C)["bids"] == [standing, {"player": B, "count": 4, "face": 2}]
    # A round played from its start: every bid, oldest first, the standing one last.
    game.apply(B, "bid", {"count": 4, "face": 2})
    assert game.view_for(C)["bids"] == [{"player": A, "count": 3, "face": 5}, {"player": B, "count": 4, "face": 2}]


def test_a_wrong_bid_costs_the_bidder():
    game = new_game([2, 3, 4], [2, 5, 6], [3, 3, 6])
    shake_all(game)
    game.apply(A, "bid", {"count": 4, "face": 2})
    game.apply(B, "doubt")
    assert (game.reveal["found"], game.reveal["loser"]) == (2, A)


def play_round(game, rolls, bidder, doubter, count, face):
    game.dice.add(*(rolls or [[2, 3, 4]] * len(game.active())))
    shake_all(game)
    while game.turn != bidder:
        # Walk the turn round with the lowest raises until the bidder's turn.
        choice = game.choices()[0]
        game.apply(game.turn, "bid", choice)
    game.apply(bidder, "bid", {"count": count, "face": face})
    game.apply(doubter, "doubt")


LOW = None  # every cup 4-3-2: no fives and no ones, so "one five" is a lie


def test_both_stages_safe_players_and_the_loser_with_equal_playoff():
    game = new_game(mats=2)
    # Phase 1: Ann bids a lie twice and takes both mats from the stack.
    play_round(game, LOW, A, B, 1, 5)
    assert (game.stage, game.stack, game.mats[A]) == ("handing_out", 1, 1)
    play_round(game, LOW, A, C, 1, 5)
    # The stack is empty: Ben and Cem hold no mat, so they are safe and leave.
    assert game.stack == 0
    assert game.safe == [B, C]
    assert game.over and game.loser == A
    view = game.view_for(B)
    assert view["loser"] == A and view["safe_order"] == [B, C]
    # Safe at one moment (the stack ran out): tied, no order between them.
    assert view["safe_groups"] == [[B, C]] and game.tied(B, C) and not game.tied(C, A)


def test_phase_two_moves_mats_between_the_two_and_the_playoff_decides():
    game = new_game(mats=4, players=(A, B, C, D))
    for player in (A, B, C, D):  # one mat each from the stack
        doubter = B if player != B else A
        play_round(game, LOW, player, doubter, 1, 5)
    assert game.stack == 0 and game.mats == {A: 1, B: 1, C: 1, D: 1}
    # All hold the same number: with "equal" the play-off starts at once.
    assert game.stage == "play_off"
    play_round(game, LOW, C, D, 1, 5)
    assert game.loser == C and game.mats == {A: 1, B: 1, C: 1, D: 1}  # no mat moves
    assert game.over and set(game.safe) == {A, B, D}


def test_last_two_playoff_waits_for_the_last_two():
    game = new_game(mats=4, playoff="last_two")
    play_round(game, LOW, A, B, 1, 5)  # each lie costs the liar a mat from the stack
    play_round(game, LOW, B, C, 1, 5)
    play_round(game, LOW, C, A, 1, 5)
    play_round(game, LOW, A, B, 1, 5)
    assert (game.stack, game.mats, game.stage) == (0, {A: 2, B: 1, C: 1}, "playing_down")
    # Phase 2: Cem doubts Ann's lie and was right: he gives her one of his mats and is safe.
    play_round(game, LOW, A, C, 1, 5)
    assert game.reveal["mat_from"] == C
    assert game.mats == {A: 3, B: 1, C: 0} and game.safe == [C]
    assert game.stage == "playing_down"
    # Ben doubts Ann's true bid (three fives under her cup): he loses, Ann gives him a mat.
    play_round(game, [[5, 5, 5], [2, 3, 4]], A, B, 2, 5)
    assert game.mats == {A: 2, B: 2, C: 0}
    assert game.stage == "play_off"  # the last two hold the same number
    # The play-off: Ben lies, Ann doubts: Ben loses the game, and no mat moves.
    play_round(game, LOW, B, A, 1, 5)
    assert game.loser == B and game.mats == {A: 2, B: 2, C: 0}
    assert game.safe == [C, A]
    assert game.view_for(None)["safe_groups"] == [[C], [A]] and not game.tied(C, A)  # one after the other


def test_those_safe_at_one_moment_share_a_place_on_the_table_and_its_result(app, rooms, dice):
    """Two mats, Ann lies twice and takes both: Ben and Cem are safe at the same moment, so they share a place
    in the standings, the table's result and its words (no order between them)."""
    from maxchen import live

    code, ann = (lambda r: (r["code"], r["player"]))(rooms.create("Ann", "luegen", options={"mats": 2}))
    ben, cem = (rooms.join(code, name)["player"] for name in ("Ben", "Cem"))
    rooms.act(code, ann, {"action": "start"})
    for doubter in (ben, cem):
        dice.add(*[(2, 3, 4)] * 3)
        for player in (ann, ben, cem):
            rooms.act(code, player, {"action": "shake"})
        while rooms.load(code).game.turn != ann:
            game = rooms.load(code).game
            rooms.act(code, game.turn, {"action": "bid", **game.choices()[0]})
        rooms.act(code, ann, {"action": "bid", "count": 9, "face": 6})
        rooms.act(code, doubter, {"action": "doubt"})
    view = rooms.view(code, ben)
    assert view["phase"] == "over" and view["places"] == [1, 1, 3]
    assert rooms.load(code).results[-1]["places"] == [1, 1, 3]
    assert [(p["name"], p["place"]) for p in live.standings(view)] == [("Ben", 1), ("Cem", 1), ("Ann", 3)]
    with app.test_request_context():
        html = live.render_public(view, "en")["table"]
    assert "Safe at the same moment:" in html and "in this order" not in html


def test_equal_mats_in_phase_one_do_not_start_a_playoff():
    game = new_game(mats=6)
    play_round(game, LOW, A, B, 1, 5)
    play_round(game, LOW, B, C, 1, 5)
    play_round(game, LOW, C, A, 1, 5)
    assert game.mats == {A: 1, B: 1, C: 1} and game.stage == "handing_out"


def test_views_hold_only_your_own_cup():
    game = new_game([6, 5, 4], [3, 2, 1], [2, 2, 2])
    shake_all(game)
    for player, dice in ((A, [6, 5, 4]), (B, [3, 2, 1]), (C, [2, 2, 2])):
        view = game.view_for(player)
        assert view["dice"] == dice
        others = [d for p, d in game.cups.items() if p != player]
        text = json.dumps({k: v for k, v in view.items() if k != "dice"})
        assert all(str(d) not in text for d in others)
    assert game.view_for(None)["dice"] is None


def test_a_doubt_that_lost_the_race_names_who_was_faster(doubt_race):
    rooms, code, ben, version = doubt_race
    with pytest.raises(IllegalMove) as caught:
        rooms.act(code, ben["player"], {"action": "doubt", "version": version})
    assert (caught.value.code, messages.text(caught.value)) == ("stale", "\u2068Cem\u2069 was faster.")
    with pytest.raises(IllegalMove) as caught:
        rooms.act(code, ben["player"], {"action": "doubt"})
    assert messages.text(caught.value) == "\u2068Cem\u2069 was faster."
    view = rooms.view(code, ben["player"])
    assert [p["mats"] for p in view["players"]] == [1, 0, 0] and view["stack"] == 11


def test_luegen_needs_three_players_and_a_phone_each():
    rooms = Rooms()
    ann = rooms.create("Ann", "luegen")
    rooms.join(ann["code"], "Ben")
    with pytest.raises(IllegalMove):
        rooms.act(ann["code"], ann["player"], {"action": "start"})
    with pytest.raises(IllegalMove) as caught:
        rooms.create_shared(["A", "B", "C"], "luegen")
    assert caught.value.code == "bad_value"


class LuegenMachine(BiddingMachine):
    """Mats are conserved (stack plus all players = the start) at every step."""

    @initialize(
        count=st.integers(3, 5),
        seed=st.integers(0, 2**32),
        mats=st.integers(2, 8),
        playoff=st.sampled_from(["equal", "last_two"]),
    )
    def start(self, count, seed, mats, playoff):
        self.players = [f"p{i}" for i in range(count)]
        self.game = LuegenGame(self.players, {"mats": mats, "playoff": playoff}, dice=SeededDice(seed))
        self.total = mats

    @rule(data=st.data())
    def legal(self, data):
        if self.game.over:
            return
        player = data.draw(
            st.sampled_from(
                self.game.waiting_for() + [p for p in self.game.active() if "doubt" in self.game.allowed(p)]
            )
        )
        action = data.draw(st.sampled_from(self.game.allowed(player)))
        payload = data.draw(st.sampled_from(self.game.choices())) if action == "bid" else {}
        self.game.apply(player, action, payload)

    @invariant()
    def someone_can_act(self):
        if not self.game.over:
            assert any(self.game.allowed(p) for p in self.game.waiting_for())

    @invariant()
    def mats_are_conserved(self):
        assert self.game.stack + sum(self.game.mats.values()) == self.total
        assert self.game.stack >= 0 and all(n >= 0 for n in self.game.mats.values())

    def teardown(self):
        # The game always ends: the opener bids everything on sixes (almost surely a lie)
        # and someone doubts, so mats flow to the liar until only one holds any.
        for _ in range(1000):
            if self.game.over:
                break
            player = self.game.waiting_for()[0]
            if "shake" in self.game.allowed(player):
                self.game.apply(player, "shake")
            elif self.game.bid is None:
                self.game.apply(player, "bid", self.game.choices()[-1])
            else:
                doubter = next(p for p in self.game.active() if "doubt" in self.game.allowed(p))
                self.game.apply(doubter, "doubt")
        assert self.game.over
        assert self.game.stack + sum(self.game.mats.values()) == self.total


LuegenMachine.TestCase.settings = settings(max_examples=80, stateful_step_count=50, deadline=None)
TestLuegenMachine = LuegenMachine.TestCase


def test_after_the_highest_bid_only_a_doubt_is_left():
    game = new_game([6, 6, 6], [6, 6, 6], [6, 6, 6])
    shake_all(game)
    game.apply(A, "bid", {"count": 9, "face": 6})
    assert game.allowed(B) == ["doubt"] and game.choices() == []


def test_a_doubt_logs_every_cup_shown_the_bidders_with_its_verdict_and_a_void_rounds_cups_unseen():
    game = new_game([5, 1, 2], [5, 3, 3], [6, 4, 2])  # in the order shaken: Ann, Ben, Cem
    shake_all(game)
    # Ann bids four fives; the table holds three (a one is a joker). Cem doubts.
    game.apply(A, "bid", {"count": 4, "face": 5})
    game.apply(C, "doubt")
    rolls = game.drain_rolls()
    assert [(r["player"], r["dice"], r["value"], r["outcome"], r["found"]) for r in rolls] == [
        (A, [5, 2, 1], 2, "too_high", False),  # the bidder's cup carries the verdict
        (B, [5, 3, 3], 1, "shown", None),
        (C, [6, 4, 2], 0, "shown", None),
    ]
    assert all(r["bid"] == {"count": 4, "face": 5} and r["table"] == 3 for r in rolls)
    assert all(r["answerer"] == C and r["public"] and r["round"] == 1 and r["announced"] is None for r in rolls)
    # Round 2: the cups are shaken, then Ben leaves: the round is void, its cups leave unseen.
    game.dice.add([2, 2, 2], [3, 3, 3], [4, 4, 4])
    shake_all(game)
    game.remove(B)
    rolls = game.drain_rolls()
    assert [(r["player"], r["dice"], r["outcome"], r["public"], r["bid"], r["value"]) for r in rolls] == [
        (A, [2, 2, 2], "void", False, None, None),
        (B, [3, 3, 3], "void", False, None, None),
        (C, [4, 4, 4], "void", False, None, None),
    ]


def test_when_all_but_one_leave_the_game_ends_and_its_ranking_names_only_players():
    game = LuegenGame([A, B, C], {"mats": 2}, dice=SeededDice(1))
    game.remove(A)
    assert not game.over and game.voided == {"player": A, "round": 2}
    game.remove(B)  # Cem is alone, without a mat: nobody loses
    view = game.view_for(C)
    assert game.over and view["loser"] is None and view["allowed"] == []
    assert view["ranking"] == [C, A, B]
    assert [roll["outcome"] for roll in game.drain_rolls()] == []  # no cup was shaken: nothing to log
    assert view["tally"]["rounds"] == 0  # both rounds were left void: none was played
