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
profile) cuts it as it would live: every finished utterance and every first-pause reading
(words in progress at their first 60 ms pause, 0.22 s or longer); a third of the cuts
(most are the same words read at one pause after another) are clips labelled none.
Nothing of bench/speech (its sentences, voices or babble) is used.

``--play`` (seed 5): half of what is said is the game's (claims, calls, names, commands,
passes, counts in the table mix's shares), with 0.7 s around each; a cut holding all of one
phrase and nothing else said is labelled as that phrase, one holding part of it (a claim's
first word at its first pause) is not used, and a tenth of the talk's cuts are kept. Heads
trained on talk alone learned that cut audio is talk and lost the game's phrases under
babble (models/listener.md, v7 and v7b): these teach the cut itself.

Shards ``shard-s{seed}-talk-NNNN.npz`` (``-play-`` with ``--play``), the same format as
:mod:`.data`'s; those whose index ends in 9 are held out like the rest.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.speech.listener.data import (
    CHATTER,
    DATA,
    NOISES,
    SHORT_NEGATIVES,
    SHORT_PHRASES,
    Babble,
    Rooms,
    crowd_line,
    encoded,
    make_noise,
    mic_color,
    rms,
    speak,
    text_for,
    write_shard,
)
from referee.speech.listener.labels import Label
from referee.speech.types import SAMPLE_RATE

STREAM_S = 30.0
#: the share of a stream's cuts kept: a 30 s stream gives 25-75, most of them the same
#: words read at one pause after another, so a shard draws on more streams
KEEP = 0.35
#: ...and of a play stream's talk: its shards are mostly the game's phrases as cut
KEEP_IN_PLAY = 0.1
BACKGROUNDS = ("quiet", "babble", "noise", "babble+noise")
#: play streams (``--play``): the game's phrases said between the talk, in the table mix's
#: shares, with this much quiet (but the room's) before and after each
PLAY_KINDS = ("claim", "call", "pass", "command", "name", "count")
PLAY_WEIGHTS = (0.30, 0.24, 0.04, 0.09, 0.06, 0.03)
PLAY_GAP_S = 0.7


@dataclass(frozen=True)
class Said:
    """A game phrase said in a stream: where (seconds), what, and its label."""

    start: float
    end: float
    text: str
    label: Label


def labelled(cut: Cut, spans: list[Said]) -> Label | None | bool:
    """The label of ``cut``: the phrase's when it holds all of one phrase and nothing else
    said (the pause around a phrase is :data:`PLAY_GAP_S`); None (talk) when it touches no
    phrase; False (not used) when it holds part of one (a claim's first word read at its
    first pause) or a phrase and more."""
    for said in spans:
        if cut.end < said.start or cut.at > said.end:
            continue
        whole = cut.at <= said.start + 0.05 and cut.end >= said.end - 0.05
        alone = cut.at >= said.start - PLAY_GAP_S and cut.end <= said.end + PLAY_GAP_S
        return said.label if whole and alone else False
    return None


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
            self.rooms: Rooms | None = Rooms(root, order=Rooms.LEGACY_ORDER)
        except ImportError:
            print("pyroomacoustics missing: no reverberant rooms", file=sys.stderr)
            self.rooms = None

    def stream(
        self, seed: int, play: bool = False, background: str | None = None
    ) -> tuple[np.ndarray, str, list[Said]]:
        """(audio, background, the game's phrases said in it) of stream ``seed``; with
        ``play``, half of what is said is the game's (:data:`PLAY_KINDS`), each with a pause
        of :data:`PLAY_GAP_S` around it so that the gate can cut it alone. ``background``
        (one of :data:`BACKGROUNDS`) is drawn when not given."""
        rng = random.Random(seed)
        nrng = np.random.default_rng(seed)
        total = int(STREAM_S * SAMPLE_RATE)
        talk = np.zeros(total, np.float32)
        spans: list[Said] = []
        pos = int(rng.uniform(0.0, 2.0) * SAMPLE_RATE)
        while pos < total:
            label = None
            if play and rng.random() < 0.5:
                kind = rng.choices(PLAY_KINDS, PLAY_WEIGHTS)[0]
                text, label = text_for(kind, rng)
                pos += int(PLAY_GAP_S * SAMPLE_RATE)
                if pos >= total:
                    break
            else:
                text = line(rng)
            said, _ = speak(text, rng)
            if self.rooms is not None and rng.random() < 0.3:
                said = self.rooms.apply(said, rng)
            said = said * (0.1 * rng.uniform(0.5, 1.5) / max(rms(said), 1e-6))
            end = min(total, pos + len(said))
            talk[pos:end] += said[: end - pos]
            if label is not None and end < total:
                spans.append(Said(pos / SAMPLE_RATE, end / SAMPLE_RATE, text, label))
            gap = PLAY_GAP_S if label is not None else 0.0
            pos = end + int(max(gap, rng.uniform(0.2, 4.0)) * SAMPLE_RATE)
        background = background or rng.choice(BACKGROUNDS)
        bed = np.zeros(total, np.float32)
        if "babble" in background:
            b = self.babble(total, rng)
            bed += b / max(rms(b), 1e-9)
        if "noise" in background:
            maker = rng.choice(NOISES)
            noise = make_noise(maker, total, nrng)
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
        return np.clip(audio, -1, 1).astype(np.float32), f"{background} {snr:.0f} dB", spans


@dataclass(frozen=True)
class Cut:
    """What the gate hands the recognizer once: speech from ``onset`` (seconds of the
    stream), ``audio`` from ``at`` (its pre-roll first), at a first pause or finished."""

    onset: float
    at: float
    audio: np.ndarray
    how: str  # "pause" or "final"

    @property
    def end(self) -> float:
        return self.at + len(self.audio) / SAMPLE_RATE


def cuts(audio: np.ndarray) -> list[Cut]:
    """What the referee's gate hands the recognizer of ``audio``: each finished utterance
    and each first-pause reading (the recognizer's own pause and length)."""
    from referee.speech.recognizer import EARLY_PAUSE_FRAMES, PARTIAL_MIN_S
    from referee.speech.vad import FRAME, Segmenter

    segmenter = Segmenter()
    out = []
    for i in range(len(audio) // FRAME):
        t = i * FRAME / SAMPLE_RATE
        finished = segmenter.push(t, audio[i * FRAME : (i + 1) * FRAME])
        if finished is not None:
            out.append(_cut(finished, "final"))
            continue
        current = segmenter.current()
        if (
            current is not None
            and segmenter.quiet_frames == EARLY_PAUSE_FRAMES
            and current.end - current.start >= PARTIAL_MIN_S
        ):
            out.append(_cut(current, "pause"))
    return out


def _cut(segment, how: str) -> Cut:
    at = segment.start if segment.audio_start is None else segment.audio_start
    return Cut(segment.start, at, segment.audio, how)


def make_shard(
    talk: Talk, encoder, seed: int, shard: int, size: int, out: Path, play: bool = False
) -> None:
    """Write one shard of ``size`` cut stretches (:data:`KEEP` of each stream's talk; with
    ``play``, every whole phrase too) from streams ``shard*1000 + j``."""
    frames, labels, metas = [], [], []
    j = 0
    while len(labels) < size:
        stream_seed = seed * 1_000_003 + shard * 1000 + j
        j += 1
        audio, background, spans = talk.stream(stream_seed, play=play)
        pick = random.Random(stream_seed)
        for cut in cuts(audio):
            if len(labels) >= size:
                break
            clip, how = cut.audio, cut.how
            label = labelled(cut, spans)
            if label is False or len(clip) < int(0.1 * SAMPLE_RATE):
                continue
            if label is None and pick.random() >= (KEEP_IN_PLAY if play else KEEP):
                continue
            if label is not None and how == "pause" and pick.random() >= 0.5:
                continue  # its final is the same words and a little quiet
            label = label or Label("none")
            frames.append(encoded(encoder, clip))
            labels.append(label)
            text = next((x.text for x in spans if x.label is label), "")
            metas.append({
                "text": text, "voice": f"talk {how}", "background": background,
                "seconds": len(clip) / SAMPLE_RATE, "stream": stream_seed,
                "at": round(cut.onset, 2),
            })  # fmt: skip
    write_shard(out, frames, labels, metas)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.speech.listener.talk")
    parser.add_argument("--shards", type=int, default=10)
    parser.add_argument("--size", type=int, default=250, help="stretches per shard")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DATA)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--play", action="store_true", help="half the phrases the game's, cut and labelled"
    )
    args = parser.parse_args(argv)
    from referee.speech.backends.whisper import WhisperBackend

    args.out.mkdir(parents=True, exist_ok=True)
    talk = Talk(args.out)
    encoder = WhisperBackend(threads=args.threads)
    for shard in range(args.first, args.first + args.shards):
        name = "play" if args.play else "talk"
        path = args.out / f"shard-s{args.seed}-{name}-{shard:04d}.npz"
        if path.is_file():
            continue
        started = time.perf_counter()
        make_shard(talk, encoder, args.seed, shard, args.size, path, args.play)
        took = time.perf_counter() - started
        print(f"{path.name}: {args.size} stretches in {took:.0f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
