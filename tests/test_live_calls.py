"""The call assembler: every way a call gets its caller, and when it is acted on."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from referee.intents import Intent
from referee.live.calls import (
    NAME_WAIT_MAX_S,
    NAME_WAIT_S,
    NO_CALLER_MIN,
    VOICED_EARLY_MIN,
    CallAssembler,
)
from referee.speech.types import Heard, Utterance


def heard(start: float, end: float, intent: Intent, partial: bool = False, **kw) -> Heard:
    return Heard(Utterance(start, end, "...", 0.9, partial), intent, decided_at=end, **kw)


def call(caller: str | None = None) -> Intent:
    return Intent("call", caller=caller)


def name(who: str) -> Intent:
    return Intent("name", name=who)


CLAIM = Intent("claim", count=2, rank="A")


class Table:
    """The phase of the game as the acted calls move it: a bare call asks "Who called?",
    a call with its caller (or the name that answers) turns the cards over."""

    def __init__(self) -> None:
        self.phase = "play"
        self.acted: list[Heard] = []

    def act(self, items) -> list[tuple[str, str | None, float]]:
        done = []
        for h in items:
            self.acted.append(h)
            if h.intent.type == "call":
                self.phase = "who_called" if h.intent.caller is None else "reveal"
            elif h.intent.type == "name" and self.phase == "who_called":
                self.phase = "reveal"
            caller = h.intent.caller if h.intent.type == "call" else h.intent.name
            done.append((h.intent.type, caller, h.utterance.start))
        return done


@pytest.fixture
def table() -> Table:
    return Table()


@pytest.fixture
def calls(table: Table) -> CallAssembler:
    return CallAssembler(lambda: table.phase)


def test_a_caller_named_in_the_call_is_acted_on_at_once_and_its_final_is_not_a_second_call(
    table, calls
):
    assert table.act(calls.hear(heard(1.0, 1.5, call("Ben"), partial=True))) == [
        ("call", "Ben", 1.0)
    ]
    assert table.act(calls.hear(heard(1.0, 1.7, call("Ben")))) == []  # its final
    assert table.act(calls.wait(5.0, hearing=False)) == []


def test_a_claim_read_early_is_acted_on_at_once_and_its_final_is_not_a_second_claim(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.5, CLAIM, partial=True))) == [("claim", None, 1.0)]
    assert table.act(calls.hear(heard(1.0, 1.7, CLAIM))) == []


def test_while_a_last_play_may_be_called_a_claim_read_early_waits_for_its_final(table):
    """The claim after a player's last cards ends the game: the whole utterance decides it
    (its first tenths under babble were once read as a claim, and were a call)."""
    last = [True]
    calls = CallAssembler(lambda: table.phase, last_play=lambda: last[0])
    assert table.act(calls.hear(heard(1.0, 1.3, CLAIM, partial=True))) == []
    assert table.act(calls.hear(heard(1.0, 2.2, call("Dev")))) == [("call", "Dev", 1.0)]
    assert table.act(calls.hear(heard(4.0, 4.4, CLAIM, partial=True))) == []
    assert table.act(calls.hear(heard(4.0, 4.7, CLAIM))) == [("claim", None, 4.0)]
    last[0] = False
    assert table.act(calls.hear(heard(6.0, 6.4, CLAIM, partial=True))) == [("claim", None, 6.0)]


def test_a_claim_guessed_early_waits_for_its_final(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.5, CLAIM, partial=True, guessed=True))) == []
    assert table.act(calls.hear(heard(1.0, 1.7, CLAIM))) == [("claim", None, 1.0)]


def test_a_bare_partial_waits_for_its_final_then_for_the_name(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.3, call(), partial=True))) == []
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []  # waiting for a name
    assert calls.waiting is not None


def test_a_caller_named_just_after_the_call_within_the_wait(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.wait(1.4 + NAME_WAIT_S / 2, hearing=False)) == []
    # "Cheat! ... Ben": one call by Ben, with the onset of "Cheat!"
    assert table.act(calls.hear(heard(1.8, 2.1, name("Ben")))) == [("call", "Ben", 1.0)]
    assert table.act(calls.wait(9.0, hearing=False)) == []


def test_a_name_said_just_before_a_bare_call_is_its_caller(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.2, name("Ben")))) == [("name", "Ben", 1.0)]
    assert table.act(calls.hear(heard(1.5, 1.8, call()))) == [("call", "Ben", 1.0)]


def test_a_name_read_early_names_the_call_at_once_and_its_final_is_not_a_second_call(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.hear(heard(1.8, 2.0, name("Ben"), partial=True))) == [
        ("call", "Ben", 1.0)
    ]
    assert table.act(calls.hear(heard(1.8, 2.1, name("Ben")))) == []


def test_a_name_read_early_too_far_from_the_call_keeps_it_waiting(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.hear(heard(2.5, 2.7, name("Ben"), partial=True))) == []
    assert calls.waiting is not None


def test_a_claim_read_early_after_a_waiting_call_comes_after_the_call(table, calls):
    """The next player's claim said over a bare call: the call was made first and stands
    (the referee asks "Who called?"); the claim, begun before the question, is not taken for
    the table going on without a caller. One begun after it is."""
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    acted = table.act(calls.hear(heard(1.8, 2.0, CLAIM, partial=True)))
    assert acted == [("call", None, 1.0)]
    assert table.phase == "who_called"
    assert table.act(calls.hear(heard(1.8, 2.4, CLAIM))) == []  # its final
    assert table.act(calls.hear(heard(4.0, 4.6, CLAIM))) == [("claim", None, 4.0)]


def test_without_a_name_the_call_is_acted_on_once_the_wait_runs_out_and_the_caller_is_asked_for(
    table, calls
):
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.wait(1.4 + NAME_WAIT_S - 0.05, hearing=False)) == []
    assert table.act(calls.wait(1.4 + NAME_WAIT_S, hearing=False)) == [("call", None, 1.0)]
    assert table.phase == "who_called"  # the referee asks "Who called?"
    # the answer, said on its own, names the caller
    assert table.act(calls.hear(heard(3.0, 3.3, name("Cara")))) == [("name", "Cara", 3.0)]
    assert table.phase == "reveal"


def test_while_someone_speaks_the_wait_goes_on_up_to_its_limit(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.wait(1.4 + NAME_WAIT_S + 0.5, hearing=True)) == []
    assert table.act(calls.wait(1.4 + NAME_WAIT_MAX_S, hearing=True)) == [("call", None, 1.0)]


def test_a_caller_named_late_after_being_asked_is_taken(table, calls):
    # "Cheat!" (asked "Who called?"), then the same words' reading with the name
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.flush()) == [("call", None, 1.0)]
    assert table.act(calls.hear(heard(1.0, 1.9, call("Ben")))) == [("call", "Ben", 1.0)]


def test_two_callers_a_tenth_of_a_second_apart_the_first_by_onset_is_acted_on_first(table, calls):
    first = table.act(calls.hear(heard(1.0, 1.3, call("Ben"), partial=True)))
    second = table.act(calls.hear(heard(1.1, 1.5, call("Cara"), partial=True)))
    # both are handed on in onset order; the engine answers the second ("Ben called first.")
    assert first + second == [("call", "Ben", 1.0), ("call", "Cara", 1.1)]


def test_a_bare_call_waiting_for_its_name_goes_first_when_another_call_follows(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.3, call()))) == []
    acted = table.act(calls.hear(heard(1.4, 1.8, call("Cara"), partial=True)))
    assert acted[0] == ("call", None, 1.0)  # the first call by onset, its caller asked for
    assert acted[1:] == [("call", "Cara", 1.4)]


def test_a_guessed_early_call_waits_for_the_whole_utterance(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.3, call("Ben"), partial=True, guessed=True))) == []
    assert table.act(calls.hear(heard(1.0, 1.6, call("Ben")))) == [("call", "Ben", 1.0)]


def test_anything_else_said_after_a_waiting_call_comes_after_it(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.3, call()))) == []
    acted = table.act(calls.hear(heard(1.6, 2.0, Intent("command", command="undo"))))
    assert [a[0] for a in acted] == ["call", "command"]


@dataclass(frozen=True)
class SpokenBy(Heard):
    """A Heard that knows its speaker (interface 1: a voice profile is in use)."""

    speaker: str | None = None


def test_a_bare_call_whose_speaker_is_known_is_that_players_call_at_once(table, calls):
    said = SpokenBy(Utterance(1.0, 1.4, "cheat", 0.9), call(), decided_at=1.4, speaker="Cara")
    assert table.act(calls.hear(said)) == [("call", "Cara", 1.0)]
    assert calls.waiting is None


def test_a_call_naming_its_caller_keeps_the_named_caller_whoever_spoke(table, calls):
    said = SpokenBy(Utterance(1.0, 1.4, "cheat ben", 0.9), call("Ben"), speaker="Cara")
    assert table.act(calls.hear(said)) == [("call", "Ben", 1.0)]


def test_the_name_answering_who_called_is_acted_on_when_read_early(table, calls):
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.flush()) == [("call", None, 1.0)]
    assert table.phase == "who_called"
    assert table.act(calls.hear(heard(3.0, 3.3, name("Cara"), partial=True, guessed=True))) == []
    assert table.act(calls.hear(heard(3.0, 3.3, name("Cara"), partial=True))) == [
        ("name", "Cara", 3.0)
    ]
    assert table.act(calls.hear(heard(3.0, 3.5, name("Cara")))) == []  # its final


def test_a_claim_while_asking_who_called_waits_for_its_final(table, calls):
    """A claim then says no one called (the engine drops the call): the first tenths of an
    answer are not to do that, only the whole utterance."""
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.flush()) == [("call", None, 1.0)]
    assert table.phase == "who_called"
    assert table.act(calls.hear(heard(3.0, 3.3, CLAIM, partial=True))) == []
    assert table.act(calls.hear(heard(3.0, 3.6, CLAIM))) == [("claim", None, 3.0)]


def test_a_faint_or_guessed_claim_while_asking_who_called_does_not_drop_the_call(table, calls):
    """Babble after a caller's "Ben." was read "three four" at 0.15: no one called, said the
    referee, and the call was lost. Only a claim whisper read itself, surely, says that."""
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.flush()) == [("call", None, 1.0)]
    faint = Heard(Utterance(3.0, 3.6, "three four", NO_CALLER_MIN - 0.15, False), CLAIM,
                  decided_at=3.6)  # fmt: skip
    assert table.act(calls.hear(faint)) == []
    assert table.act(calls.hear(heard(4.0, 4.6, CLAIM, guessed=True))) == []
    assert table.act(calls.hear(heard(5.0, 5.6, name("Ben")))) == [("name", "Ben", 5.0)]


def test_a_bare_call_said_before_the_referee_asked_who_called_is_not_asked_again(table, calls):
    """Two "bullshit!"s heard late under babble: the first is acted on ("Who called?"), the
    second, begun before the question, is not a second question ("Who called? Say your
    name." 80 ms after it); one begun after it is handed on (the engine asks again)."""
    assert table.act(calls.hear(heard(1.0, 1.4, call()))) == []
    assert table.act(calls.wait(1.4 + NAME_WAIT_S, hearing=False)) == [("call", None, 1.0)]
    assert table.phase == "who_called"
    assert table.act(calls.hear(heard(1.6, 1.95, call()))) == []
    assert table.act(calls.hear(heard(3.0, 3.4, call()))) == [("call", None, 3.0)]


def test_a_bare_call_read_early_whose_speaker_is_known_is_acted_on_at_once(table, calls):
    # the voice credited only on the final waited out the gate's hangover (1.3 s under babble)
    early = SpokenBy(Utterance(1.0, 1.3, "cheat", 0.9, True), call(), decided_at=1.35,
                     speaker="Cara")  # fmt: skip
    assert table.act(calls.hear(early)) == [("call", "Cara", 1.0)]
    final = SpokenBy(Utterance(1.0, 1.4, "cheat", 0.9), call(), decided_at=1.7, speaker="Cara")
    assert table.act(calls.hear(final)) == []  # the same call, not a second one


def test_a_bare_call_guessed_early_waits_for_its_final_even_with_its_speaker(table, calls):
    early = SpokenBy(Utterance(1.0, 1.3, "cheat", 0.9, True), call(), decided_at=1.35,
                     guessed=True, speaker="Cara")  # fmt: skip
    assert table.act(calls.hear(early)) == []
    final = SpokenBy(Utterance(1.0, 1.4, "cheat", 0.9), call(), decided_at=1.7, speaker="Cara")
    assert table.act(calls.hear(final)) == [("call", "Cara", 1.0)]


def test_a_voice_credited_with_an_undone_call_is_doubted_its_next_bare_call_asked(table, calls):
    said = SpokenBy(Utterance(1.0, 1.4, "liar", 0.9), call(), decided_at=1.4, speaker="Nadia")
    assert table.act(calls.hear(said)) == [("call", "Nadia", 1.0)]
    calls.undone(1.0, "Nadia")  # it was Yuki's: the table took it back
    table.phase = "play"
    again = SpokenBy(Utterance(5.0, 5.4, "liar", 0.9), call(), decided_at=5.4, speaker="Nadia")
    assert table.act(calls.hear(again)) == []  # waits for a name, then "Who called?"
    assert table.act(calls.flush()) == [("call", None, 5.0)]


def test_an_undone_call_that_named_its_caller_leaves_the_voice_trusted(table, calls):
    said = SpokenBy(Utterance(1.0, 1.4, "cheat ben", 0.9), call("Ben"), speaker="Cara")
    assert table.act(calls.hear(said)) == [("call", "Ben", 1.0)]
    calls.undone(1.0, "Ben")
    calls.undone(None, None)  # an undone claim or reveal
    assert calls.doubted == set()
    table.phase = "play"
    again = SpokenBy(Utterance(5.0, 5.4, "cheat", 0.9), call(), decided_at=5.4, speaker="Cara")
    assert table.act(calls.hear(again)) == [("call", "Cara", 5.0)]


def test_a_voice_taken_for_the_claimers_own_is_doubted_and_the_call_asked_about(table):
    """No one calls their own play: the voice is wrong, and the call said again would be
    refused again ("Nadia can't call their own play.")."""
    calls = CallAssembler(lambda: table.phase, own_play=lambda who: who == "Nadia")
    said = SpokenBy(Utterance(1.0, 1.4, "liar", 0.9), call(), decided_at=1.4, speaker="Nadia")
    assert table.act(calls.hear(said)) == []
    assert table.act(calls.flush()) == [("call", None, 1.0)]
    assert calls.doubted == {"Nadia"}


def test_a_bare_call_read_early_and_faintly_waits_for_its_final_even_with_its_speaker(table, calls):
    """Rob's "two threes": its first 0.32 s read "cheater" at 0.32, credited to his voice and
    acted on as his call. Read early but faintly, a bare call waits for the whole utterance."""
    early = SpokenBy(Utterance(1.0, 1.3, "cheater", VOICED_EARLY_MIN - 0.08, True), call(),
                     decided_at=1.35, speaker="Rob")  # fmt: skip
    assert table.act(calls.hear(early)) == []
    final = heard(1.0, 1.6, CLAIM)
    assert table.act(calls.hear(final)) == [("claim", None, 1.0)]


def test_the_next_words_read_early_as_a_bare_call_keep_the_call_waiting_for_its_name(table, calls):
    """ "Cheat, ... player four!" in a ringing room: "cheat" read whole at the pause, then
    "play-" read early as "liar" (a bare call of its own onset), then the two read joined as
    Dev's call. The early bare call is no second call yet: the first keeps waiting for its
    name, and "Who called?" is not asked over it. A second caller's bare call, read whole,
    comes after the first, which is asked about."""
    assert table.act(calls.hear(heard(1.0, 1.3, call()))) == []
    assert table.act(calls.hear(heard(1.6, 1.9, call(), partial=True))) == []
    assert calls.waiting is not None
    assert table.act(calls.hear(heard(1.0, 2.4, call("Dev"), partial=True))) == [
        ("call", "Dev", 1.0)
    ]
    other = Table()
    fresh = CallAssembler(lambda: "play")  # the phase held: the second call is still new
    assert other.act(fresh.hear(heard(1.0, 1.3, call()))) == []
    assert other.act(fresh.hear(heard(1.6, 1.9, call(), partial=True))) == []
    acted = other.act(fresh.hear(heard(1.6, 2.0, call())))
    assert acted == [("call", None, 1.0)]  # the first by onset; the second now waits
    assert fresh.waiting is not None and fresh.waiting.utterance.start == 1.6
