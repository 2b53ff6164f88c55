"""Where a claim's confirmation time goes in the live loop (``python -m bench.live.latency``).

A table of espeak voices says claims and calls into the real recognizer (whisper tiny.en),
call assembler, session and engine (``LiveReferee``, fed in lockstep as ``--audio`` is). For
each line it notes, in audio time after the words end:

* ``heard``: the first reading of what the final reads that the referee could trust (what
  ``bench/speech`` reports as latency: decoding time included, as ``decided_at`` models
  it live);
* ``final``: the final reading of the same words, when one came (the endpoint: the voice
  gate's hangover after the words, and a second decode when the early reading was not at
  the first pause; none once the referee, answering the early reading, shut its ears);
* ``said``: when the loop announced it (``t`` of the confirmation or the call's answer).

``said - heard`` is the loop's own share; the rest is the recognizer's and the machine's
(decoding on a loaded machine is slower, for both alike). Writes bench/live/latency.json and
prints a summary; about a minute.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from referee.game.rules import Rules
from referee.live.loop import LiveReferee
from referee.session import Session
from referee.speech import make_recognizer
from referee.speech.audio import ArraySource
from referee.speech.synth import synthesize

PLAYERS = ("Alice", "Ben", "Cara")
#: (who, what): the claims follow the rank order; the call is Cara's, named in the words
LINES = [("Alice", "two aces"), ("Ben", "one two"), ("Cara", "three threes"),
         ("Alice", "two fours"), ("Ben", "three fives"), ("Cara", "two sixes"),
         ("Alice", "two sevens"), ("Ben", "cheat, Ben!")]  # fmt: skip
VOICES = {"Alice": ("en-us+f3", 60), "Ben": ("en-gb", 45), "Cara": ("en-gb+f3", 70)}
GAP_S = 7.0  # each line this long after the last began (the referee has finished by then)


def table() -> tuple[np.ndarray, list[float], list[float]]:
    starts, ends, parts = [], [], []
    t = 6.0
    for who, text in LINES:
        voice, pitch = VOICES[who]
        samples = synthesize(text, voice=voice, speed=150, pitch=pitch)
        loud = np.flatnonzero(np.abs(samples) > 0.02)
        starts.append(t)
        ends.append(t + (loud[-1] if len(loud) else len(samples)) / 16_000)
        parts.append((t, samples))
        t += GAP_S
    audio = np.random.default_rng(0).normal(0, 0.002, int((t + 4) * 16_000)).astype(np.float32)
    for start, samples in parts:
        i = int(start * 16_000)
        audio[i : i + len(samples)] += samples
    return audio, starts, ends


def run() -> dict:
    audio, starts, ends = table()
    with tempfile.TemporaryDirectory() as folder:
        session = Session.start(PLAYERS, Rules(), Path(folder) / "journal.jsonl")
        said: list[tuple[str, float, str]] = []
        heard: list = []
        recognizer = make_recognizer(None)
        feed = recognizer.feed

        def noted(chunk):
            out = feed(chunk)
            heard.extend(out)
            return out

        recognizer.feed = noted
        referee = LiveReferee(session, recognizer, ArraySource(audio),
                              on_say=lambda a, at: said.append((a.kind, at, a.text)))  # fmt: skip
        referee.run()
        session.close()
    rows = []
    for (who, text), start, end in zip(LINES, starts, ends, strict=True):
        mine = [h for h in heard if start - 0.3 <= h.utterance.start <= end]
        finals = [h for h in mine if not h.utterance.partial]
        acted = [a["intent"] for a in referee.heard_log if start - 0.3 <= a["start"] <= end]
        meant = acted[0] if acted else None
        trusted = [
            h for h in mine
            if h.intent.to_dict() == meant and not (h.utterance.partial and h.guessed)
        ]  # fmt: skip
        answers = [
            at for kind, at, _ in said if kind in ("claim", "call") and start <= at <= start + GAP_S
        ]
        row = {"line": text, "who": who}
        if trusted:
            row["heard"] = round(trusted[0].decided_at - end, 3)
        if finals:
            row["final"] = round(finals[0].decided_at - end, 3)
        if answers:
            row["said"] = round(answers[0] - end, 3)
        rows.append(row)
    loop = [r["said"] - r["heard"] for r in rows if "said" in r and "heard" in r]
    summary = {
        "lines": len(rows),
        "answered": sum("said" in r for r in rows),
        "heard_p50": _pct([r["heard"] for r in rows if "heard" in r], 50),
        "said_p50": _pct([r["said"] for r in rows if "said" in r], 50),
        "loop_share_p50": _pct(loop, 50),
        "loop_share_max": round(max(loop), 3) if loop else None,
        "decode_s_total": round(recognizer.compute_s, 2),
    }
    return {
        "summary": summary,
        "rows": rows,
        "said": [(round(at, 2), text) for _, at, text in said],
    }


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


def main() -> int:
    result = run()
    out = Path(__file__).with_name("latency.json")
    out.write_text(json.dumps(result, indent=1) + "\n")
    for row in result["rows"]:
        print(row)
    print(json.dumps(result["summary"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
