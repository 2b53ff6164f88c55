"""Negatives as the referee meets them: table talk cut by its own voice gate.

    nice -n 19 .venv/bin/python -m referee.speech.listener.talk --shards 10

The other mixes (:mod:`.data`) give the head whole sentences with a little room around them.
At the table the head is asked about what the gate cuts out of a stream of talk: half a
sentence at its first pause, two words and the babble after them, babble alone where a
neighbour's voice rose over the floor. Those stretches are where bench/speech/chatter's
invented calls come from ("liar", "b s", "cheater" made of babble with the head sure of a
call), and no clip of the other mixes looks like them.

Each stream is 30 s of one nearby talker after another (this module's voices, speeds and
pitches; the table talk of :data:`.data.CHATTER`, made-up lines of its words, short words
and phrases), pauses of 0.2-4 s, a reverberant room now and then, over a quiet floor,
babble of 2-7 talkers (the crowd pool, accents included), a noise, or babble and a noise,
at the levels a laptop hears. The referee's :class:`~referee.speech.vad.Segmenter` (default
profile) cuts it as it would live; every finished utterance and every first-pause reading
(words in progress at their first 60 ms pause, 0.22 s or longer) is a clip labelled none.
Nothing of bench/speech (its sentences, voices or babble) is used.

Shards ``shard-s{seed}-talk-NNNN.npz``, the same format as :mod:`.data`'s; those whose index
ends in 9 are held out like the rest.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from referee.speech.listener.data import (
    CHATTER,
    DATA,
    SHORT_NEGATIVES,
    SHORT_PHRASES,
    Babble,
    Rooms,
    clatter,
    colored_noise,
    crowd_line,
    mic_color,
    music,
    rms,
    speak,
    water,
)
from referee.speech.listener.labels import Label, kept_frames
from referee.speech.types import SAMPLE_RATE

STREAM_S = 30.0
#: the share of a stream's cuts kept: a 30 s stream gives 25-75, most of them the same
#: words read at one pause after another, so a shard draws on more streams
KEEP = 0.35
#: the recognizer reads words in progress at their first pause this long (recognizer.py)
FIRST_PAUSE_FRAMES = 3
FIRST_PAUSE_MIN_S = 0.22
BACKGROUNDS = ("quiet", "babble", "noise", "babble+noise")


def line(rng: random.Random) -> str:
    """What one nearby talker says: table talk, made-up talk, or a short word or phrase."""
    roll = rng.random()
    if roll < 0.45:
        return rng.choice(CHATTER)
    if roll < 0.75:
        return crowd_line(rng)
    if roll < 0.88:
        return rng.choice(SHORT_PHRASES)
    return " ".join(rng.choice(SHORT_NEGATIVES) for _ in range(rng.randint(1, 3)))


class Talk:
    """Draws one seeded stream of table talk over its background."""

    def __init__(self, root: Path = DATA):
        self.babble = Babble(root, size=600, seed=7, crowd=True)
        try:
            self.rooms: Rooms | None = Rooms(root)
        except ImportError:
            print("pyroomacoustics missing: no reverberant rooms", file=sys.stderr)
            self.rooms = None

    def stream(self, seed: int) -> tuple[np.ndarray, str]:
        """(audio, background) of stream ``seed``."""
        rng = random.Random(seed)
        nrng = np.random.default_rng(seed)
        total = int(STREAM_S * SAMPLE_RATE)
        talk = np.zeros(total, np.float32)
        pos = int(rng.uniform(0.0, 2.0) * SAMPLE_RATE)
        while pos < total:
            said, _ = speak(line(rng), rng)
            if self.rooms is not None and rng.random() < 0.3:
                said = self.rooms.apply(said, rng)
            said = said * (0.1 * rng.uniform(0.5, 1.5) / max(rms(said), 1e-6))
            end = min(total, pos + len(said))
            talk[pos:end] += said[: end - pos]
            pos = end + int(rng.uniform(0.2, 4.0) * SAMPLE_RATE)
        background = rng.choice(BACKGROUNDS)
        bed = np.zeros(total, np.float32)
        if "babble" in background:
            b = self.babble(total, rng)
            bed += b / max(rms(b), 1e-9)
        if "noise" in background:
            maker = rng.choice(("pink", "brown", "white", "clatter", "water", "music"))
            noise = {
                "pink": lambda: colored_noise(total, nrng, 1.0),
                "brown": lambda: colored_noise(total, nrng, 2.0),
                "white": lambda: colored_noise(total, nrng, 0.0),
                "clatter": lambda: clatter(total, nrng),
                "water": lambda: water(total, nrng),
                "music": lambda: music(total, nrng),
            }[maker]()
            weight = 10 ** (-rng.uniform(0, 10) / 20) if "babble" in background else 1.0
            bed += weight * noise / max(rms(noise), 1e-9)
            background = background.replace("noise", maker)
        if background == "quiet":
            bed = nrng.standard_normal(total).astype(np.float32)
            snr = rng.uniform(35, 60)
        else:
            snr = rng.uniform(3, 15) if "babble" in background else rng.uniform(5, 20)
        bed = bed * (0.1 / max(rms(bed), 1e-9) / 10 ** (snr / 20))
        level = 10 ** (rng.uniform(-32, -16) / 20) / 0.1  # the talk's level at the laptop
        audio = mic_color((talk + bed) * level, nrng)
        return np.clip(audio, -1, 1).astype(np.float32), f"{background} {snr:.0f} dB"


def cuts(audio: np.ndarray) -> list[tuple[float, np.ndarray, str]]:
    """What the referee's gate hands the recognizer: (start in seconds, audio, how): each
    finished utterance ("final") and each first-pause reading ("pause")."""
    from referee.speech.vad import FRAME, Segmenter

    segmenter = Segmenter()
    out = []
    for i in range(len(audio) // FRAME):
        t = i * FRAME / SAMPLE_RATE
        finished = segmenter.push(t, audio[i * FRAME : (i + 1) * FRAME])
        if finished is not None:
            out.append((finished.start, finished.audio, "final"))
            continue
        current = segmenter.current()
        if (
            current is not None
            and segmenter.quiet_frames == FIRST_PAUSE_FRAMES
            and current.end - current.start >= FIRST_PAUSE_MIN_S
        ):
            out.append((current.start, current.audio, "pause"))
    return out


def make_shard(talk: Talk, encoder, seed: int, shard: int, size: int, out: Path) -> None:
    """Write one shard of ``size`` cut stretches (:data:`KEEP` of each stream's) from
    streams ``shard*1000 + j``."""
    frames, offsets, labels, metas = [], [0], [], []
    j = 0
    while len(labels) < size:
        stream_seed = seed * 1_000_003 + shard * 1000 + j
        j += 1
        audio, background = talk.stream(stream_seed)
        pick = random.Random(stream_seed)
        for start, clip, how in cuts(audio):
            if len(labels) >= size:
                break
            if pick.random() >= KEEP or len(clip) < int(0.1 * SAMPLE_RATE):
                continue
            encoded = np.asarray(encoder.encode(clip))[0]
            keep = encoded[: kept_frames(len(clip), len(encoded))].astype(np.float16)
            frames.append(keep)
            offsets.append(offsets[-1] + len(keep))
            label = Label("none")
            labels.append(label.targets())
            metas.append({
                "text": "", "voice": f"talk {how}", "background": background,
                "seconds": len(clip) / SAMPLE_RATE, "stream": stream_seed, "at": round(start, 2),
                "label": {"kind": "none"},
            })  # fmt: skip
    tmp = out.with_suffix(".tmp.npz")
    np.savez(
        tmp,
        frames=np.concatenate(frames),
        offsets=np.asarray(offsets, np.int64),
        targets=json.dumps(labels),
        meta=json.dumps(metas),
    )
    tmp.rename(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.speech.listener.talk")
    parser.add_argument("--shards", type=int, default=10)
    parser.add_argument("--size", type=int, default=250, help="stretches per shard")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DATA)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    from referee.speech.backends.whisper import WhisperBackend

    args.out.mkdir(parents=True, exist_ok=True)
    talk = Talk(args.out)
    encoder = WhisperBackend(threads=args.threads)
    for shard in range(args.first, args.first + args.shards):
        path = args.out / f"shard-s{args.seed}-talk-{shard:04d}.npz"
        if path.is_file():
            continue
        started = time.perf_counter()
        make_shard(talk, encoder, args.seed, shard, args.size, path)
        took = time.perf_counter() - started
        print(f"{path.name}: {args.size} stretches in {took:.0f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
