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
    # "Cheat! ... Ben" (tones) comes 1 s into it
    claim_known = CLAIM_AT + CLAIM_S
    cheat_at = claim_known + 1.0
    audio = table((CLAIM_AT, 500, CLAIM_S), (cheat_at, 300, 0.5), (cheat_at + 1.0, 700, 0.4))
    referee = referee_over(tmp_path, audio, follow_voice=True, seconds=2.0)
    voice = referee.voice = CancellingVoice(lambda: referee.now, 2.0, cancelled)
    referee.ears.echo_cancelled = lambda: voice.echo_cancelled  # as LiveReferee sets it up
    heard = calls(referee)
    if cancelled:
        assert [h["intent"] for h in heard] == [{"type": "call", "caller": "Ben"}]
        assert heard[0]["start"] == pytest.approx(cheat_at, abs=0.05)
        assert len(voice.cancelled_at) == 1 and voice.cancelled_at[0] < claim_known + 4.0
    else:
        assert heard == [] and voice.cancelled_at == []
