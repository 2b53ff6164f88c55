"""Benchmark the speech backends on synthetic and real speech; writes results.md and .json.

    .venv/bin/python -m bench.speech                 # all backends found, ~10 min on 2 cores
    .venv/bin/python -m bench.speech --per-set 32 --backends pocketsphinx   # quick look

Each clip is streamed through the full recognizer (voice activity, early calls, vocabulary
check) exactly as the live referee would hear it. Latency is modelled in audio time: from the
end of the speech to the moment the intent would be known live (decoding time included).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from bench.speech import add_without, corpus, turn_off
from bench.speech.corpus import (
    PLAYERS,
    SHORT_WORDS,
    SynthCache,
    cards_clips,
    real_sets,
    reverberant_sets,
    synthetic_sets,
)
from referee.game.cards import RANKS
from referee.live.calls import acted_on_early
from referee.speech.audio import ArraySource
from referee.speech.recognizer import Recognizer
from referee.speech.vocab import INTENT_TYPES, ListenContext

HERE = Path(__file__).resolve().parent


def context_for(clip) -> ListenContext:
    """What the referee listens for when the clip is said (no phase: everything is legal)."""
    phase = clip.context.get("phase")
    rank_due = clip.context.get("rank_due")
    max_count = clip.context.get("max_count", 4)
    if phase:
        ranks = (rank_due,) if rank_due else RANKS
        return ListenContext.for_phase(phase, PLAYERS, legal_ranks=ranks, max_count=max_count)
    return ListenContext.for_rank_due(rank_due, PLAYERS, max_count=max_count, intents=INTENT_TYPES)


def score_clip(recognizer: Recognizer, clip) -> dict:
    recognizer.set_context(context_for(clip))
    heard = list(recognizer.utterances(ArraySource(clip.audio)))
    # a final with the same onset as an earlier one supersedes it ("cheat" ... "Alice" comes
    # again as one call by Alice), exactly as the live referee takes it
    last = {h.utterance.start: h for h in heard if not h.utterance.partial}
    finals = list(last.values())
    out = {
        "set": clip.set,
        "label": clip.label,
        "heard": [h.to_dict() for h in finals],
        # what the referee acts on: finals, and early calls that named their caller
        # (referee.live.calls.acted_on_early)
        "accepted": bool(finals) or any(acted_on_early(h) for h in heard),
    }
    if clip.expected is None:
        return out
    want = clip.expected
    dicts = [h.intent.to_dict() for h in finals]
    caller = want.get("caller")
    extra = [d for d in dicts if d != want and d != {"type": "name", "name": caller}]
    out["correct"] = want in dicts and not extra
    # known: the first reading the referee would trust (an early reading guessed onto the
    # vocabulary waits for the final)
    trusted = (h for h in heard if not (h.utterance.partial and h.guessed))
    first = next((h for h in trusted if h.intent.to_dict() == want), None)
    if first is not None and clip.speech_end is not None and first.decided_at is not None:
        out["latency"] = first.decided_at - clip.speech_end
    return out


def pct(values: list[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def summarize(rows: list[dict]) -> dict:
    by_set: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_set[row["set"]].append(row)
    sets = {}
    for name, items in by_set.items():
        scored = [r for r in items if "correct" in r]
        if scored:
            sets[name] = {
                "n": len(scored),
                "accuracy": sum(r["correct"] for r in scored) / len(scored),
            }
        elif not name.startswith("real cards"):
            sets[name] = {
                "n": len(items),
                "false_accept": sum(r["accepted"] for r in items) / len(items),
            }
    # the accuracy target names claims and calls: the same sets, those phrases alone
    claims_and_calls = {}
    for name, items in by_set.items():
        scored = [r for r in items if "correct" in r and r["kind"] in ("claim", "call")]
        if scored:
            claims_and_calls[name] = {
                "n": len(scored),
                "accuracy": sum(r["correct"] for r in scored) / len(scored),
            }
    latency: dict[str, dict] = {}
    for kind in ("call", "claim", "all"):
        values = [
            r["latency"] for r in rows if "latency" in r and (kind == "all" or r["kind"] == kind)
        ]
        latency[kind] = {"n": len(values), "p50": pct(values, 50), "p95": pct(values, 95)}
    return {"sets": sets, "claims_and_calls": claims_and_calls, "latency": latency}


def run_backend(name: str, clips, options: dict) -> tuple[dict, list[dict]]:
    started = time.perf_counter()
    recognizer = Recognizer(backend_name=name, warn=lambda m: None, **options)
    load_s = time.perf_counter() - started
    rows = []
    audio_s = 0.0
    recognizer.compute_s = 0.0
    for i, clip in enumerate(clips):
        rows.append(score_clip(recognizer, clip) | {"kind": clip.kind})
        audio_s += len(clip.audio) / 16000
        if (i + 1) % 100 == 0:
            print(f"  {name}: {i + 1}/{len(clips)}", file=sys.stderr, flush=True)
    summary = summarize(rows)
    summary["rtf"] = recognizer.compute_s / audio_s
    summary["load_s"] = load_s
    summary["decode_ms_per_clip"] = 1000 * recognizer.compute_s / len(clips)
    return summary, rows


def fmt(value, percent=False) -> str:
    if value is None:
        return "–"
    return f"{100 * value:.1f}%" if percent else f"{value:.3f}"


def write_report(results: dict, meta: dict, out: Path) -> None:
    backends = list(results)
    set_names = list(dict.fromkeys(s for r in results.values() for s in r["summary"]["sets"]))
    lines = [
        "# Speech benchmark",
        "",
        f"Rerun: `{meta['command']}`",
        "",
        f"Run {meta['date']} on {meta['machine']} ({meta['seconds']:.0f} s). {meta['notes']}",
        "",
        "## Accuracy (game phrases) and false accepts (non-game speech)",
        "",
        "| set | n | " + " | ".join(backends) + " |",
        "|---|---|" + "---|" * len(backends),
    ]
    for s in set_names:
        cells = []
        n = "?"
        for b in backends:
            entry = results[b]["summary"]["sets"].get(s)
            if entry is None:
                cells.append("–")
                continue
            n = entry["n"]
            if "accuracy" in entry:
                cells.append(fmt(entry["accuracy"], True))
            else:
                cells.append("FA " + fmt(entry["false_accept"], True))
        lines.append(f"| {s} | {n} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Claims and calls alone (the phrases the accuracy target names), same clips:",
        "",
        "| set | n | " + " | ".join(backends) + " |",
        "|---|---|" + "---|" * len(backends),
    ]
    cc_sets = list(
        dict.fromkeys(s for r in results.values() for s in r["summary"]["claims_and_calls"])
    )
    for s in cc_sets:
        entries = [results[b]["summary"]["claims_and_calls"].get(s) for b in backends]
        n = next(e["n"] for e in entries if e)
        cells = [fmt(e["accuracy"], True) if e else "–" for e in entries]
        lines.append(f"| {s} | {n} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Latency, end of speech → intent known (seconds, audio time, decoding included)",
        "",
        "| backend | calls p50 | calls p95 | calls n | claims p50 | claims p95 | claims n | "
        "all p95 | RTF | decode ms/clip | load s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for b in backends:
        s = results[b]["summary"]
        lat = s["latency"]
        lines.append(
            f"| {b} | {fmt(lat['call']['p50'])} | {fmt(lat['call']['p95'])} | "
            f"{lat['call']['n']} | {fmt(lat['claim']['p50'])} | {fmt(lat['claim']['p95'])} | "
            f"{lat['claim']['n']} | {fmt(lat['all']['p95'])} | "
            f"{s['rtf']:.3f} | {s['decode_ms_per_clip']:.0f} | {s['load_s']:.1f} |"
        )
    lines += [
        "",
        "With a few dozen calls, p95 lies between the second and third slowest: one more call "
        "read right, or one slow call fewer, moves it. The slowest calls read right:",
        "",
    ]
    for b in backends:
        slowest = sorted(
            (r for r in results[b]["rows"] if "latency" in r and r["kind"] == "call"),
            key=lambda r: r["latency"],
        )[-3:]
        said = "; ".join(f"`{r['label']}` ({r['set']}) {r['latency']:.2f} s" for r in slowest)
        lines.append(f"- {b}: {said or 'none'}")
    lines += ["", "## Real card phrases (pocketsphinx test data), as heard", ""]
    lines += ["| clip | " + " | ".join(backends) + " |", "|---|" + "---|" * len(backends)]
    cards = [r for r in next(iter(results.values()))["rows"] if r["set"].startswith("real cards")]
    for row in cards:
        cells = []
        for b in backends:
            match = next(r for r in results[b]["rows"] if r["label"] == row["label"])
            cells.append("; ".join(h["text"] for h in match["heard"]) or "(nothing)")
        lines.append(f"| {row['label']} | " + " | ".join(cells) + " |")
    lines += ["", "## Misses (first 12 per backend and set)", ""]
    for b in backends:
        lines.append(f"### {b}")
        lines.append("")
        count: dict[str, int] = defaultdict(int)
        for r in results[b]["rows"]:
            wrong = r.get("correct") is False or (
                "correct" not in r and r["accepted"] and not r["set"].startswith("real cards")
            )
            if wrong and count[r["set"]] < 12:
                count[r["set"]] += 1
                heard = "; ".join(f"{h['text']!r}→{h['intent']}" for h in r["heard"]) or "nothing"
                lines.append(f"- {r['set']}: `{r['label']}` heard {heard}")
        lines.append("")
    out.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.speech", description=__doc__)
    parser.add_argument("--backends", default="whisper,whisper-constrained,pocketsphinx")
    parser.add_argument("--vosk-model", help="score Vosk too, with this (English) model")
    parser.add_argument("--per-set", type=int, default=96, help="synthetic clips per set")
    parser.add_argument("--real-limit", type=int, default=0, help="subsample real clips (0: all)")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=HERE / "results.md")
    parser.add_argument("--only", help="score only the sets whose name holds this (e.g. reverb)")
    parser.add_argument("--room-order", type=int, default=None,
                        help="the reverberant rooms' image-source order (default: all their "
                        "RT60 asks for; 12: the rooms as made until 2026-12-07, tails of "
                        "0.12-0.28 s)")  # fmt: skip
    add_without(parser)
    args = parser.parse_args(argv)
    turn_off(parser, args.without)
    corpus.ROOM_ORDER = args.room_order
    from platformdirs import user_cache_dir

    cache = SynthCache(args.cache or Path(user_cache_dir("referee")) / "bench-speech")
    started = time.perf_counter()
    print("building corpus...", file=sys.stderr, flush=True)
    clips = synthetic_sets(cache, args.per_set) + reverberant_sets(cache, args.per_set)
    real = real_sets()
    if args.real_limit:
        real = real[:: max(1, len(real) // args.real_limit)]
    clips += real + cards_clips()
    if args.only:
        clips = [c for c in clips if args.only in c.set]
    print(f"corpus: {len(clips)} clips in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    names = [b for b in args.backends.split(",") if b]
    if args.vosk_model:
        names.append("vosk")
    results = {}
    for name in names:
        options = {"model_dir": args.vosk_model} if name == "vosk" else {}
        summary, rows = run_backend(name, clips, options)
        results[name] = {"summary": summary, "rows": rows}
        print(json.dumps({name: summary}, indent=1), file=sys.stderr)
    command = "python -m bench.speech " + " ".join(argv if argv is not None else sys.argv[1:])
    notes = (
        f"{args.per_set} synthetic clips per set (espeak-ng, 9 voices x 4 speeds x 3 pitches); "
        "real noise beds from noise_speechcommands_bg; babble = 3 espeak talkers; short words: "
        f"{len(SHORT_WORDS)} short non-game words and phrases; reverb: the clean and babble "
        "phrases drawn anew in 16 reverberant rooms (pyroomacoustics, RT60 0.3-0.7 s, talker "
        "0.8-1.5 m from a laptop on a table; not the listener's training rooms; "
        + (
            f"image order capped at {args.room_order}"
            if args.room_order
            else "every image order the RT60 asks for, the tail kept 0.8 s"
        )
        + "). Context: "
        f"players {', '.join(PLAYERS)}, rank due known (the claim's rank for claims), max count 4; "
        "each phrase heard in the phase the live referee would be in (claims, calls, passes, "
        "commands and table chatter during play; names when asking who called); the bare count, "
        'the short words once more ("all legal") and the real recordings with everything '
        "legal (max count 9). "
        "No English Vosk model exists here, so Vosk is not scored "
        "unless --vosk-model is given."
    )
    meta = {
        "command": command.strip(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, 2 shared cores",
        "seconds": time.perf_counter() - started,
        "notes": notes,
    }
    write_report(results, meta, args.out)
    args.out.with_suffix(".json").write_text(
        json.dumps({"meta": meta, **{b: r["summary"] for b, r in results.items()}}, indent=1)
    )
    print(f"wrote {args.out}", file=sys.stderr)
    return 0
