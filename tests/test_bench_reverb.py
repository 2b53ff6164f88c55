"""bench/speech's reverberant sets: the game phrases said in held-out rooms."""

from __future__ import annotations

import numpy as np
import pytest

from bench.speech import corpus
from referee.speech.types import SAMPLE_RATE

pytest.importorskip("pyroomacoustics")


def test_the_phrases_are_said_in_rooms_other_than_the_training_rooms(tmp_path):
    import inspect

    from referee.speech.listener.data import Rooms

    # the training clips' rooms are Rooms(root): its default seed
    assert inspect.signature(Rooms).parameters["seed"].default != corpus.ROOM_SEED
    cache = corpus.SynthCache(tmp_path)
    clips = corpus.reverberant_sets(cache, 2)
    assert [c.set for c in clips] == ["synth reverb"] * 2 + ["synth reverb babble 10 dB"] * 2
    room = clips[0]
    assert room.expected == corpus.GAME_PHRASES[0][1]
    end = int(room.speech_end * SAMPLE_RATE)
    assert 0 < end < len(room.audio)
    # the room rings on after the words; said dry, the same words are followed by silence
    text, rest = room.label.split(" [")
    voice, speed, pitch = rest.rstrip("]").split()
    dry, dry_end = corpus.place(cache.get(text, voice, int(speed[1:]), int(pitch[1:])))
    after = slice(end + SAMPLE_RATE // 50, end + SAMPLE_RATE // 5)
    tail = slice(
        int(dry_end * SAMPLE_RATE) + SAMPLE_RATE // 50,
        int(dry_end * SAMPLE_RATE) + SAMPLE_RATE // 5,
    )
    assert corpus.rms(room.audio[after]) > 10 * corpus.rms(dry[tail])
    assert np.isfinite(room.audio).all()


def test_the_rooms_ring_as_long_as_their_rt60(tmp_path):
    """Drawn at RT60 0.3-0.7 s, a room capped at image order 12 rang for 0.12-0.28 s: the
    reverberant sets were all but dry. Every order the RT60 asks for rings as drawn."""
    import pyroomacoustics as pra

    from referee.speech.listener.data import Rooms

    full = Rooms(tmp_path, count=3, seed=corpus.ROOM_SEED)
    capped = Rooms(tmp_path, count=3, seed=corpus.ROOM_SEED, order=Rooms.LEGACY_ORDER)
    rt60 = [pra.experimental.measure_rt60(r, fs=SAMPLE_RATE) for r in full.rirs]
    assert all(0.3 <= t <= 0.9 for t in rt60), rt60
    assert all(pra.experimental.measure_rt60(r, fs=SAMPLE_RATE) < 0.3 for r in capped.rirs)
    assert len(list(tmp_path.glob("rooms-*.npz"))) == 2  # cached apart
