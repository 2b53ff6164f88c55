"""Where the voice gate cuts a player's words, against where the words are (issue 21, item 4).

    nice -n 10 .venv/bin/python -m bench.speech.segments --clips 64 --out bench/speech

espeak-ng's voices say the game's claims and calls (bench/speech's phrases) with the room
going on 1.5 s before and 2.0 s after them: clean, 20 and 10 dB kitchen noise, 15 and 10 dB
babble of three other talkers. The words' onset and end are found in the clean speech
(frames within 35 dB of its loudest 20 ms); the segment scored is the one that overlaps
them most, cut by :class:`referee.speech.vad.Segmenter` with the default microphone profile
and, beside it, with the words-relative end rule off (``words_drop_db=0``, the gate before
it). Per condition: segments that start / end / both within 0.1 s of the words, how late
they end (p50 / p90) and when the gate closes after the words (what a final reading and a
bare call wait for), words cut in two or more segments, and words not heard at all. No
decoding: a few seconds a hundred clips.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.speech import corpus
from referee.speech.profile import DEFAULT, MicProfile
from referee.speech.types import SAMPLE_RATE
from referee.speech.vad import FRAME, Segmenter, level_db

CONDITIONS = ("clean", "noise 20 dB", "noise 10 dB", "babble 15 dB", "babble 10 dB")
PHRASES = [p for p in corpus.GAME_PHRASES if p[2] in ("claim", "call")]
LEAD_S, TAIL_S = 1.5, 2.0
WITHIN_S = 0.1
CACHE = Path.home() / ".cache" / "referee-bench" / "espeak"
GATES = {"words-relative end (default)": DEFAULT, "gate alone": replace(DEFAULT, words_drop_db=0)}


def words_span(speech: np.ndarray, drop_db: float = 35.0) -> tuple[float, float]:
    """(onset, end) seconds of the words in clean ``speech``."""
    n = len(speech) // FRAME
    db = np.array([level_db(speech[i * FRAME : (i + 1) * FRAME]) for i in range(n)])
    loud = np.flatnonzero(db >= db.max() - drop_db)
    return float(loud[0] * FRAME / SAMPLE_RATE), float((loud[-1] + 1) * FRAME / SAMPLE_RATE)


def clips(n: int, seed: int, cache: corpus.SynthCache):
    """(condition, text, audio, onset, end) for ``n`` clips per condition."""
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    beds = corpus.load_noise_beds()
    for condition in CONDITIONS:
        for i in range(n):
            text = PHRASES[i % len(PHRASES)][0]
            voice = rng.choice(corpus.VOICES)
            speed, pitch = rng.choice(corpus.SPEEDS), rng.choice(corpus.PITCHES)
            speech = cache.get(text, voice, speed, pitch)
            audio, _ = corpus.place(speech, lead_s=LEAD_S, tail_s=TAIL_S)
            onset, end = words_span(audio)
            snr = int(condition.split()[1]) if condition != "clean" else None
            if condition.startswith("noise"):
                audio = corpus.mix(audio, beds[rng.choice(corpus.NOISE_BEDS)], snr, 0.1, nrng)
            elif condition.startswith("babble"):
                bed = corpus.babble(cache, rng, len(audio) / SAMPLE_RATE + 1)
                audio = corpus.mix(audio, bed, snr, 0.1, nrng)
            yield condition, f"{text} [{voice} s{speed} p{pitch}]", audio, onset, end


def cut(audio: np.ndarray, profile: MicProfile) -> list[tuple[float, float, float]]:
    """(start, end, closed at) of every segment the gate cuts in ``audio``."""
    seg = Segmenter(profile)
    found = []
    for i in range(len(audio) // FRAME):
        t = i * FRAME / SAMPLE_RATE
        s = seg.push(t, audio[i * FRAME : (i + 1) * FRAME])
        if s is not None:
            found.append((s.start, s.end, t + FRAME / SAMPLE_RATE))
    current = seg.current()
    if current is not None:
        found.append((current.start, current.end, len(audio) / SAMPLE_RATE))
    return found


def touching(segments, onset: float, end: float) -> list:
    """The segments that overlap the words from ``onset`` to ``end``, the one overlapping
    them most first (the earliest of equals)."""

    def overlap(s):
        return min(s[1], end) - max(s[0], onset)

    found = [s for s in segments if overlap(s) > 0]
    if found:
        best = max(found, key=overlap)
        found.remove(best)
        found.insert(0, best)
    return found


def score(segments, onset: float, end: float) -> dict:
    found = touching(segments, onset, end)
    if not found:
        return {"heard": False}
    best = found[0]
    return {
        "heard": True,
        "start_error": best[0] - onset,
        "end_error": best[1] - end,
        "closed_after": best[2] - end,
        "pieces": len(found),
    }


def pct(xs, q):
    return float(np.percentile(xs, q)) if xs else float("nan")


def run(n: int, seed: int) -> dict:
    cache = corpus.SynthCache(CACHE)
    rows: dict[str, dict[str, list]] = {g: {c: [] for c in CONDITIONS} for g in GATES}
    for condition, _label, audio, onset, end in clips(n, seed, cache):
        for gate, profile in GATES.items():
            rows[gate][condition].append(score(cut(audio, profile), onset, end))
    summary: dict[str, dict[str, dict]] = {}
    for gate, by_condition in rows.items():
        summary[gate] = {}
        for condition, scores in by_condition.items():
            heard = [s for s in scores if s["heard"]]
            starts = [abs(s["start_error"]) <= WITHIN_S for s in heard]
            ends = [abs(s["end_error"]) <= WITHIN_S for s in heard]
            late = [s["end_error"] for s in heard]
            closed = [s["closed_after"] for s in heard]
            summary[gate][condition] = {
                "clips": len(scores),
                "unheard": len(scores) - len(heard),
                "start within": int(sum(starts)),
                "end within": int(sum(ends)),
                "both within": int(sum(a and b for a, b in zip(starts, ends, strict=True))),
                "start early p50": -pct([s["start_error"] for s in heard], 50),
                "end late p50": pct(late, 50),
                "end late p90": pct(late, 90),
                "closed after p50": pct(closed, 50),
                "closed after p90": pct(closed, 90),
                "cut in pieces": sum(s["pieces"] > 1 for s in heard),
            }
    return summary


def report(summary: dict, meta: dict) -> str:
    lines = [
        "# Where the voice gate cuts the words (bench/speech/segments.py)",
        "",
        f"Rerun: `{meta['command']}` (at {meta['rev']}). {meta['clips']} clips a condition "
        f"(claims and calls, espeak-ng voices), {LEAD_S} s of the room before the words and "
        f"{TAIL_S} s after. Within: {WITHIN_S} s of the words' onset or end (found in the "
        "clean speech). Closed after: from the end of the words to the gate closing (what a "
        "final reading, and a bare call's wait for a name, begin from).",
        "",
    ]
    for gate, by_condition in summary.items():
        lines += [
            f"## {gate}",
            "",
            "| condition | start within | end within | both | start early p50 (s) | "
            "end late p50 / p90 (s) | closed after p50 / p90 (s) | cut in pieces | unheard |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for condition, r in by_condition.items():
            heard = r["clips"] - r["unheard"]

            def share(k, r=r, heard=heard):
                return f"{r[k]}/{heard} ({100 * r[k] / max(heard, 1):.0f}%)"

            lines.append(
                f"| {condition} | {share('start within')} | {share('end within')} | "
                f"{share('both within')} | {r['start early p50']:.2f} | "
                f"{r['end late p50']:.2f} / {r['end late p90']:.2f} | "
                f"{r['closed after p50']:.2f} / {r['closed after p90']:.2f} | "
                f"{r['cut in pieces']} | {r['unheard']} |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clips", type=int, default=64, help="clips per condition")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--out", type=Path, help="write segments.md/.json here")
    args = parser.parse_args(argv)
    summary = run(args.clips, args.seed)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True, cwd=Path(__file__).parent).stdout.strip()  # fmt: skip
    command = "python -m bench.speech.segments " + " ".join(argv or sys.argv[1:])
    meta = {"rev": rev, "command": command, "clips": args.clips}
    text = report(summary, meta)
    print(text)
    if args.out:
        (args.out / "segments.md").write_text(text)
        (args.out / "segments.json").write_text(json.dumps(summary | {"meta": meta}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
