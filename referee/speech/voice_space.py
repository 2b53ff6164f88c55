"""Make ``models/voice_space.npy``: the space the table's voices are compared in.

resemblyzer's embedding was trained to tell people apart in general; at a card table most of
what moves it from one utterance to the next is not who speaks but what is said ("cheat!"
against a name) and the room (babble under the words). This module measures that: many
voices (espeak-ng voice strings at their own pitch, piper's Joe at his pitch factors), each
saying a name, "cheat", claims and calls, clean and under the listener's own babble at
5-15 dB; the within-voice scatter of their embeddings is the part a voiceprint should not
listen to. :func:`fit` returns the matrix that whitens it, shrunk towards the identity
(``SHRINK``). Fully whitened (or LDA on these voices) the synthetic tables gained and the
real voices of ``bench/speech/voices.py`` lost (nearest voice right, 6 speakers, 3 samples:
80 -> 73%): these voices are not people. ``SHRINK`` was chosen on the bench's tuning draw
(seed 5, nearest voice right, 4 and 8 players, clean and babble: 0.5 86.7%, 1 88.7%,
2 89.8%, 4 90.5%, 8 90.5%, none 89.5%); the bench's scored draws and the real voices are the
check (``bench/speech/voices.md`` against ``voices-flat.md``).
:func:`referee.speech.speakers.table_scores` applies it.

    nice -n 19 .venv/bin/python -m referee.speech.voice_space     # ~4 min on 2 cores (resumable)

Only the bench's and the room tables' voices are left out (a test checks it); nothing is
read from ``../shared/data``. Needs the ``[dev]`` extra (piper) and espeak-ng; the referee at
the table only reads the matrix.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np

from referee.paths import MODELS_DIR

OUT = MODELS_DIR / "voice_space.npy"
#: the within-voice covariance is mixed with this many times its mean variance on the
#: diagonal before it is whitened: 0 whitens fully (bench/speech/voices.py: real voices
#: lost), large leaves the embedding as it was (see the module docstring)
SHRINK = 4.0
#: voices of bench/speech/voices.py (players and strangers) and of the room tables
#: (tests/table.py): never used here
HELD_OUT = frozenset(
    {"en-us+f3", "en-gb+m3", "en-gb-scotland+m7", "en-us+Annie", "en-us+Andy", "en-029+f5",
     "en-gb-x-rp+Gene", "en-us+m1", "en-gb+f2"}
)  # fmt: skip
#: bases of the room tables' strangers (tests/table.py): none of their variants either
HELD_OUT_BASES = ("en-gb-scotland+", "en-us-nyc+", "en-029+")


def training_voices() -> list[str]:
    """The espeak-ng voice strings the space is measured on."""
    from referee.speech.listener.data import ESPEAK_VOICES

    return [v for v in ESPEAK_VOICES if v not in HELD_OUT and not v.startswith(HELD_OUT_BASES)]


def embeddings(seed: int, voices: int, log=print) -> tuple[np.ndarray, np.ndarray]:
    """(embeddings, voice index) of ``voices`` voices, 8 utterances each, clean and under
    babble (16 embeddings a voice)."""
    from referee.speech import speakers
    from referee.speech.listener import data as d
    from referee.speech.listener.labels import FIRST_NAMES

    rng = random.Random(seed)
    pool = training_voices()
    calls = [t for said in d.CALLS_SAID.values() for t in said]
    babble = d.Babble(d.DATA)
    xs, ys = [], []
    for k in range(voices):
        if rng.random() < 0.15:
            factor = rng.uniform(0.8, 1.3)

            def say(text: str, factor: float = factor) -> np.ndarray:
                return d.say_piper(text, factor, rng, length=(0.85, 1.3))
        else:
            voice, pitch = rng.choice(pool), rng.randint(15, 90)

            def say(text: str, voice: str = voice, pitch: int = pitch) -> np.ndarray:
                jitter = max(0, min(99, pitch + rng.randint(-4, 4)))
                return d.say_espeak(text, voice, rng.randint(130, 230), jitter)

        texts = [rng.choice(FIRST_NAMES), "cheat", d.claim_text(rng)[0], *rng.sample(calls, 3),
                 d.claim_text(rng)[0], rng.choice(FIRST_NAMES)]  # fmt: skip
        for text in texts:
            speech = say(text)
            speech = speech * (0.1 / max(d.rms(speech), 1e-6))
            pad = np.zeros(int(0.3 * 16000), np.float32)
            clip = np.concatenate([pad, speech, pad]).astype(np.float32)
            bed = babble(len(clip), rng)
            snr = rng.uniform(5, 15)
            loud = clip + bed * (0.1 / max(d.rms(bed), 1e-9) / 10 ** (snr / 20))
            for audio in (clip, loud.astype(np.float32)):
                xs.append(speakers.embed(audio, core=True))
                ys.append(k)
        if k % 20 == 0:
            log(f"voice {k}/{voices}")
    return np.array(xs, np.float32), np.array(ys)


def fit(x: np.ndarray, y: np.ndarray, shrink: float = SHRINK) -> np.ndarray:
    """The (256, 256) matrix ``W`` (symmetric) with ``W C W = I`` for ``C`` the within-voice
    covariance of ``x`` (rows by voice ``y``) shrunk towards its mean variance."""
    scatter = np.zeros((x.shape[1], x.shape[1]))
    for voice in np.unique(y):
        own = x[y == voice]
        own = own - own.mean(axis=0)
        scatter += own.T @ own
    scatter /= len(x)
    scatter += shrink * np.trace(scatter) / len(scatter) * np.eye(len(scatter))
    values, vectors = np.linalg.eigh(scatter)
    whiten = vectors @ np.diag(values**-0.5) @ vectors.T
    return (whiten / np.linalg.norm(whiten, 2)).astype(np.float32)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m referee.speech.voice_space", description=__doc__
    )
    parser.add_argument("--seeds", default="1,2", help="one draw of voices per seed")
    parser.add_argument("--voices", type=int, default=200, help="voices per seed")
    parser.add_argument("--shrink", type=float, default=SHRINK)
    parser.add_argument("--cache", type=Path, default=Path("data/voice-space"),
                        help="each seed's embeddings are kept here (resumable)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    xs, ys = [], []
    t0 = time.time()
    for n, seed in enumerate(int(s) for s in args.seeds.split(",")):
        path = args.cache / f"seed{seed}-{args.voices}.npz"
        if not path.is_file():
            x, y = embeddings(seed, args.voices)
            np.savez(path, x=x, y=y)
        with np.load(path) as f:
            xs.append(f["x"])
            ys.append(f["y"] + 100_000 * n)
    x, y = np.concatenate(xs), np.concatenate(ys)
    np.save(args.out, fit(x, y, args.shrink))
    print(f"{args.out}: {len(np.unique(y))} voices, {len(x)} utterances, {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
