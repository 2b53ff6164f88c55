"""``referee listen``: print one JSON object per utterance heard (mic or wav).

referee listen --wav table.wav --players Alice,Ben,Cara --rank-due 7
{"start": 0.52, "end": 1.14, "text": "two sevens", "intent": {"type": "claim", ...}}

With ``--voices NAME`` (a profile from ``referee calibrate voices``) every object also says
who spoke: ``"speaker": "Ben"`` (or null when the voice is not surely one player's).
"""

from __future__ import annotations

import argparse
import json

from referee.game.cards import RANKS
from referee.speech.backends import BACKENDS, DEFAULT_BACKEND


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wav", metavar="FILE", help="listen to a wav file instead of the mic")
    parser.add_argument("--players", default="", help="seated players, comma-separated: A,B,C")
    parser.add_argument(
        "--rank-due", metavar="R", help="the rank a claim must name (A,2..10,J,Q,K)"
    )
    parser.add_argument("--max-count", type=int, default=4, help="most cards in one claim")
    parser.add_argument("--backend", choices=sorted(BACKENDS), default=DEFAULT_BACKEND)
    parser.add_argument("--vosk-model", metavar="DIR", help="Vosk model directory (vosk backend)")
    parser.add_argument("--device", help="microphone: index or part of its name")
    parser.add_argument("--seconds", type=float, help="stop listening to the mic after N seconds")
    parser.add_argument("--profile", metavar="FILE", help="microphone profile (calibrate mic)")
    parser.add_argument(
        "--partials", action="store_true", help="also print calls recognized early (partial)"
    )
    parser.add_argument(
        "--voices", metavar="NAME",
        help="a voice profile (calibrate voices): each utterance says its \"speaker\"",
    )  # fmt: skip


def _rank(value: str | None) -> str | None:
    from referee.errors import UserError
    from referee.intents import RANK_WORDS

    if value is None:
        return None
    rank = value.upper() if value.upper() in RANKS else RANK_WORDS.get(value.lower())
    if rank is None:
        raise UserError(f"--rank-due {value!r} is not a rank; use one of {' '.join(RANKS)}.")
    return rank


def run(args: argparse.Namespace) -> int:
    from referee.errors import UserError, warn
    from referee.speech import profile as mic_profile
    from referee.speech.audio import MicSource, WavSource, recording_problems, watch_levels
    from referee.speech.recognizer import Recognizer
    from referee.speech.vocab import ListenContext

    players = tuple(p.strip() for p in args.players.split(",") if p.strip())
    if args.max_count < 1:
        raise UserError("--max-count must be at least 1.")
    context = ListenContext.for_rank_due(_rank(args.rank_due), players, max_count=args.max_count)
    if args.wav:
        source = WavSource(args.wav)
        for problem in recording_problems(args.wav, source.samples):
            warn(problem)
    else:
        source = watch_levels(MicSource(device=args.device, seconds=args.seconds), warn)
    options = {}
    if args.backend == "vosk":
        options["model_dir"] = args.vosk_model
    elif args.vosk_model:
        raise UserError("--vosk-model only applies with --backend vosk.")
    voices = None
    if args.voices:
        from referee.speech.speakers import AudioTap, SpeakerProfile, VoiceProfileError

        try:
            voices = SpeakerProfile.load(args.voices)
        except VoiceProfileError as err:
            raise UserError(str(err)) from None
        source = AudioTap(source)
    recognizer = Recognizer(
        backend_name=args.backend,
        context=context,
        profile=mic_profile.load(args.profile),
        partials=args.partials,
        **options,
    )
    for heard in recognizer.utterances(source):
        if heard.utterance.partial and not args.partials:
            continue
        if voices is not None:
            from referee.speech.speakers import with_speaker

            heard = with_speaker(heard, voices, source)
        print(json.dumps(heard.to_dict()), flush=True)
    return 0
