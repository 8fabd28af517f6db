"""Poschen (docs/rules.md §3): every difference from Mäxchen, as tables and transcripts."""

import pytest

from maxchen.dice import FixedDice
from maxchen.errors import IllegalMove
from maxchen.rules import two_dice as rules
from maxchen.rulesets.poschen.game import PoschenGame

A, B, C = "ann", "ben", "cem"


def new_game(*rolls, players=(A, B, C), lives=None):
    options = {"lives": lives} if lives else None
    return PoschenGame(list(players), options, dice=FixedDice(rolls))


def lives(game):
    return {p: game.player_fields(p)["lives"] for p in game.players}


def test_everyone_starts_with_five_lives_shown_as_lives():
    game = new_game()
    assert lives(game) == {A: 5, B: 5, C: 5}
    assert game.player_fields(A) == {"out": False, "lives": 5}
    assert "points" not in game.player_fields(A)


@pytest.mark.parametrize(
    ("dice", "announced", "loser", "penalty"),
    [
        ((6, 5), 65, B, 1),  # the truth: the accuser loses a life
        ((6, 6), 65, B, 1),  # better than said
        ((4, 3), 65, A, 1),  # a lie
        ((2, 1), 21, B, 2),  # a real Mayer: the accuser loses two
        ((6, 6), 21, A, 2),  # a faked Mayer: the announcer loses two
    ],
)
def test_check_penalties_in_lives(dice, announced, loser, penalty):
    game = new_game(dice)
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": announced})
    game.apply(B, "check")
    assert (game.reveal["loser"], game.reveal["penalty"]) == (loser, penalty)
    assert lives(game)[loser] == 5 - penalty


def test_lives_never_go_below_zero():
    game = new_game((6, 6))
    game.score[A] = 1
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 21})
    game.apply(B, "check")  # a faked Mayer with one life left
    assert lives(game)[A] == 0
    assert game.player_fields(A)["out"]


def test_no_accept_after_a_mayer_only_check_or_mayer_again():
    game = new_game((3, 1), (5, 2))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 21})
    # Ben may check, or believe and try for a Mayer himself.
    assert game.allowed(B) == ["believe", "check"]
    with pytest.raises(IllegalMove):
        game.apply(B, "accept")
    game.apply(B, "believe")
    game.apply(B, "shake")
    assert game.announceable() == [21]
    with pytest.raises(IllegalMove) as caught:
        game.apply(B, "announce", {"value": 66})
    assert caught.value.code == "not_higher"
    game.apply(B, "announce", {"value": 21})  # the one equal announcement allowed
    game.apply(C, "check")  # Ben rolled 52: the Mayer was fake
    assert (game.reveal["loser"], game.reveal["penalty"]) == (B, 2)


def test_equal_announcements_stay_illegal_below_mayer():
    game = new_game((6, 6), (1, 1))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 44})
    game.apply(B, "believe")
    game.apply(B, "shake")
    assert 44 not in game.announceable()
    assert game.announceable() == [value for value in rules.VALUES if rules.rank(value) > rules.rank(44)]


def test_the_accuser_opens_the_next_round_even_after_losing_or_winning():
    game = new_game((4, 3), (6, 5))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 65})
    game.apply(B, "check")  # Ann lied: Ann loses, but Ben (the accuser) opens
    assert game.reveal["loser"] == A
    assert (game.turn, game.step) == (B, "shake")
    game.apply(B, "shake")
    game.apply(B, "announce", {"value": 65})
    game.apply(C, "check")  # true: Cem loses, Cem opens
    assert (game.turn, game.reveal["loser"]) == (C, C)


def test_an_accuser_who_is_out_passes_the_opening_on():
    game = new_game((6, 5))
    game.score[B] = 1
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 65})
    game.apply(B, "check")  # true: Ben, the accuser, loses his last life
    assert game.out == [B]
    assert game.turn == C


def test_a_whole_game_to_the_last_player_with_lives():
    game = new_game(*[(3, 1)] * 40, lives=3)
    while not game.over:
        game.apply(game.turn, "shake")
        game.apply(game.turn, "announce", {"value": 31})
        game.apply(game.turn, "check")  # always true: the accuser pays
    assert sorted(lives(game).values()) == [0, 0, lives(game)[game.winner]]
    assert lives(game)[game.winner] > 0
