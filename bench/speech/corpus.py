"""The benchmark's audio: espeak-ng phrases (cached outside git), noise mixing, real recordings.

Synthetic sets are rebuilt from seeds, so every run scores the same clips. Real recordings
are read from ``../shared/data/speech-real-dev`` (validation only: nothing is tuned on them).
"""

from __future__ import annotations

import hashlib
import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.game.cards import RANKS
from referee.speech.audio import read_wav
from referee.speech.synth import synthesize
from referee.speech.types import SAMPLE_RATE

PLAYERS = ("Alice", "Ben", "Cara", "Dev")
VOICES = (
    "en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-gb-x-gbclan", "en-us+f3",
    "en-us-nyc+f2", "en-gb-x-gbcwmd+m3",
)  # fmt: skip
SPEEDS = (140, 165, 190, 220)
PITCHES = (30, 50, 70)
REAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "speech-real-dev"
NOISE_BEDS = ("doing_the_dishes", "dude_miaowing", "exercise_bike", "running_tap", "pink_noise")

#: (text to speak, expected intent as referee.intents.Intent.to_dict(), kind)
GAME_PHRASES: list[tuple[str, dict, str]] = [
    ("two aces", {"type": "claim", "count": 2, "rank": "A"}, "claim"),
    ("one ace", {"type": "claim", "count": 1, "rank": "A"}, "claim"),
    ("a king", {"type": "claim", "count": 1, "rank": "K"}, "claim"),
    ("one king", {"type": "claim", "count": 1, "rank": "K"}, "claim"),
    ("three sevens", {"type": "claim", "count": 3, "rank": "7"}, "claim"),
    ("four tens", {"type": "claim", "count": 4, "rank": "10"}, "claim"),
    ("two queens", {"type": "claim", "count": 2, "rank": "Q"}, "claim"),
    ("three jacks", {"type": "claim", "count": 3, "rank": "J"}, "claim"),
    ("two fives", {"type": "claim", "count": 2, "rank": "5"}, "claim"),
    ("four nines", {"type": "claim", "count": 4, "rank": "9"}, "claim"),
    ("one six", {"type": "claim", "count": 1, "rank": "6"}, "claim"),
    ("three twos", {"type": "claim", "count": 3, "rank": "2"}, "claim"),
    ("two eights", {"type": "claim", "count": 2, "rank": "8"}, "claim"),
    ("four threes", {"type": "claim", "count": 4, "rank": "3"}, "claim"),
    ("cheat!", {"type": "call", "caller": None}, "call"),
    ("cheater!", {"type": "call", "caller": None}, "call"),
    ("bullshit!", {"type": "call", "caller": None}, "call"),
    ("B.S.!", {"type": "call", "caller": None}, "call"),
    ("I doubt it", {"type": "call", "caller": None}, "call"),
    ("liar!", {"type": "call", "caller": None}, "call"),
    ("Ben, cheat!", {"type": "call", "caller": "Ben"}, "call"),
    ("cheat, Alice!", {"type": "call", "caller": "Alice"}, "call"),
    ("pass", {"type": "pass"}, "pass"),
    ("undo", {"type": "command", "command": "undo"}, "command"),
    ("repeat", {"type": "command", "command": "repeat"}, "command"),
    ("what's the score", {"type": "command", "command": "score"}, "command"),
    ("new game", {"type": "command", "command": "new_game"}, "command"),
    ("how many cards", {"type": "command", "command": "how_many"}, "command"),
    ("whose turn", {"type": "command", "command": "whose_turn"}, "command"),
    ("Cara", {"type": "name", "name": "Cara"}, "name"),
    ("Dev", {"type": "name", "name": "Dev"}, "name"),
    ("three", {"type": "count", "count": 3}, "count"),
]

CHATTER = [
    "the weather is lovely today", "who wants another drink", "I love this song",
    "my phone is almost dead", "did you watch the match last night", "turn the music up",
    "where did I put my glasses", "this pizza is really good", "I have to leave at midnight",
    "can you open the window", "she said she would be late", "we should do this more often",
    "that was a long week", "go forward ten meters", "the dog is barking outside",
    "nice shoes by the way", "pour me some water please", "the train was delayed again",
    "I think it is going to rain", "what time is it", "let me get some chips",
    "hold on a second", "my sister lives in Boston", "this chair is wobbly",
    "is anyone hungry", "okay okay calm down", "you always say that", "tell me about it",
]  # fmt: skip


#: short words and phrases that are not the game's: the hardest to reject, as whisper reads a
#: lone word near a game word ("why": "liar") more readily than a sentence
SHORT_WORDS = [
    *"""yes no zero tree okay hello what nice wait sure maybe thanks sorry really seriously ten
    eleven twenty free tea deck shuffle cards drink music fine good great why stop lovely nope
    yeah right hmm cool wow please dinner""".split(),
    "come on", "oh no", "my turn", "nice one", "no way", "hold on", "your go", "me too",
]  # fmt: skip


@dataclass
class Clip:
    """One benchmark item: audio, where its speech ends, what it should mean."""

    set: str
    label: str
    audio: np.ndarray
    speech_end: float | None
    expected: dict | None  # None: non-game speech, nothing should be accepted
    kind: str = "none"
    context: dict = field(default_factory=dict)


class SynthCache:
    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def get(self, text: str, voice: str, speed: int, pitch: int) -> np.ndarray:
        key = hashlib.sha1(f"{text}|{voice}|{speed}|{pitch}".encode()).hexdigest()[:16]
        path = self.root / f"{key}.npy"
        if path.is_file():
            return np.load(path)
        samples = synthesize(text, voice=voice, speed=speed, pitch=pitch)
        part = path.with_name(f"{key}.{os.getpid()}.part.npy")
        np.save(part, samples)
        os.replace(part, path)  # another bench reading the cache never sees half a file
        return samples


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)) + 1e-12))


def place(
    speech: np.ndarray, lead_s: float = 0.6, tail_s: float = 0.8, level: float | None = 0.1
) -> tuple[np.ndarray, float]:
    """Speech (scaled to ``level`` RMS, about -20 dBFS) with quiet around it; returns the
    audio and the time its speech ends. Real recordings keep their own level (None)."""
    if level is not None:
        speech = speech * (level / max(rms(speech), 1e-6))
    speech = np.clip(speech, -0.99, 0.99)
    lead = np.zeros(int(lead_s * SAMPLE_RATE), np.float32)
    tail = np.zeros(int(tail_s * SAMPLE_RATE), np.float32)
    return np.concatenate([lead, speech, tail]).astype(np.float32), lead_s + len(
        speech
    ) / SAMPLE_RATE


def mix(audio: np.ndarray, noise: np.ndarray, snr_db: float, speech_rms: float, rng) -> np.ndarray:
    """Add a random stretch of ``noise`` at ``snr_db`` below the speech level."""
    if len(noise) < len(audio):
        noise = np.tile(noise, len(audio) // len(noise) + 1)
    offset = int(rng.integers(0, len(noise) - len(audio) + 1))
    bed = noise[offset : offset + len(audio)]
    bed = bed * (speech_rms / max(rms(bed), 1e-9) / 10 ** (snr_db / 20))
    return np.clip(audio + bed, -1, 1).astype(np.float32)


def load_noise_beds() -> dict[str, np.ndarray]:
    folder = REAL / "noise_speechcommands_bg"
    return {name: read_wav(folder / f"{name}.wav", check=False) for name in NOISE_BEDS}


def babble(cache: SynthCache, rng: random.Random, seconds: float) -> np.ndarray:
    """Table chatter: three espeak voices talking at once."""
    total = np.zeros(int(seconds * SAMPLE_RATE), np.float32)
    for _ in range(3):
        parts, length = [], 0
        while length < len(total):
            text = rng.choice(CHATTER)
            s = cache.get(text, rng.choice(VOICES), rng.choice(SPEEDS), rng.choice(PITCHES))
            s = s * (0.1 / max(rms(s), 1e-6))
            parts += [s, np.zeros(int(rng.uniform(0.05, 0.3) * SAMPLE_RATE), np.float32)]
            length += len(s) + len(parts[-1])
        stream = np.concatenate(parts)
        start = rng.randrange(0, len(stream) - len(total) + 1)
        total += stream[start : start + len(total)]
    return total


def synthetic_sets(cache: SynthCache, per_set: int, seed: int = 7) -> list[Clip]:
    """Game phrases clean, with real noise beds at 20 and 10 dB, and under babble at 10 dB;
    table chatter clean and under babble, and short non-game words clean and in noise during
    play, and clean with everything legal (nothing should be accepted)."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    beds = load_noise_beds()
    clips: list[Clip] = []
    for set_name in ("synth clean", "synth noise 20 dB", "synth noise 10 dB", "synth babble 10 dB"):

        def heard(speech: np.ndarray, set_name: str = set_name) -> tuple[np.ndarray, float]:
            audio, end = place(speech)
            if "noise" in set_name:
                snr = 20 if "20" in set_name else 10
                audio = mix(audio, beds[rng.choice(NOISE_BEDS)], snr, 0.1, nrng)
            elif "babble" in set_name:
                audio = mix(audio, babble(cache, rng, len(audio) / SAMPLE_RATE + 1), 10, 0.1, nrng)
            return audio, end

        clips += game_clips(set_name, per_set, cache, rng, heard)
    for set_name in ("synth chatter clean", "synth chatter babble 10 dB"):
        for i in range(max(per_set // 2, len(CHATTER))):
            text = CHATTER[i % len(CHATTER)]
            voice, speed, pitch = rng.choice(VOICES), rng.choice(SPEEDS), rng.choice(PITCHES)
            audio, end = place(cache.get(text, voice, speed, pitch))
            if "babble" in set_name:
                audio = mix(audio, babble(cache, rng, len(audio) / SAMPLE_RATE + 1), 10, 0.1, nrng)
            rank_due = rng.choice(RANKS)
            ctx = {"rank_due": rank_due, "phase": "play"}  # chatter happens during play
            clips.append(Clip(set_name, text, audio, end, None, "none", ctx))
    for set_name in ("synth short words clean", "synth short words noise 20 dB"):
        for text in SHORT_WORDS:
            voice, speed, pitch = rng.choice(VOICES), rng.choice(SPEEDS), rng.choice(PITCHES)
            audio, end = place(cache.get(text, voice, speed, pitch))
            if "noise" in set_name:
                audio = mix(audio, beds[rng.choice(NOISE_BEDS)], 20, 0.1, nrng)
            ctx = {"rank_due": rng.choice(RANKS), "phase": "play"}
            label = f"{text} [{voice} s{speed} p{pitch}]"
            clips.append(Clip(set_name, label, audio, end, None, "none", ctx))
    # the same words heard with everything legal and counts up to nine, as the real count
    # words are: bare counts and every claim open more ways to mistake a word (drawn last,
    # so the sets above are the clips they always were)
    for text in SHORT_WORDS:
        voice, speed, pitch = rng.choice(VOICES), rng.choice(SPEEDS), rng.choice(PITCHES)
        audio, end = place(cache.get(text, voice, speed, pitch))
        ctx = {"rank_due": None, "max_count": 9}
        label = f"{text} [{voice} s{speed} p{pitch}]"
        clips.append(Clip("synth short words, all legal", label, audio, end, None, "none", ctx))
    return clips


#: the reverberant sets' rooms: pyroomacoustics shoeboxes as the listener's training rooms
#: are made (``referee.speech.listener.data.Rooms``: a laptop on a table, the talker 0.8-1.5 m
#: away, RT60 0.3-0.7 s), drawn from another seed: no room of the training clips
ROOM_SEED = 11
ROOM_COUNT = 16
#: the rooms' image-source order (``Rooms``): None, every order their RT60 asks for (tails
#: 0.3-0.8 s); 12 as until 2026-12-07 (tails 0.12-0.28 s: ``--room-order 12``)
ROOM_ORDER: int | None = None
#: how long the room rings on past the words in a reverberant clip
ROOM_TAIL_S = 0.8


def reverberant_sets(cache: SynthCache, per_set: int, seed: int = 7) -> list[Clip]:
    """The game phrases of :func:`synthetic_sets`'s clean and babble sets, each drawn anew
    and said in a reverberant room (#21: within 3 points of dry; ``ROOM_ORDER``); [] without
    pyroomacoustics (the ``train`` extra). Drawn from their own generators, so the other
    sets stay the clips they always were."""
    from referee.speech.listener.data import Rooms

    try:
        rooms = Rooms(cache.root, count=ROOM_COUNT, seed=ROOM_SEED, order=ROOM_ORDER)
    except ImportError:
        print("pyroomacoustics missing: no reverberant sets", file=sys.stderr)
        return []
    rng = random.Random(seed * 1000 + ROOM_SEED)
    nrng = np.random.default_rng(seed * 1000 + ROOM_SEED)
    clips: list[Clip] = []
    for set_name in ("synth reverb", "synth reverb babble 10 dB"):

        def heard(speech: np.ndarray, set_name: str = set_name) -> tuple[np.ndarray, float]:
            wet = rooms.apply(speech, rng, ROOM_TAIL_S)  # the room rings on past the words
            audio, end = place(wet, tail_s=0.5)
            if "babble" in set_name:
                audio = mix(audio, babble(cache, rng, len(audio) / SAMPLE_RATE + 1), 10, 0.1, nrng)
            return audio, end - (len(wet) - len(speech)) / SAMPLE_RATE

        clips += game_clips(set_name, per_set, cache, rng, heard)
    return clips


def game_clips(
    set_name: str,
    per_set: int,
    cache: SynthCache,
    rng: random.Random,
    heard: Callable[[np.ndarray], tuple[np.ndarray, float]],
) -> list[Clip]:
    """``per_set`` of the game phrases in turn, each in a voice drawn from ``rng`` and made
    into what the laptop hears by ``heard`` (speech in; audio and when its words end out)."""
    clips = []
    for i in range(per_set):
        text, expected, kind = GAME_PHRASES[i % len(GAME_PHRASES)]
        voice, speed, pitch = rng.choice(VOICES), rng.choice(SPEEDS), rng.choice(PITCHES)
        audio, end = heard(cache.get(text, voice, speed, pitch))
        rank_due = expected.get("rank") or rng.choice(RANKS)
        # scored as the referee listens when the phrase is said: claims, calls, passes and
        # commands during play, names when asking who called; a bare count in a context
        # where counts are legal (the live referee never listens for one)
        phase = {"name": "who_called", "count": None}.get(kind, "play")
        ctx = {"rank_due": rank_due, "phase": phase}
        label = f"{text} [{voice} s{speed} p{pitch}]"
        clips.append(Clip(set_name, label, audio, end, expected, kind, ctx))
    return clips


COUNT_NAMES = "zero one two three four five six seven eight nine".split()


def real_sets() -> list[Clip]:
    """fsdd digits 1-9 as count words (0 as non-game speech), plus the pocketsphinx clips."""
    clips: list[Clip] = []
    for path in sorted((REAL / "fsdd").glob("*.wav")):
        digit = int(path.name.split("_")[0])
        audio, end = place(read_wav(path, check=False), 0.5, 0.8, None)
        ctx = {"rank_due": None, "max_count": 9}
        if digit == 0:
            clips.append(
                Clip("real fsdd zero (non-game)", path.name, audio, end, None, "none", ctx)
            )
        else:
            expected = {"type": "count", "count": digit}
            clips.append(
                Clip("real fsdd counts 1-9", path.name, audio, end, expected, "count", ctx)
            )
    ps = REAL / "pocketsphinx_testdata"
    for name in ("goforward.wav", "something.wav"):
        audio, end = place(read_wav(ps / name, check=False), 0.5, 0.8, None)
        clips.append(Clip("real other speech (non-game)", name, audio, end, None, "none", {}))
    return clips


def cards_clips() -> list[Clip]:
    """pocketsphinx's card-phrase recordings: reported as heard, not scored."""
    folder = REAL / "pocketsphinx_testdata" / "cards"
    clips = []
    for path in sorted(folder.glob("*.wav")):
        audio, end = place(read_wav(path, check=False), 0.5, 0.8, None)
        clips.append(Clip("real cards (as heard)", path.name, audio, end, None, "none", {}))
    return clips


#: where bench/speech/call_lengths.py and answers.py say their phrases
CONDITIONS = ("clean", "noise 20 dB", "babble 15 dB", "babble 10 dB")


def said_in(
    text: str,
    condition: str,
    cache: SynthCache,
    rng: random.Random,
    nrng: np.random.Generator,
    beds: dict[str, np.ndarray],
) -> np.ndarray:
    """``text`` said by one of ``VOICES`` at a drawn speed and pitch or, one time in three,
    Piper's Joe at a pitch factor, placed in quiet and heard in ``condition`` (one of
    ``CONDITIONS``: kitchen noise or babble at that many dB under the words)."""
    from referee.speech.listener.data import say_piper

    if rng.random() < 0.3:
        speech = say_piper(text, rng.choice([0.85, 1.0, 1.15]), rng)
    else:
        voice, speed, pitch = rng.choice(VOICES), rng.choice(SPEEDS), rng.choice(PITCHES)
        speech = cache.get(text, voice, speed, pitch)
    audio, _ = place(speech)
    if condition.startswith("noise"):
        audio = mix(audio, beds[rng.choice(NOISE_BEDS)], 20, 0.1, nrng)
    elif condition.startswith("babble"):
        snr = int(condition.split()[1])
        audio = mix(audio, babble(cache, rng, len(audio) / SAMPLE_RATE + 1), snr, 0.1, nrng)
    return audio


def heard_in_turn(
    per_condition: int,
    seed: int,
    cache: SynthCache,
    phrase: Callable[[int, random.Random], tuple[str, str]],
) -> list[tuple[str, str, np.ndarray]]:
    """(condition, label, audio): in each of ``CONDITIONS`` in turn, ``per_condition``
    phrases, the i-th's label and words from ``phrase(i, rng)``, each :func:`said_in` it."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    beds = load_noise_beds()
    out = []
    for condition in CONDITIONS:
        for i in range(per_condition):
            label, text = phrase(i, rng)
            out.append((condition, label, said_in(text, condition, cache, rng, nrng, beds)))
    return out
