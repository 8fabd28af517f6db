"""Mäxchen games as transcripts with fixed dice (docs/rules.md §2 and §5)."""

from maxchen import fair
from maxchen.dice import FixedDice
from maxchen.rulesets.maexchen.game import MaexchenGame

from .conftest import refused

A, B, C = "ann", "ben", "cem"


def new_game(*rolls, players=(A, B, C), **options):
    return MaexchenGame(list(players), options, dice=FixedDice(rolls))


def points(game):
    return {p: game.score[p] for p in game.players}


def test_a_true_announcement_checked_costs_the_checker_one_point():
    game = new_game((6, 5))
    # Ann opens: she has nothing to answer, so she shakes.
    assert game.allowed(A) == ["shake"]
    assert game.allowed(B) == []
    game.apply(A, "shake")
    assert game.view_for(A)["dice"] == [6, 5]
    assert game.view_for(B)["dice"] is None
    game.apply(A, "announce", {"value": 65})
    # Ben decides before rolling.
    assert game.allowed(B) == ["believe", "check"]
    game.apply(B, "check")
    assert game.reveal["dice"] == [6, 5]
    assert game.reveal["loser"] == B
    assert points(game) == {A: 0, B: 1, C: 0}
    # Ben was penalised, so Ben opens the next round.
    assert (game.turn, game.step, game.announcement) == (B, "shake", None)


def test_a_lie_checked_costs_the_announcer_one_point():
    game = new_game((4, 3))
    game.apply(A, "shake")
    committed = game.view_for(B)["fair"]
    game.apply(A, "announce", {"value": "6-2"})
    game.apply(B, "check")
    # The check opens the cup with the server seed of the commit everyone got before the shake.
    record = game.reveal["fair"]
    assert record["commit"] == committed["commit"] and fair.commit_of(record["server_seed"]) == record["commit"]
    assert game.reveal == {
        "kind": "check",
        "round": 1,
        "announcer": A,
        "checker": B,
        "value": 62,
        "before": None,  # the round's first announcement: it had nothing to beat
        "dice": [4, 3],
        "fair": record,
        "salt": None,
        "commitment": None,
        "actual": 43,
        "loser": A,
        "penalty": 1,
    }
    assert points(game) == {A: 1, B: 0, C: 0}
    assert game.turn == A


def test_a_real_maexchen_checked_costs_the_checker_two():
    game = new_game((5, 5), (1, 2))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 55})
    # Ben believes: Ann's cup leaves the table unseen.
    game.apply(B, "believe")
    assert game.view_for(A)["dice"] is None
    game.apply(B, "shake")
    assert game.view_for(B)["dice"] == [2, 1]
    game.apply(B, "announce", {"value": "Mäxchen"})
    # After 21 nothing is higher: Cem may check or accept, not believe.
    assert game.allowed(C) == ["check", "accept"]
    game.apply(C, "check")
    assert (game.reveal["loser"], game.reveal["penalty"]) == (C, 2)
    assert points(game) == {A: 0, B: 0, C: 2}


def test_a_fake_maexchen_checked_costs_the_announcer_two():
    game = new_game((6, 6))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 21})
    game.apply(B, "check")
    assert (game.reveal["loser"], game.reveal["penalty"]) == (A, 2)
    assert points(game) == {A: 2, B: 0, C: 0}


def test_accepting_maexchen_costs_one_point_and_reveals_nothing():
    game = new_game((3, 1))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 21})
    game.apply(B, "accept")
    assert game.reveal["kind"] == "accept"
    assert game.reveal["dice"] is None
    assert game.reveal["actual"] is None
    assert (game.reveal["loser"], game.reveal["penalty"]) == (B, 1)
    assert points(game) == {A: 0, B: 1, C: 0}
    assert game.turn == B
    # The hidden dice are gone with the round, for everyone.
    assert all(game.view_for(p)["dice"] is None for p in (A, B, C))


def test_accept_is_only_offered_after_maexchen():
    game = new_game((6, 6))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 66})
    refused(game, B, "accept", "not_allowed")


def test_an_announcement_must_be_higher():
    game = new_game((6, 6), (3, 1))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 44})
    game.apply(B, "believe")
    game.apply(B, "shake")
    refused(game, B, "announce", "not_higher", value=44)
    refused(game, B, "announce", "not_higher", value=65)
    refused(game, B, "announce", "bad_value", value=12)
    refused(game, B, "announce", "bad_value")
    game.apply(B, "announce", {"value": 55})  # a lie: Ben rolled 31
    assert game.announcement == {"player": B, "value": 55}
    assert game.history == [{"player": A, "value": 44}, {"player": B, "value": 55}]


def test_turn_order_is_enforced():
    game = new_game((6, 5))
    refused(game, B, "shake", "not_your_turn")
    refused(game, A, "check", "not_allowed")
    refused(game, A, "announce", "not_allowed", value=65)
    game.apply(A, "shake")
    refused(game, A, "shake", "not_allowed")
    game.apply(A, "announce", {"value": 65})
    refused(game, A, "check", "not_your_turn")
    refused(game, B, "shake", "not_allowed")  # believe or check first
    refused(game, B, "announce", "not_allowed", value=66)


def test_elimination_at_five_and_the_next_opener_skips_the_out_player():
    game = new_game((3, 1))
    game.score[B] = 4
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 31})
    game.apply(B, "check")  # 31 is 31: Ben loses his fifth point
    assert game.score[B] == 5
    assert game.out == [B]
    assert game.player_fields(B) == {"out": True, "points": 5}
    # Ben would open, but is out: the next player still in, Cem, opens.
    assert game.turn == C
    assert game.next_after(A) == C


def test_a_lost_maexchen_check_can_push_past_five():
    game = new_game((2, 1))
    game.score[B] = 4
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 21})
    game.apply(B, "check")  # a real Mäxchen: Ben pays 2
    assert game.score[B] == 6
    assert game.out == [B]
    assert game.turn == C


def test_the_last_player_in_wins():
    game = new_game((4, 1), players=(A, B))
    game.score[A] = 4
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 65})
    game.apply(B, "check")  # 41 is lower than 65: Ann lied
    assert game.over
    assert game.winner == B
    assert game.turn is None
    assert game.allowed(A) == game.allowed(B) == []
    assert game.view_for(A)["turn"] is None
    refused(game, B, "shake", "not_allowed")


def test_a_shorter_game_out_at_three_ends_when_a_player_reaches_three_points():
    # docs/rules.md §2, "A shorter game": the host chose out at 3; every penalty is as in a game of 5.
    game = new_game((4, 3), (2, 1), (3, 2), players=(A, B), out_at=3)
    assert game.options == {"out_at": 3, "hint": "off"}
    assert game.player_fields(A) == {"out": False, "points": 0}
    # Ann lies 62 on 43; Ben checks: Ann takes 1 point and opens again.
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 62})
    game.apply(B, "check")
    assert points(game) == {A: 1, B: 0} and game.turn == A
    # Ann rolls a real Mäxchen; Ben checks it and pays 2: on 2 points he is still in.
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 21})
    game.apply(B, "check")
    assert points(game) == {A: 1, B: 2} and not game.over and game.out == []
    # Ben opens and lies 41 on 32; Ann checks: his third point puts him out, and Ann has won.
    game.apply(B, "shake")
    game.apply(B, "announce", {"value": 41})
    game.apply(A, "check")
    assert points(game) == {A: 1, B: 3}
    assert game.over and game.out == [B] and game.winner == A
    assert game.player_fields(B) == {"out": True, "points": 3}
    assert game.view_for(None)["ranking"] == [A, B]


def test_without_the_hosts_choice_three_points_are_not_out():
    game = new_game((3, 2), players=(A, B))
    assert game.options["out_at"] == 5
    game.score[B] = 2
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 32})
    game.apply(B, "check")  # 32 is 32: Ben's third point
    assert game.score[B] == 3 and game.out == [] and not game.over


def test_a_game_saved_before_the_host_chose_its_length_is_out_at_five():
    game = new_game((4, 1), players=(A, B))
    state = game.to_dict()
    state["options"] = {"hint": "off"}
    again = MaexchenGame.from_dict(state, FixedDice([(4, 1)]))
    assert again.options == {"out_at": 5, "hint": "off"}
    again.score[A] = 4
    again.apply(A, "shake")
    again.apply(A, "announce", {"value": 65})
    again.apply(B, "check")  # 41 is lower than 65: Ann's fifth point
    assert again.winner == B


def test_a_whole_game_to_the_end():
    game = new_game(*[(4, 2)] * 20)
    rounds = 0
    while not game.over:
        opener = game.turn
        game.apply(opener, "shake")
        game.apply(opener, "announce", {"value": 42})
        game.apply(game.turn, "check")  # truth: the checker loses
        rounds += 1
        assert rounds < 20
    # Each checker lost 1 point a round; the first to 5 went out, and so on.
    assert game.winner in (A, B, C)
    assert sum(1 for p in game.players if game.score[p] >= 5) == 2


def test_leaving_mid_round_voids_the_round():
    game = new_game((6, 1), (5, 5))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 61})
    game.apply(B, "believe")
    game.apply(B, "shake")
    before = points(game)
    # Cem leaves while Ben holds the cup: nobody is penalised, the dice are
    # discarded, and Ben (who had the turn) opens a fresh round.
    game.remove(C)
    assert points(game) == before
    assert game.out == [C]
    assert (game.turn, game.step, game.announcement, game.cup) == (B, "shake", None, None)
    assert game.round == 2


def test_the_player_with_the_turn_leaving_passes_the_new_round_on():
    game = new_game((6, 1))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 61})
    game.remove(B)  # Ben had to decide
    assert (game.turn, game.step) == (C, "shake")


def test_leaving_leaves_one_winner():
    game = new_game((6, 1), players=(A, B))
    game.remove(A)
    assert game.winner == B
    assert game.over


def test_view_shows_own_dice_until_the_next_player_believes():
    game = new_game((6, 3), (2, 2))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 63})
    assert game.view_for(A)["dice"] == [6, 3]  # still under Ann's cup
    assert game.view_for(B)["dice"] is None
    assert game.view_for(None)["dice"] is None
    game.apply(B, "believe")
    assert all(game.view_for(p)["dice"] is None for p in (A, B, C))


def test_state_round_trips_through_plain_data():
    game = new_game((6, 3), (2, 2))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 63})
    copy = MaexchenGame.from_dict(game.to_dict(), FixedDice([(2, 2)]))
    assert copy.to_dict() == game.to_dict()
    copy.apply(B, "check")
    assert copy.reveal["loser"] == B


def test_the_games_numbers_count_checks_and_count_lies_that_got_through_only_at_the_end():
    # Two players: Ann lies 65 on 31 and Ben believes; Ben lies 66 on 42 and Ann checks (caught);
    # from then on everyone tells the truth and is checked, until someone has five points.
    game = new_game((3, 1), (4, 2), *([(6, 5)] * 20), players=(A, B))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 65})
    game.apply(B, "believe")
    game.apply(B, "shake")
    game.apply(B, "announce", {"value": 66})
    assert game.tally_view() is None  # while the game runs, nothing: the believed lie would tell on Ann
    assert "tally" in game.view_for(A) and game.view_for(A)["tally"] is None
    game.apply(A, "check")
    while not game.over:
        game.apply(game.turn, "shake")
        game.apply(game.turn, "announce", {"value": 65})
        game.apply(game.turn, "check")
    tally = game.view_for(A)["tally"]
    assert tally["checks"] == tally["rounds"] == game.round > 1 and tally["caught"] == 1
    assert tally["unseen_lies"] == 1
    assert set(tally) == {"rounds", "checks", "caught", "unseen_lies"}  # never whose lie, nor the dice


def test_a_round_left_void_is_not_counted_as_played():
    # Ann announces; Cem leaves before Ben answers: the round starts again (round 2); then Ben and Ann play
    # to the end. The game's numbers count the rounds played to their end, not the void one.
    game = new_game((3, 1), *([(6, 5)] * 20))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 31})
    game.remove(C)
    assert game.voided == {"player": C, "round": 2}
    while not game.over:
        game.apply(game.turn, "shake")
        game.apply(game.turn, "announce", {"value": 65})
        game.apply(game.turn, "check")
    assert game.view_for(A)["tally"]["rounds"] == game.round - 1 == game.tally["checks"]


def test_a_game_saved_before_void_rounds_were_counted_counts_as_it_did():
    game = new_game((6, 5))
    game.end_now()
    state = game.to_dict()
    del state["tally"]["void"]
    assert MaexchenGame.from_dict(state, FixedDice([])).rounds_played() == 0 == game.rounds_played()


def test_a_game_saved_before_it_kept_numbers_loads_with_fresh_ones():
    game = new_game((6, 5))
    state = game.to_dict()
    del state["tally"]
    again = MaexchenGame.from_dict(state, FixedDice([]))
    assert again.tally == MaexchenGame.new_tally()


def test_a_player_gone_mid_round_is_named_while_the_round_starts_again():
    game = new_game((6, 5), (3, 1), (4, 2))
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 65})
    game.remove(C)  # Cem goes mid-round: the round is void, Ben still has the turn
    assert game.view_for(A)["voided"] == {"player": C, "round": 2}
    assert game.turn == B and game.step == "shake"
    game.apply(B, "shake")
    game.apply(B, "announce", {"value": 31})
    game.apply(A, "check")  # the round ends: the note with it
    assert game.view_for(A)["voided"] is None


def test_the_ranking_puts_the_last_one_out_second():
    game = new_game((3, 1), (3, 1), (6, 5))
    game.score.update({A: 4, C: 4})  # late in the game: Ann and Cem one point from out
    assert game.view_for(A)["ranking"] is None  # nothing to rank while it runs
    # Ann lies with 65 and Ben checks: Ann is out first.
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 65})
    game.apply(B, "check")
    # Ben opens (Ann is out), lies with 43; Cem checks: Ben takes a point.
    game.apply(B, "shake")
    game.apply(B, "announce", {"value": 43})
    game.apply(C, "check")
    # Ben opens again with a true 65; Cem checks and goes out on 5 points: Ben wins.
    game.apply(B, "shake")
    game.apply(B, "announce", {"value": 65})
    game.apply(C, "check")
    assert game.winner == B
    # Ann has fewer points than Cem, but Cem lasted longer: Cem is second.
    assert points(game) == {A: 5, B: 1, C: 5}
    assert game.view_for(None)["ranking"] == [B, C, A]


def test_who_left_ranks_by_when_they_left():
    game = new_game()
    game.remove(C)  # Cem leaves first, then Ann: Ben wins by default
    game.remove(A)
    assert game.view_for(None)["ranking"] == [B, A, C]


def test_every_cup_leaves_its_roll_in_the_log_with_who_answered_it_and_how():
    game = new_game((4, 1), (6, 5), (2, 1), (3, 3))

    def logged():
        return [
            (r["player"], r["dice"], r["announced"], r["answerer"], r["outcome"], r["found"], r["public"], r["round"])
            for r in game.drain_rolls()
        ]

    # Ann's 4-1 behind a "62": Ben believes, and nobody sees it.
    game.apply(A, "shake")
    game.apply(A, "announce", {"value": 62})
    assert logged() == []  # on the table still
    game.apply(B, "believe")
    assert logged() == [(A, [4, 1], 62, B, "believed", None, False, 1)]
    # Ben's 6-5 behind a "63": Cem checks and finds it true; all see it.
    game.apply(B, "shake")
    game.apply(B, "announce", {"value": 63})
    game.apply(C, "check")
    assert logged() == [(B, [6, 5], 63, C, "true", True, True, 1)]
    # Cem (checker, lost) opens: a real Mäxchen, accepted unseen by Ann.
    game.apply(C, "shake")
    game.apply(C, "announce", {"value": 21})
    game.apply(A, "accept")
    assert logged() == [(C, [2, 1], 21, A, "accepted", None, False, 2)]
    # Ann shakes a 3-3 and leaves before announcing: the round is void, the cup unseen, unclaimed.
    game.apply(A, "shake")
    game.remove(A)
    assert logged() == [(A, [3, 3], None, None, "void", None, False, 3)]
