"""Barge-in: with the referee's own voice echo-cancelled (``Voice.echo_cancelled``) the ears
stay open while it speaks, so a "Cheat!" over its confirmation is heard, at its onset, and
stops what it was still saying; without, the ears stay shut as before."""

from __future__ import annotations

import pytest

from tests.test_live_voice import CLAIM_AT, CLAIM_S, FakeVoice, calls, referee_over
from tests.test_speech_recognizer import table


class CancellingVoice(FakeVoice):
    """Says each sentence in ``seconds``; its echo is cancelled (or not)."""

    def __init__(self, referee_now, seconds: float, cancelled: bool) -> None:
        super().__init__(referee_now, seconds)
        self.echo_cancelled = cancelled
        self.cancelled_at: list[float] = []

    def cancel_pending(self) -> None:
        self.cancelled_at.append(self.now())
        self.ends_at = self.now()


@pytest.mark.parametrize("cancelled", [True, False])
def test_a_call_over_the_referees_voice_is_heard_when_its_echo_is_cancelled(tmp_path, cancelled):
    # the referee takes 2 s a sentence: "Alice: two aces." then "Ben, twos." (4 s); the
    # "Cheat! ... Cara" (tones) comes 1 s into it
    claim_known = CLAIM_AT + CLAIM_S
    cheat_at = claim_known + 1.0
    audio = table((CLAIM_AT, 500, CLAIM_S), (cheat_at, 300, 0.5), (cheat_at + 1.0, 2300, 0.4))
    referee = referee_over(tmp_path, audio, follow_voice=True, seconds=2.0)
    voice = referee.voice = CancellingVoice(lambda: referee.now, 2.0, cancelled)
    referee.ears.echo_cancelled = lambda: voice.echo_cancelled  # as LiveReferee sets it up
    heard = calls(referee)
    if cancelled:
        assert [h["intent"] for h in heard] == [{"type": "call", "caller": "Cara"}]
        assert heard[0]["start"] == pytest.approx(cheat_at, abs=0.05)
        assert len(voice.cancelled_at) == 1 and voice.cancelled_at[0] < claim_known + 4.0
    else:
        assert heard == [] and voice.cancelled_at == []


def _over_voice(tmp_path, *events, total):
    referee = referee_over(tmp_path, table(*events, total=total), follow_voice=True, seconds=2.0)
    voice = referee.voice = CancellingVoice(lambda: referee.now, 2.0, True)
    referee.ears.echo_cancelled = lambda: voice.echo_cancelled
    referee.run()
    referee.session.close()
    taken = [h for h in referee.heard_log if "dropped" not in h]
    dropped = [h for h in referee.heard_log if "dropped" in h]
    return voice.said, taken, dropped


def test_a_claim_heard_over_the_referees_voice_is_its_echo(tmp_path):
    # what is left of the echo of "Alice: two aces. Ben, twos." reads "two twos", a legal
    # claim for Ben: not taken; Ben's own "two twos" once the referee has finished is
    claim_known = CLAIM_AT + CLAIM_S
    said, taken, dropped = _over_voice(
        tmp_path,
        (CLAIM_AT, 500, CLAIM_S),
        (claim_known + 0.6, 2700, 0.5),  # over "Alice: two aces."
        (claim_known + 6.0, 2700, 0.5),  # Ben, once it is quiet
        total=claim_known + 8.0,
    )
    assert [h["intent"]["type"] for h in dropped] == ["claim"]
    assert dropped[0]["start"] == pytest.approx(claim_known + 0.6, abs=0.05)
    assert [s for s in said if s.startswith("Ben: ")] == ["Ben: two twos."]


def test_a_name_the_referee_is_saying_is_not_taken_as_a_callers(tmp_path):
    # a bare "Cheat!" by someone over "Ben, twos.", and "Ben" heard as the referee says it:
    # the call is not credited to Ben (who would pick up the pile for a wrong call)
    claim_known = CLAIM_AT + CLAIM_S
    said, taken, dropped = _over_voice(
        tmp_path,
        (CLAIM_AT, 500, CLAIM_S),
        (claim_known + 2.2, 300, 0.4),  # "cheat" over "Ben, twos."
        (claim_known + 2.9, 700, 0.3),  # "Ben", as the referee says it
        total=claim_known + 6.0,
    )
    assert [h["intent"] for h in dropped] == [{"type": "name", "name": "Ben"}]
    assert [h["intent"] for h in taken if h["intent"]["type"] == "call"] == [
        {"type": "call", "caller": None}
    ]
    assert "Who called?" in said


def test_a_claim_run_on_from_the_voices_echo_is_read_after_the_voice(tmp_path):
    # what is left of the echo opens the gate 0.5 s before the referee's voice ends (a
    # sound no phrase is made of), and Ben's "two twos" follows it without a pause: one
    # utterance, begun over the voice, read "two twos" and dropped for that; read again
    # from the voice's end, the claim is Ben's
    claim_known = CLAIM_AT + CLAIM_S
    voice_ends = claim_known + 4.0  # "Alice: two aces." "Ben, twos.", 2 s each
    said, taken, dropped = _over_voice(
        tmp_path,
        (CLAIM_AT, 500, CLAIM_S),
        (voice_ends - 0.5, 1500, 0.5),  # the echo's residue: chatter, nothing legal
        (voice_ends, 2700, 0.8),  # Ben
        total=voice_ends + 3.0,
    )
    assert [h["intent"]["type"] for h in dropped] == ["claim"]
    assert dropped[0]["start"] == pytest.approx(voice_ends - 0.5, abs=0.05)
    assert [s for s in said if s.startswith("Ben: ")] == ["Ben: two twos."]
    claims = [h for h in taken if h["intent"]["type"] == "claim" and h["start"] > claim_known]
    assert claims and claims[0]["start"] > dropped[0]["start"] + 0.3  # after the voice


class _Gate:
    def __init__(self) -> None:
        self.mutes: list[float] = []

    def mute(self, until: float) -> None:
        self.mutes.append(until)

    def hear_from(self, t: float) -> None:
        pass


def test_what_was_heard_over_the_voice_stays_so_when_the_canceller_falters_after():
    # a room game: the ears were open over "Cara: two sevens." "Dev, eights."; its residue
    # read "two eights" was weighed once the canceller's measure had dropped, was not taken
    # as heard over the voice, and became Dev's claim
    from referee.live.ears import Ears

    cancelled = [True]
    ears = Ears(_Gate(), follow_voice=True, echo_cancelled=lambda: cancelled[0])
    ears.said(45.7, 2, 43.3, "Cara: two sevens. Dev, eights.")
    assert ears.gate.mutes == []  # open over it
    ears.voice_started(0, 43.3, "Cara: two sevens.")
    ears.voice_started(1, 44.73, "Dev, eights.")
    cancelled[0] = False
    assert ears.over_voice(44.8) == "Dev, eights."
    ears.said(48.6, 1, 45.84, "Dev: two eights.")  # now said with the ears shut
    assert ears.gate.mutes == [48.6]
    ears.voice_started(2, 45.9, "Dev: two eights.")
    assert ears.over_voice(46.0) is None  # nothing is heard over it: shut
