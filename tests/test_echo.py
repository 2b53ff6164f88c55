"""Echo cancellation on synthetic echo: the referee's voice (espeak-ng) delayed, filtered and
scaled as a laptop's microphone would hear its own speaker, at full level, with and without
a player's "Cheat!" over it. The room itself (PulseAudio) is in test_room_echo.py."""

from __future__ import annotations

import numpy as np
import pytest

from referee.speech import echo
from referee.speech.audio import ArraySource
from referee.speech.echo import (
    LEAD_S,
    SLIP_S,
    EchoCanceller,
    EchoStage,
    PlayedTape,
    StreamClock,
    find_delay,
    level_db,
)
from referee.speech.recognizer import Recognizer
from referee.speech.synth import espeak_available, synthesize
from referee.speech.types import SAMPLE_RATE
from referee.speech.vocab import ListenContext

needs_speex = pytest.mark.skipif(echo.speexdsp() is None, reason="libspeexdsp1 not installed")
needs_espeak = pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")
PLAYERS = ("Alice", "Ben", "Cara")


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64))))


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SAMPLE_RATE), np.float32)


def referee_voice() -> tuple[np.ndarray, int, int]:
    """The far end: an opening (the canceller learns the room from it), a pause, then the
    confirmation "Alice: two aces. Ben, twos." (about 2 s); and where that starts and ends."""
    opening = synthesize("Game one. Cara deals. Alice starts with aces, then kings.")
    confirmation = np.concatenate(
        [synthesize("Alice: two aces."), silence(0.3), synthesize("Ben, twos.")]
    )
    far = np.concatenate([opening, silence(1.0), confirmation, silence(1.0)])
    far = (far * (0.9 / np.abs(far).max())).astype(np.float32)  # full level: peaks at -1 dBFS
    begins = len(opening) + SAMPLE_RATE
    return far, begins, begins + len(confirmation)


def heard_by_the_microphone(far: np.ndarray, delay_s: float) -> np.ndarray:
    """A laptop's speaker in a room: ``delay_s`` late, filtered by a few reflections, 3 dB
    down, over a faint noise floor."""
    path = np.zeros(600)
    path[[0, 40, 160, 450]] = [0.7, 0.25, -0.12, 0.05]
    delayed = np.concatenate([silence(delay_s), far])
    mic = np.convolve(delayed, path)[: len(far)]
    noise = np.random.default_rng(3).normal(0, 1e-3, len(far))
    return (mic + noise).astype(np.float32)


def cancel(mic: np.ndarray, far: np.ndarray, canceller: EchoCanceller, step: int = 317):
    """Feed as a microphone would, in blocks that are not whole frames."""
    parts = [
        canceller.process(mic[i : i + step], far[i : i + step]) for i in range(0, len(mic), step)
    ]
    return np.concatenate(parts)


def test_the_delay_of_an_echo_is_found_to_the_sample():
    rng = np.random.default_rng(0)
    far = rng.normal(0, 0.1, 3 * SAMPLE_RATE)
    lag, max_lag = 1234, 8000
    mic = far[max_lag - lag : max_lag - lag + 2 * SAMPLE_RATE] * 0.5
    found, sharpness = find_delay(mic, far[: 2 * SAMPLE_RATE + max_lag], max_lag)
    assert found == lag and sharpness > 10
    _, flat = find_delay(
        rng.normal(0, 0.1, 2 * SAMPLE_RATE), far[: 2 * SAMPLE_RATE + max_lag], max_lag
    )
    assert flat < 8  # no echo: nothing stands out


def test_a_stream_clock_ignores_jitter_and_follows_a_skip():
    clock = StreamClock(16000)
    assert clock.block(10.0, 320) == 10.0
    assert clock.block(10.023, 320) == pytest.approx(10.02)  # 3 ms of jitter: still 10.02
    skipped = 10.04 + 0.6  # the next block sounded 0.6 s late, unflagged
    assert clock.block(skipped, 320) == skipped
    assert SLIP_S < 0.6
    assert clock.block(10.0, 320, skipped=True) == 10.0  # PortAudio said it skipped


def test_the_tape_is_read_by_the_time_it_sounded():
    tape = PlayedTape(keep_s=1.0)
    tape.write(np.ones(160, np.float32), at=100.0)
    tape.write(np.full(160, 2.0, np.float32), at=100.011)  # jitter: follows on at 100.01
    assert tape.end == pytest.approx(100.02)
    got = tape.at(99.995, 400)
    assert list(got[:80]) == [0.0] * 80  # before the tape started
    assert set(got[80:240]) == {1.0} and set(got[240:400]) == {2.0}
    tape.write(np.full(160, 3.0, np.float32), at=100.5, skipped=True)  # silence in between
    assert set(tape.at(100.1, 160)) == {0.0}
    assert set(tape.at(100.5, 160)) == {3.0}
    assert set(tape.at(98.0, 160)) == {0.0}  # forgotten


@needs_speex
@needs_espeak
def test_a_full_level_echo_is_cancelled_below_the_ears_gate():
    far, begins, ends = referee_voice()
    mic = heard_by_the_microphone(far, delay_s=LEAD_S + 0.037)
    canceller = EchoCanceller()
    out = cancel(mic, far, canceller)
    confirmation = slice(begins, ends)
    assert level_db(mic[confirmation]) > -25  # the echo is loud
    assert canceller.erle_db > 20 and canceller.residual_db < -2
    assert canceller.well is True
    # frame by frame, 90% of the confirmation's echo is under the ears' gate (-50 dBFS here)
    frames = out[confirmation][: (ends - begins) // 320 * 320].reshape(-1, 320)
    assert np.percentile([level_db(f) for f in frames], 90) < -50


@needs_speex
@needs_espeak
def test_a_delay_beyond_the_filters_reach_is_found_and_followed():
    far, begins, ends = referee_voice()
    mic = heard_by_the_microphone(far, delay_s=0.4)  # e.g. a Bluetooth speaker
    canceller = EchoCanceller()
    out = cancel(mic, far, canceller)
    assert canceller.delays and abs(canceller.delay - 0.4 * SAMPLE_RATE) < 40
    assert level_db(out[begins:ends]) < level_db(mic[begins:ends]) - 20


@needs_speex
def test_an_echo_that_cannot_be_cancelled_is_told_once():
    rng = np.random.default_rng(1)
    told: list[str] = []
    tape = PlayedTape(keep_s=30.0)
    stage = EchoStage(tape, told.append)
    # the speaker plays noise bursts; the microphone hears something else as loud (the tape
    # is not what it hears: nothing to cancel)
    t0, step = 1000.0, 320
    for i in range(0, 20 * SAMPLE_RATE, step):
        loud = (i // SAMPLE_RATE) % 2 == 0
        played = rng.normal(0, 0.1 if loud else 0.0, step).astype(np.float32)
        tape.write(played, at=t0 + i / SAMPLE_RATE)
        heard = rng.normal(0, 0.1 if loud else 0.001, step).astype(np.float32)
        stage(heard, t0 + i / SAMPLE_RATE - LEAD_S)
    assert stage.well is False
    assert len(told) == 1 and "not cancelled well enough" in told[0]


def test_without_libspeexdsp_the_microphone_is_passed_on_and_why_is_told(monkeypatch):
    monkeypatch.setattr(echo, "speexdsp", lambda: None)
    told: list[str] = []
    stage = EchoStage(PlayedTape(), told.append)
    samples = np.full(320, 0.1, np.float32)
    assert stage(samples, 5.0) is samples
    assert stage.well is False
    assert told == [echo.NOT_CANCELLED.format(why=echo.NO_SPEEXDSP)]


@pytest.fixture(scope="module")
def whisper():
    return Recognizer(backend_name="whisper", context=ListenContext(players=PLAYERS))


def heard(rec: Recognizer, audio: np.ndarray) -> list[tuple[dict, float]]:
    return [
        (h.intent.to_dict(), h.utterance.start)
        for h in rec.utterances(ArraySource(audio))
        if not h.utterance.partial
    ]


@pytest.mark.slow
@needs_speex
@needs_espeak
@pytest.mark.parametrize("into_s", [0.5, 1.0, 1.5])
def test_a_call_over_the_referees_full_level_voice_is_heard_at_its_onset(whisper, into_s):
    far, begins, ends = referee_voice()
    mic = heard_by_the_microphone(far, delay_s=LEAD_S + 0.02)
    cheat = synthesize("Ben, cheat!", voice="en-gb", speed=170)
    at = begins + int(into_s * SAMPLE_RATE)
    mic[at : at + len(cheat)] += cheat * (0.08 / rms(cheat))  # about as loud as the echo
    out = cancel(mic, far, EchoCanceller())
    during = [(i, s) for i, s in heard(whisper, out[begins:]) if s < (ends - begins) / SAMPLE_RATE]
    calls = [(i, s) for i, s in during if i["type"] == "call"]
    assert [i for i, _ in calls] == [{"type": "call", "caller": "Ben"}]
    assert calls[0][1] == pytest.approx(into_s, abs=0.08)
    assert heard(whisper, mic[begins:ends]) != during  # the echo alone changes what is heard


@pytest.mark.slow
@needs_speex
@needs_espeak
def test_the_referees_voice_alone_leaves_nothing_to_take_for_a_phrase(whisper):
    far, begins, ends = referee_voice()
    mic = heard_by_the_microphone(far, delay_s=LEAD_S + 0.02)
    out = cancel(mic, far, EchoCanceller())
    assert heard(whisper, mic[begins:ends])  # uncancelled, the ears take its words for a phrase
    assert heard(whisper, out[begins:]) == []
