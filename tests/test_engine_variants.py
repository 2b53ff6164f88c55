"""Every house variant of RULES.md, one setting at a time."""

from __future__ import annotations

import pytest

from referee.game.engine import legal_ranks
from referee.game.rules import rules_from
from tests.game_helpers import cards, kinds, session, texts


def test_presets():
    assert rules_from("classic") == rules_from()
    british = rules_from("british")
    assert (british.rank_order, british.passing) == ("updown_same", "always")
    german = rules_from("german")
    assert (german.rank_order, german.count_is_honest) == ("rounds", True)
    assert rules_from("open").open_play
    with pytest.raises(ValueError, match="unknown rules preset"):
        rules_from("poker")
    with pytest.raises(ValueError, match="unknown setting"):
        rules_from(overrides=["colour=red"])
    with pytest.raises(ValueError, match="rank_order must be one of"):
        rules_from(overrides=["rank_order=sideways"])


def test_updown_allows_one_up_or_one_down():
    s = session("rank_order=updown")
    s.hear("one ace")
    assert set(legal_ranks(s.state)) == {"K", "2"}
    assert texts(s.hear("one ace")) == ["Kings or twos are due, not aces."]
    s.hear("one king")
    assert set(legal_ranks(s.state)) == {"Q", "A"}


def test_updown_same_allows_the_same_rank_too():
    s = session("rank_order=updown_same")
    s.hear("one ace")
    assert set(legal_ranks(s.state)) == {"K", "A", "2"}
    assert kinds(s.hear("two aces"))[0] == "claim"


def test_free_choice_of_any_rank():
    s = session("rank_order=free")
    assert len(legal_ranks(s.state)) == 13
    s.hear("two sevens")
    s.hear("one queen")
    assert s.state.pile_size == 3


def test_passing_always_moves_the_rank_on_without_the_passer():
    s = session("passing=always")
    s.hear("one ace")
    assert texts(s.hear("pass")) == ["Ben passes.", "Cara, threes."]
    s.hear("one three")
    assert legal_ranks(s.state) == ("4",)


def test_passing_only_when_every_card_of_the_rank_has_been_shown():
    s = session("passing=exhausted", "four_of_a_kind=on")
    assert "can pass only once every ace has been shown" in texts(s.hear("pass"))[0]
    s.see(cards("AH", "AS", "AD", "AC"))
    assert texts(s.hear("pass"))[0] == "Alice passes."


def test_one_card_per_play():
    s = session("cards_per_play=one")
    assert texts(s.hear("two aces")) == ["One card per play."]
    assert kinds(s.hear("one ace"))[0] == "claim"


def test_escalating_plays_and_back_to_one_after_a_challenge():
    s = session("cards_per_play=escalating")
    s.hear("one ace")
    assert texts(s.hear("one two")) == ["This play must hold at least 2 cards."]
    s.hear("two twos")
    s.hear("three threes")
    s.hear("cheat Alice")
    s.see(cards("3H", "3S", "3D"))
    assert kinds(s.hear("one four")) == ["claim", "turn"]


def test_max_cards_setting():
    s = session("max_cards=2")
    assert texts(s.hear("three aces")) == ["At most 2 cards per play."]


def test_count_is_honest_only_the_rank_can_lie():
    s = session("count_is_honest=true")
    s.hear("two aces")
    s.hear("cheat Ben")
    said = s.see(cards("AH"))  # the camera saw one of the two: only ranks count
    assert "Alice told the truth" in texts(said)[0]
    assert sum(s.state.hands) + s.state.pile_size + s.state.out_of_play == 52


def test_extended_window_can_call_the_claim_before_last():
    s = session("challenge_window=extended")
    s.hear("two aces")
    s.hear("one two")
    said = s.hear("Dev calls cheat on Alice")
    assert texts(said) == ["Dev calls cheat on Alice. Alice, turn the cards over."]
    said = s.see(cards("AH", "9C"))
    assert "Alice picks up the pile, three cards." in texts(said)[0]
    assert texts(said)[-1] == "Ben, twos."


def test_classic_window_refuses_the_claim_before_last():
    s = session()
    s.hear("two aces")
    s.hear("one two")
    assert texts(s.hear("Dev calls cheat on Alice")) == ["Alice's play can't be called now."]


def test_jokers_are_wild():
    s = session("jokers=2")
    assert sum(s.state.hands) == 54
    s.hear("two aces")
    s.hear("cheat Ben")
    said = s.see(cards("AH", "JK"))
    assert "Alice told the truth" in texts(said)[0]


def test_four_of_a_kind_goes_out_of_the_game():
    s = session("four_of_a_kind=on")
    said = s.see(cards("7H", "7S", "7D", "7C"))
    assert texts(said) == ["Alice lays four sevens out of the game."]
    assert s.state.out_of_play == 4 and s.state.hands[0] == 9
    assert texts(s.see(cards("7H", "7S", "8D", "7C"))) == [
        "Only all four cards of one rank can go out."
    ]


def test_four_of_a_kind_off_refuses_face_up_cards():
    s = session()
    assert texts(s.see(cards("7H", "7S", "7D", "7C"))) == ["No cards were asked for."]


def test_pairs_at_start():
    s = session("pairs_at_start=on")
    assert s.state.phase == "pairs"
    assert texts(s.see(cards("2H", "2S", "5C"))) == [
        "Only pairs go out, Alice: two or four of a kind."
    ]
    assert texts(s.see(cards("2H", "2S", "9C", "9D"))) == [
        "Alice lays out four cards.",
        "Ben, your pairs.",
    ]
    assert kinds(s.hear("pass")) == ["pairs"]
    s.see(cards("KH", "KS"))
    said = s.see([])
    assert texts(said)[-1] == "Alice, aces."
    assert s.state.hands == [9, 13, 11, 13]
    assert s.state.out_of_play == 6 and sorted(s.state.seen_out) == ["2", "2", "9", "9", "K", "K"]


def test_open_play_reveals_every_play():
    s = session(preset="open")
    said = s.hear("two aces")
    assert texts(said)[-1] == "Alice, turn the cards over."
    assert texts(s.hear("one two")) == ["Alice, turn the cards over first."]
    said = s.see(cards("AH", "AD"))
    assert texts(said) == ["Two aces: Alice told the truth.", "Ben, twos."]
    s.hear("one two")
    said = s.see(cards("5H"))
    assert texts(said)[0] == "One five: Ben lied. Ben picks up the pile, three cards."
    assert s.state.records == [] and s.state.hands[1] == 15


def test_verdict_by_voice_when_the_camera_fails():
    s = session()
    s.hear("two aces")
    s.hear("cheat Ben")
    assert "Spread them out" in texts(s.see([]))[0]
    said = s.hear("it was a lie")
    assert texts(said)[0] == "Alice lied. Alice picks up the pile, two cards."


def test_timer_warns_then_times_out_a_player_who_must_play():
    s = session("timer=30")
    s.hear("two aces", t=0.0)
    from referee.game.events import Tick

    assert texts(s.submit(Tick(t=21.0))) == ["Ben, nine seconds."]
    said = s.submit(Tick(t=31.0))
    assert texts(said) == ["Ben, time's up: lay your lowest card face up."]
    said = s.see(cards("9S"), t=33.0)
    assert texts(said) == ["Ben lays nine face up.", "Cara, threes."]
    assert s.state.pile_size == 3 and s.state.callable == []


def test_a_joker_laid_face_up_on_time_out_counts_as_a_rank_the_player_could_claim():
    """Up-or-down: Ben, timed out with kings or twos due, lays a joker face up; the next turn
    goes on from a rank (the engine raised on the joker's own, found by hypothesis)."""
    from referee.game.events import Tick

    s = session("rank_order=updown", "timer=15", "jokers=2", players=("Alice", "Ben", "Cara"))
    s.hear("one ace", t=0.0)
    assert texts(s.submit(Tick(t=16.0))) == ["Ben, time's up: lay your lowest card face up."]
    said = s.see(cards("JK"), t=17.0)
    assert kinds(said)[0] == "forced_play" and s.state.rank_ref in ("K", "2")
    assert texts(said)[-1] in ("Cara, queens or aces.", "Cara, aces or threes.")


def test_timer_passes_a_player_who_may_pass():
    from referee.game.events import Tick

    s = session("timer=15", "passing=always")
    s.hear("one ace", t=0.0)
    said = s.submit(Tick(t=16.0))
    assert texts(said) == ["Ben, time's up.", "Ben passes.", "Cara, threes."]


def test_play_on_for_minor_places():
    s = session("play_on=on", players=("Alice", "Ben", "Cara"))
    s.state.hands[0] = 1
    s.hear("one ace")
    said = s.hear("one two")
    assert "Alice is out. Alice wins game 1." in texts(said)
    assert s.state.phase == "play"
    s.state.hands[1] = 0  # Ben's last card went down with "one two"
    s.state.pending_out = 1
    said = s.hear("one three")
    assert "Ben is out, place two." in texts(said)
    assert s.state.phase == "over"
    assert s.state.records[-1].places == ("Alice", "Ben", "Cara")


class TestGermanRounds:
    def test_starter_names_any_rank_and_others_add_the_same(self):
        s = session(preset="german")
        assert len(legal_ranks(s.state)) == 13
        assert texts(s.hear("pass")) == ["Alice starts the round and can't pass."]
        s.hear("two queens")
        assert texts(s.hear("one king")) == ["Queens are due, not kings."]
        s.hear("one queen")
        assert s.state.pile_size == 3

    def test_everyone_passes_then_the_last_player_decides(self):
        s = session(preset="german")
        s.hear("two queens")
        s.hear("pass")
        s.hear("pass")
        said = s.hear("pass")
        assert texts(said)[-1] == "Everyone passed. Alice, add more queens or say new round."
        assert texts(s.hear("pass"))[0].startswith("Alice, add more")
        said = s.hear("new round")
        assert texts(said)[0] == "Alice puts the pile out of the game, two cards."
        assert s.state.out_of_play == 2 and s.state.pile_size == 0
        assert len(legal_ranks(s.state)) == 13 and s.state.turn == 0

    def test_a_passed_play_can_still_be_called_until_someone_adds(self):
        s = session(preset="german")
        s.hear("two queens")
        s.hear("pass")
        said = s.hear("Cara calls cheat")
        assert kinds(said) == ["call"]
        said = s.see(cards("QH", "3C"))
        # Alice lied: she takes the pile, the caller (who did not take it) starts the next round
        assert texts(said)[-1] == "Cara, any rank."

    def test_after_an_honest_play_the_claimer_starts(self):
        s = session(preset="german")
        s.hear("two queens")
        s.hear("Ben calls cheat")
        said = s.see(cards("QH", "QC"))
        assert texts(said)[-1] == "Alice, any rank."
        assert s.state.hands[1] == 15

    def test_new_round_only_after_everyone_passed(self):
        s = session(preset="german")
        s.hear("two queens")
        assert texts(s.hear("new round")) == [
            "A new round starts only when everyone else has passed."
        ]
