"""The classic game, rule by rule (RULES.md, 'Classic game')."""

from __future__ import annotations

import pytest

from referee.game.engine import legal_ranks
from referee.game.rules import rules_from
from tests.game_helpers import cards, kinds, play_ones, session, texts


def test_deal_is_one_at_a_time_from_the_dealers_left():
    s = session(players=("Alice", "Ben", "Cara"))
    assert s.state.hands == [18, 17, 17]
    assert s.state.players[s.state.dealer] == "Cara"
    s5 = session(players=("A", "B", "C", "D", "E"))
    assert s5.state.hands == [11, 11, 10, 10, 10]
    assert sum(s5.state.hands) == 52


def test_two_decks_from_seven_players_by_default_and_as_a_setting():
    seven = session(players=tuple("ABCDEFG"))
    assert sum(seven.state.hands) == 104
    six = session(players=tuple("ABCDEF"))
    assert sum(six.state.hands) == 52
    six_two = session("two_decks_from=6", players=tuple("ABCDEF"))
    assert sum(six_two.state.hands) == 104
    assert rules_from(overrides=["decks=2"]).max_cards_per_play(4) == 8


def test_first_player_claims_aces_then_ranks_ascend_and_wrap():
    s = session()
    assert legal_ranks(s.state) == ("A",)
    said = s.hear("two aces")
    assert texts(said) == ["Alice: two aces.", "Ben, twos."]
    play_ones(s, "23456789", "10", "J", "Q", "K")
    assert legal_ranks(s.state) == ("A",)


def test_wrong_rank_is_refused_without_touching_the_state():
    s = session()
    s.hear("two aces")
    before = s.state.to_dict()
    said = s.hear("three threes")
    assert texts(said) == ["Twos are due, not threes."]
    assert s.state.to_dict() == before


def test_count_limits_one_to_four_per_deck():
    s = session()
    assert texts(s.hear("five aces")) == ["At most 4 cards per play."]
    assert s.state.pile_size == 0
    s.hear("four aces")
    assert s.state.hands[0] == 9


def test_cannot_claim_more_cards_than_in_hand():
    s = session()
    s.state.hands[0] = 3  # a test shortcut: Alice holds three cards
    assert texts(s.hear("four aces")) == ["Alice has only three cards."]
    assert s.state.pile_size == 0


def test_a_caught_lie_gives_the_claimer_the_whole_pile():
    s = session()
    s.hear("two aces")
    s.hear("one two")
    said = s.hear("Ben calls cheat")
    assert "Ben calls cheat on Ben" not in texts(said)[0]
    assert texts(said) == ["Ben can't call their own play."]
    said = s.hear("Alice calls cheat")
    assert texts(said) == ["Alice calls cheat on Ben. Ben, turn the cards over."]
    said = s.see(cards("KH"))
    assert texts(said)[0] == "One king: Ben lied. Ben picks up the pile, three cards."
    assert s.state.hands == [11, 15, 13, 13]
    assert s.state.pile_size == 0
    # the player after the challenged one starts a new pile with the next rank
    assert texts(said)[-1] == "Cara, threes."


def test_an_honest_play_called_gives_the_caller_the_pile():
    s = session()
    s.hear("two aces")
    s.hear("Dev: bullshit")
    said = s.see(cards("AH", "AS"))
    assert texts(said)[0] == "Two aces: Alice told the truth. Dev picks up the pile, two cards."
    assert s.state.hands == [11, 13, 13, 15]
    assert texts(said)[-1] == "Ben, twos."


def test_wrong_count_is_a_lie_in_the_classic_game():
    s = session()
    s.hear("two aces")
    s.hear("cheat Cara")
    said = s.see(cards("AH", "AS", "AD"))
    assert "Alice lied" in texts(said)[0]
    assert s.state.hands[0] == 10 + 3  # she really laid three, and took them back
    assert sum(s.state.hands) + s.state.pile_size == 52


def test_unnamed_call_asks_who_called_and_takes_the_next_name():
    s = session()
    s.hear("two aces")
    assert texts(s.hear("cheat!")) == ["Who called?"]
    assert texts(s.hear("two threes")) == ["Who called? Say your name."]  # not the claim due
    assert kinds(s.hear("Cara")) == ["call"]
    assert s.state.phase == "reveal"


def test_the_next_claim_while_asking_who_called_means_no_one_called():
    """A call may be made until the next player has claimed (RULES.md): a "Who called?"
    nobody answers (the referee heard a call in the room's talk) does not stop the game."""
    s = session()
    s.hear("two aces")
    assert texts(s.hear("cheat!")) == ["Who called?"]
    assert texts(s.hear("two twos")) == ["No one called.", "Ben: two twos.", "Cara, threes."]
    assert s.state.phase == "play" and s.state.caller is None and s.state.challenged is None
    assert s.state.hands[:2] == [11, 11] and s.state.pile_size == 4
    assert s.state.stats["calls_made"] == [0, 0, 0, 0]
    assert kinds(s.hear("undo")) == ["undo", "who_called"]  # back to asking, exactly
    assert kinds(s.hear("Cara")) == ["call"]


def test_a_bare_call_again_while_asking_who_called_is_asked_again():
    s = session()
    s.hear("two aces")
    assert texts(s.hear("cheat")) == ["Who called?"]
    assert texts(s.hear("cheat")) == ["Who called?"]  # not "Someone called first."
    assert s.state.phase == "who_called"
    assert kinds(s.hear("cheat, Cara")) == ["call"]  # named at last: the answer


def test_first_caller_wins_and_later_calls_are_told_so():
    s = session()
    s.hear("two aces")
    s.hear("Ben calls cheat")
    assert texts(s.hear("Cara calls cheat")) == ["Ben called first."]
    assert s.state.caller == 1


def test_the_window_closes_at_the_next_claim():
    s = session()
    s.hear("two aces")
    s.hear("one two")
    s.hear("cheat Dev")
    s.see(cards("2H"))
    assert texts(s.hear("cheat Ben")) == ["There is no claim to call."]


def test_no_call_the_play_stands():
    s = session()
    s.hear("four aces")
    s.hear("one two")
    assert s.state.pile_size == 5
    assert s.state.hands[:2] == [9, 12]


def test_strict_game_has_no_passing():
    s = session()
    assert texts(s.hear("pass")) == ["No passing: Alice, you must play aces."]


def test_impossible_claim_is_said_and_accepted():
    s = session("four_of_a_kind=on")
    s.see(cards("KH", "KS", "KD", "KC"))  # Alice lays four kings out of the game
    assert s.state.out_of_play == 4
    play_ones(s, "A23456789", "10", "J", "Q")
    said = s.hear("one king")
    assert "One king? Four kings are already out of play." in texts(said)


def test_going_out_wins_once_the_last_play_survives():
    s = session(players=("Alice", "Ben"))
    s.state.hands[0] = 1  # a test shortcut: Alice holds one card
    s.match.history[-1] = s.state
    said = s.hear("one ace")
    assert "Alice has no cards left. Call now if you doubt it." in texts(said)
    assert s.state.winner is None
    said = s.hear("one two")  # Ben plays on: nobody called
    assert "Alice is out. Alice wins game 1." in texts(said)
    assert s.state.phase == "over"
    assert s.state.wins == [1, 0]
    assert texts(s.hear("one three"))[0].startswith("Game 1 is over")


def test_going_out_on_a_lie_picks_up_and_plays_on():
    s = session(players=("Alice", "Ben", "Cara"))
    s.state.hands[0] = 1
    s.hear("one ace")
    s.hear("Ben calls cheat")
    said = s.see(cards("7H"))
    assert "Alice picks up the pile, one card." in texts(said)[0]
    assert s.state.winner is None and s.state.hands[0] == 1
    assert s.state.pending_out is None


def test_going_out_called_and_honest_wins():
    s = session(players=("Alice", "Ben", "Cara"))
    s.state.hands[0] = 2
    s.hear("two aces")
    s.hear("cheat Cara")
    said = s.see(cards("AH", "AC"))
    assert texts(said)[1] == "Alice is out. Alice wins game 1."
    assert s.state.records[-1].winner == "Alice"
    assert s.state.records[-1].places[0] == "Alice"


def test_new_game_passes_the_deal_left():
    s = session()
    s.state.hands[0] = 1
    s.hear("one ace")
    said = s.hear("new game")
    assert "Alice wins game 1." in texts(said)[0]
    assert s.state.game == 2
    assert s.state.players[s.state.dealer] == "Alice"
    assert texts(said)[-1] == "Ben, aces."
    assert s.state.hands == [13, 13, 13, 13]


def test_repeat_whose_turn_how_many_and_score_change_nothing():
    s = session()
    s.hear("two aces")
    before = s.state.to_dict()
    assert texts(s.hear("whose turn is it")) == ["Ben, twos."]
    assert texts(s.hear("how many cards")) == [
        "Alice 11, Ben 13, Cara 13, Dev 13. The pile has two cards."
    ]
    assert texts(s.hear("repeat")) == ["Alice 11, Ben 13, Cara 13, Dev 13. The pile has two cards."]
    assert "Games won" in texts(s.hear("what's the score"))[0]
    assert s.state.to_dict() == before


def test_what_is_said_again_is_marked_as_said_again_not_as_a_new_claim():
    s = session()
    claimed = [a.to_dict() for a in s.hear("two aces")]
    again = [a.to_dict() for a in s.hear("repeat")]
    assert [a["kind"] for a in claimed] == ["claim", "turn"]
    assert [a["kind"] for a in again] == ["repeat", "repeat"]
    assert again == [{**a, "kind": "repeat", "repeats": a["kind"]} for a in claimed]


@pytest.mark.parametrize("players", [("Solo",), tuple("ABCDEFGHIJK"), ("Al", "al")])
def test_bad_seatings_are_refused(players):
    with pytest.raises(ValueError):
        session(players=players)


def test_more_cards_seen_than_a_hand_could_hold_never_makes_a_hand_negative():
    s = session()
    s.state.hands[0] = 1
    s.hear("one ace")
    s.hear("cheat Ben")
    s.see(cards("AH", "AS", "AD"))
    assert min(s.state.hands) >= 0
    assert sum(s.state.hands) + s.state.pile_size == 52 - 12
