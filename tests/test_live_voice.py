"""The ears follow the referee's own voice: open as soon as it has finished speaking (not
when the estimate of its sentences runs out), shut for as long as it still speaks."""

from __future__ import annotations

import time

import pytest

from referee.game.rules import Rules
from referee.live.loop import ECHO_TAIL_S, LiveReferee
from referee.session import Session
from referee.speech.audio import ArraySource
from referee.voice import Voice
from referee.voice.tts import NO_SPEAKERS, speech_seconds
from tests.test_speech_recognizer import recognizer, table

CLAIM_AT, CLAIM_S = 7.0, 0.6  # a 500 Hz tone: "two aces", by Alice, who starts (after the
# opening words, "Game 1. Cara deals ...", estimated to end by 5.5 s)


class FakeVoice:
    """Says each sentence in ``seconds``, on a wall clock that is the audio's own time."""

    def __init__(self, referee_now, seconds: float) -> None:
        self.now, self.seconds = referee_now, seconds
        self.ends_at = self.finished_at = 0.0
        self.said: list[str] = []

    def say(self, text: str) -> float:
        self.said.append(text)
        self.ends_at = max(self.ends_at, self.now()) + self.seconds
        return speech_seconds(text)

    def speaking(self) -> bool | None:
        if self.now() < self.ends_at:
            return True
        self.finished_at = self.ends_at
        return False


def referee_over(tmp_path, audio, *, follow_voice: bool, seconds: float) -> LiveReferee:
    session = Session.start(["Alice", "Ben", "Cara"], Rules(), tmp_path / "journal.jsonl")
    referee = LiveReferee(session, recognizer(), ArraySource(audio), follow_voice=follow_voice)
    referee.clock = lambda: referee.now
    referee.voice = FakeVoice(lambda: referee.now, seconds)
    return referee


def calls(referee: LiveReferee) -> list[dict]:
    referee.run()
    referee.session.close()
    return [h for h in referee.heard_log if h["intent"]["type"] == "call"]


def confirmation_estimate() -> float:
    """How long "Alice: two aces." and "Ben, twos." are estimated to take."""
    return speech_seconds("Alice: two aces.") + speech_seconds("Ben, twos.")


@pytest.mark.parametrize("follow_voice", [True, False])
def test_a_call_right_after_the_referee_has_spoken_is_heard(tmp_path, follow_voice):
    # the confirmation really takes 2 x 0.5 s; "Cheat!" (300 Hz) comes 0.4 s after it, while
    # the estimate (about 2.7 s) would still have the ears shut
    claim_known = CLAIM_AT + CLAIM_S  # about: the claim is read once it has ended
    cheat_at = claim_known + 2 * 0.5 + 0.4 + 0.2
    assert cheat_at + 0.5 < claim_known + confirmation_estimate()
    audio = table((CLAIM_AT, 500, CLAIM_S), (cheat_at, 300, 0.5), (cheat_at + 1.0, 700, 0.4))
    referee = referee_over(tmp_path, audio, follow_voice=follow_voice, seconds=0.5)
    heard = calls(referee)
    assert "Alice: two aces." in referee.voice.said
    if follow_voice:
        assert [h["intent"] for h in heard] == [{"type": "call", "caller": "Ben"}]
        assert heard[0]["start"] == pytest.approx(cheat_at, abs=0.05)
    else:  # the estimate alone: the ears were shut
        assert heard == []


@pytest.mark.parametrize("follow_voice", [True, False])
def test_the_referees_voice_running_past_its_estimate_is_not_heard(tmp_path, follow_voice):
    # a slow voice: 3 s a sentence. What the microphone hears 4 s after the claim is the
    # referee's own voice (here a sound the ears take for "Cheat! ... Ben")
    claim_known = CLAIM_AT + CLAIM_S
    own_voice_at = claim_known + 4.0
    assert own_voice_at > claim_known + confirmation_estimate() + ECHO_TAIL_S
    audio = table((CLAIM_AT, 500, CLAIM_S), (own_voice_at, 300, 0.5),
                  (own_voice_at + 1.0, 700, 0.4), total=own_voice_at + 4.0)  # fmt: skip
    referee = referee_over(tmp_path, audio, follow_voice=follow_voice, seconds=3.0)
    heard = calls(referee)
    if follow_voice:
        assert heard == []
    else:  # the estimate alone: the ears opened while the voice still spoke
        assert [h["intent"] for h in heard] == [{"type": "call", "caller": "Ben"}]


def test_a_voice_that_cannot_tell_leaves_the_estimate(tmp_path):
    claim_known = CLAIM_AT + CLAIM_S
    cheat_at = claim_known + 1.6
    audio = table((CLAIM_AT, 500, CLAIM_S), (cheat_at, 300, 0.5), (cheat_at + 1.0, 700, 0.4))
    referee = referee_over(tmp_path, audio, follow_voice=True, seconds=0.5)
    referee.voice.speaking = lambda: None  # e.g. speaking into a file, or its process ended
    assert calls(referee) == []


def test_the_voice_says_whether_it_is_still_speaking(tmp_path):
    voice = Voice()
    assert voice.speaking() is False  # nothing said yet
    voice.say("Alice: two aces.")
    assert voice.speaking() is True  # at once, before the worker has begun
    deadline = time.monotonic() + 30
    while voice.speaking() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert voice.speaking() is False
    assert 0 < voice.finished_at <= time.monotonic()
    voice.close()
    assert voice.speaking() is None  # its process has ended
    to_file = Voice(tmp_path / "voice.wav")
    to_file.say("Ben, twos.")
    assert to_file.speaking() is None  # heard by nobody in the room: the estimate stands
    to_file.close()


def test_a_voice_that_cannot_be_heard_says_why_once(tmp_path, monkeypatch):
    import sounddevice

    def no_device(*args, **kwargs):
        raise sounddevice.PortAudioError("Error querying device -1")

    monkeypatch.setattr(sounddevice, "OutputStream", no_device)  # no speakers to play on
    told: list[str] = []
    voice = Voice(on_error=told.append)
    voice.say("Alice: two aces.")
    voice.say("Ben, twos.")
    deadline = time.monotonic() + 30
    while voice.speaking() and time.monotonic() < deadline:
        time.sleep(0.02)
    voice.close()
    assert told == [NO_SPEAKERS.format(why="Error querying device -1")]
    assert voice.done == 2  # every sentence still answered: the game goes on, printed
    assert voice.echo_stage() is None and not voice.echo_cancelled  # the ears shut as before


@pytest.mark.parametrize("brief", [True, False])
def test_brief_shows_the_claim_without_saying_it_so_the_ears_open_sooner(tmp_path, brief):
    # estimates only (no voice progress): "Ben, twos." alone is about 1.2 s, with the claim
    # said back first about 2.7 s; "Cheat! ... Ben" comes 1.6 s after the claim is known
    claim_known = CLAIM_AT + CLAIM_S
    cheat_at = claim_known + 1.6
    audio = table((CLAIM_AT, 500, CLAIM_S), (cheat_at, 300, 0.5), (cheat_at + 1.0, 700, 0.4))
    referee = referee_over(tmp_path, audio, follow_voice=False, seconds=0.5)
    referee.unsaid = frozenset({"claim"} if brief else ())
    printed: list[str] = []
    referee.on_say = lambda announcement, at: printed.append(announcement.text)
    heard = calls(referee)
    assert "Alice: two aces." in printed  # printed and shown either way
    assert ("Alice: two aces." in referee.voice.said) is not brief
    assert "Ben, twos." in referee.voice.said
    assert [h["intent"] for h in heard] == ([{"type": "call", "caller": "Ben"}] if brief else [])


class _FlakyEngine:
    """pyttsx3's engine as its espeak driver behaves on a busy machine: now and then
    ``runAndWait`` returns without having written the file."""

    def __init__(self, misses: int) -> None:
        self.misses = misses
        self.runs = 0
        self._job: tuple[str, str] | None = None

    def save_to_file(self, text: str, path: str) -> None:
        self._job = (text, path)

    def runAndWait(self) -> None:  # noqa: N802 - pyttsx3's name
        import wave

        self.runs += 1
        assert self._job is not None
        if self.misses:
            self.misses -= 1
            return
        with wave.open(self._job[1], "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(22050)
            w.writeframes(b"\x01\x00" * 2205)


@pytest.mark.parametrize("misses, said", [(0, True), (2, True), (3, False)])
def test_a_sentence_the_engine_skipped_is_rendered_again(tmp_path, misses, said):
    # the greeting once went unsaid: its wav was missing when the worker acked it
    from referee.voice.worker import TRIES, render

    engine = _FlakyEngine(misses)
    path = str(tmp_path / "00000.wav")
    assert render(engine, "Game 1. Dev deals.", path) is said
    assert engine.runs == min(misses + 1, TRIES)
