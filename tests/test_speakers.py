"""Who spoke: the voice encoder under onnxruntime, voice profiles, ``calibrate voices`` and
``listen --voices``."""

from __future__ import annotations

import copy
import json
import wave
from pathlib import Path

import numpy as np
import pytest

from referee.cli import main
from referee.intents import Intent
from referee.speech import speakers
from referee.speech.audio import ArraySource, write_wav
from referee.speech.synth import espeak_available, synthesize
from referee.speech.types import SAMPLE_RATE, Heard, Utterance

needs_espeak = pytest.mark.skipif(not espeak_available(), reason="espeak-ng not installed")

#: three players whose synthetic voices differ plainly (voice variant and pitch)
VOICES = {"Alice": ("en-us+f3", 75), "Ben": ("en-gb+m3", 30), "Cara": ("en-us+Andy", 60)}


def say(player: str, text: str, speed: int = 160) -> np.ndarray:
    voice, pitch = VOICES[player]
    s = synthesize(text, voice=voice, pitch=pitch, speed=speed)
    return (s * (0.1 / np.sqrt(np.mean(s**2)))).astype(np.float32)


def quiet(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SAMPLE_RATE), np.float32)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory) -> Path:
    """DIR/<Player>-<N>.wav: each player's name, "cheat" and a claim, at 44.1 kHz stereo
    for one of them (any rate and channels stand in for the microphone)."""
    if not espeak_available():
        pytest.skip("espeak-ng not installed")
    folder = tmp_path_factory.mktemp("voices")
    for player in VOICES:
        for n, text in enumerate((player, "cheat", "two aces"), 1):
            audio = np.concatenate([quiet(0.3), say(player, text, 150 + 20 * n), quiet(0.3)])
            path = folder / f"{player}-{n}.wav"
            if player == "Ben":
                _write_stereo_44k(path, audio)
            else:
                write_wav(path, audio)
    return folder


def _write_stereo_44k(path: Path, audio: np.ndarray) -> None:
    from referee.speech.audio import resample

    up = resample(audio, SAMPLE_RATE, 44100)
    pcm = (np.clip(np.stack([up, up], axis=1), -1, 1) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(44100)
        w.writeframes(pcm.tobytes())


@pytest.fixture(scope="module")
def profile(recordings) -> speakers.SpeakerProfile:
    samples, problems = speakers.load_samples(recordings, list(VOICES))
    assert problems == []
    return speakers.SpeakerProfile.enroll("table", samples)


# ------------------------------------------------------------------ features and encoder


def test_mel_features_match_librosa():
    librosa = pytest.importorskip("librosa", reason="librosa not installed (pip install .[train])")
    rng = np.random.default_rng(0)
    wav = (rng.normal(0, 0.05, 12_345) * np.sin(np.arange(12_345) / 50)).astype(np.float32)
    ref = librosa.feature.melspectrogram(y=wav, sr=16000, n_fft=400, hop_length=160, n_mels=40)
    ours = speakers.mel_spectrogram(wav)
    assert ours.shape == ref.T.shape
    np.testing.assert_allclose(ours, ref.T, rtol=1e-3, atol=1e-6 * float(ref.max()))


@needs_espeak
def test_onnx_encoder_matches_resemblyzer():
    pytest.importorskip("torch", reason="torch not installed (pip install .[train])")
    try:
        from resemblyzer import VoiceEncoder
    except ImportError as err:  # resemblyzer, or its webrtcvad/librosa
        pytest.skip(f"resemblyzer not usable here ({err}); pip install .[train]")
    reference = VoiceEncoder(device="cpu", verbose=False)
    clips = [say("Alice", "cheat"), say("Ben", "two aces please"), say("Cara", "Cara")]
    clips.append(np.concatenate([say("Ben", "I doubt it, that was never three kings")] * 2))
    for clip in clips:  # the long one has several 1.6 s partials
        wav = speakers.normalize_volume(clip)
        ours = speakers.encoder().embed(wav)
        theirs = reference.embed_utterance(wav)
        assert float(ours @ theirs) > 0.99


def test_voiced_core_keeps_the_loud_words():
    rng = np.random.default_rng(1)
    words = rng.normal(0, 0.1, SAMPLE_RATE).astype(np.float32)
    hum = rng.normal(0, 0.003, SAMPLE_RATE // 2).astype(np.float32)  # 30 dB below
    core = speakers.voiced_core(np.concatenate([hum, words, hum]))
    assert SAMPLE_RATE <= len(core) <= SAMPLE_RATE + 2 * speakers.CORE_FRAME
    short = np.concatenate([hum, words[:800], hum])  # too little voice: all of it is kept
    assert len(speakers.voiced_core(short)) == len(short)


# ------------------------------------------------------------------ identify


@needs_espeak
def test_identify_names_each_enrolled_player(profile):
    for player in VOICES:
        name, score = profile.identify(say(player, "cheat!", speed=185))
        assert name == player, (player, name, score)
        assert score >= profile.decision[0]


@needs_espeak
def test_identify_at_any_rate_and_with_silence_around(profile):
    from referee.speech.audio import resample

    clip = np.concatenate([quiet(0.5), say("Ben", "liar!"), quiet(0.5)])
    assert profile.identify(resample(clip, SAMPLE_RATE, 48000), 48000)[0] == "Ben"


@needs_espeak
def test_identify_is_unsure_of_too_little_or_a_strict_margin(profile):
    assert profile.identify(quiet(0.05)) == (None, 0.0)
    strict = speakers.SpeakerProfile("strict", profile.players, threshold=1.01)
    name, score = strict.identify(say("Alice", "cheat!"))
    assert name is None and 0 < score <= 1


@needs_espeak
def test_profile_round_trip(profile, tmp_path):
    path = profile.save(tmp_path / "table")
    data = json.loads(path.read_text())
    assert data["version"] == speakers.PROFILE_VERSION and data["kind"] == "referee voice profile"
    assert [p["name"] for p in data["players"]] == list(VOICES)
    assert (tmp_path / "table" / "samples" / "Ben-3.wav").is_file()
    again = speakers.SpeakerProfile.load(tmp_path / "table")
    assert again.names == profile.names
    assert again.threshold == profile.threshold and again.margin == profile.margin
    for a, b in zip(again.players, profile.players, strict=True):
        assert float(a.voiceprint @ b.voiceprint) > 0.9999
        assert len(a.samples) == 3
    clip = say("Cara", "bullshit!")
    (name, score), (name0, score0) = again.identify(clip), profile.identify(clip)
    assert name == name0 == "Cara" and score == pytest.approx(score0, abs=1e-4)


def test_load_says_what_is_wrong(tmp_path, monkeypatch):
    monkeypatch.setenv(speakers.ENV_VAR, str(tmp_path))
    with pytest.raises(speakers.VoiceProfileError, match="calibrate voices"):
        speakers.SpeakerProfile.load("nobody")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "profile.json").write_text("{not json")
    with pytest.raises(speakers.VoiceProfileError, match="damaged"):
        speakers.SpeakerProfile.load("bad")
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "profile.json").write_text(json.dumps({"version": 99, "players": []}))
    with pytest.raises(speakers.VoiceProfileError, match="newer"):
        speakers.SpeakerProfile.load("new")


# ------------------------------------------------------------------ the live path


def test_heard_says_speaker_only_when_voices_were_asked():
    heard = Heard(Utterance(1.0, 1.5, "cheat"), Intent("call"))
    assert "speaker" not in heard.to_dict()
    unsure = Heard(heard.utterance, heard.intent, speaker=None, speaker_score=0.41)
    assert unsure.to_dict()["speaker"] is None
    sure = Heard(heard.utterance, heard.intent, speaker="Ben", speaker_score=0.8)
    assert sure.to_dict()["speaker"] == "Ben"


def test_audio_tap_gives_back_the_stretch_asked_for():
    samples = np.arange(SAMPLE_RATE * 2, dtype=np.float32)
    tap = speakers.AudioTap(ArraySource(samples))
    assert len(list(tap)) == 100
    got = tap.samples(0.5, 0.75)
    assert len(got) == SAMPLE_RATE // 4 and got[0] == SAMPLE_RATE // 2
    short = speakers.AudioTap(ArraySource(samples), keep_s=0.5)
    list(short)
    assert len(short.samples(0.0, 0.5)) == 0  # long gone
    assert len(short.samples(1.6, 2.0)) == int(0.4 * SAMPLE_RATE)


@needs_espeak
def test_attach_credits_each_utterance_to_its_voice(profile):
    audio = np.concatenate([quiet(0.5), say("Ben", "cheat!"), quiet(0.6), say("Alice", "liar!"),
                            quiet(0.5)])  # fmt: skip
    tap = speakers.AudioTap(ArraySource(audio))

    def heard_stream():  # stands in for the recognizer: pulls the audio, then hears
        for _ in tap:
            pass
        ben_end = 0.5 + len(say("Ben", "cheat!")) / SAMPLE_RATE
        yield Heard(Utterance(0.5, ben_end, "cheat"), Intent("call"))
        yield Heard(
            Utterance(ben_end + 0.6, len(audio) / SAMPLE_RATE - 0.5, "liar"), Intent("call")
        )

    out = list(speakers.attach(heard_stream(), profile, tap))
    assert [h.speaker for h in out] == ["Ben", "Alice"]
    assert all(h.speaker_score is not None for h in out)


class PushRecognizer:
    """Stands in for the live referee's recognizer: hears "cheat" when the audio ends."""

    def __init__(self, end: float):
        self.end, self.muted, self.started = end, None, 0

    def start(self) -> None:
        self.started += 1

    def mute(self, until: float) -> None:
        self.muted = until

    def feed(self, chunk) -> list[Heard]:
        if abs(chunk.end - self.end) < 1e-6:
            return [Heard(Utterance(0.5, self.end - 0.5, "cheat", partial=True), Intent("call")),
                    Heard(Utterance(0.5, self.end - 0.5, "cheat"), Intent("call"))]  # fmt: skip
        return []

    def finish(self) -> list[Heard]:
        return []

    def utterances(self, source):  # the pull interface (`listen`)
        for chunk in source:
            yield from self.feed(chunk)


@needs_espeak
def test_voiced_recognizer_says_who_called_through_the_push_interface(profile):
    audio = np.concatenate([quiet(0.5), say("Cara", "I doubt it"), quiet(0.5)])
    inner = PushRecognizer(len(audio) / SAMPLE_RATE)
    rec = speakers.VoicedRecognizer(inner, copy.deepcopy(profile))  # it will learn
    rec.start()
    rec.mute(3.0)  # passed through
    heard = [h for chunk in ArraySource(audio) for h in rec.feed(chunk)] + rec.finish()
    assert inner.started == 1 and inner.muted == 3.0
    assert [(h.utterance.partial, h.speaker) for h in heard] == [(True, "Cara"), (False, "Cara")]
    # the loop tells it whose an utterance was (a claim taken): its voice is learned
    cara = next(p for p in rec.profile.players if p.name == "Cara")
    was = len(cara.learned)
    assert rec.learn_voice(heard[-1], "Cara") and len(cara.learned) == was + 1
    stranger = Heard(Utterance(9.0, 9.5, "two aces"), Intent("claim", count=2, rank="A"))
    assert not rec.learn_voice(stranger, "Cara")  # never heard: no voice to learn


@needs_espeak
def test_a_voice_that_cannot_be_told_leaves_the_ears_hearing(profile, monkeypatch, capsys):
    """The voice encoder failing mid-game (say, the onnxruntime session breaking) costs the
    speaker, once said, never the words heard."""
    audio = np.concatenate([quiet(0.5), say("Cara", "I doubt it"), quiet(0.5)])
    rec = speakers.VoicedRecognizer(PushRecognizer(len(audio) / SAMPLE_RATE), profile)

    def broken(*_args, **_kwargs):
        raise RuntimeError("the session broke")

    monkeypatch.setattr(speakers, "embed", broken)
    heard = [h for chunk in ArraySource(audio) for h in rec.feed(chunk)] + rec.finish()
    assert [(h.utterance.text, h.speaker) for h in heard] == [("cheat", None)] * 2
    assert capsys.readouterr().err.count("could not tell a voice (the session broke)") == 1
    assert not rec.learn_voice(heard[-1], "Cara")
    tap = speakers.AudioTap(ArraySource(audio))  # and so for `listen --voices`
    listened = list(speakers.attach(PushRecognizer(len(audio) / SAMPLE_RATE).utterances(tap),
                                    profile, tap))  # fmt: skip
    assert [h.speaker for h in listened] and not any(h.speaker for h in listened)
    assert capsys.readouterr().err.count("could not tell a voice") == 1


@needs_espeak
def test_for_table_keeps_the_seated_players_only(profile, tmp_path, monkeypatch):
    from referee.errors import UserError

    monkeypatch.setenv(speakers.ENV_VAR, str(tmp_path))
    profile.save(tmp_path / "friday")
    told: list[str] = []
    table = speakers.for_table("friday", ["ben", "Cara", "Dev"], warn=told.append)
    assert table.names == ["ben", "Cara"]  # as seated; Alice is not at this table
    assert len(told) == 1 and "Dev" in told[0]
    assert table.identify(say("Alice", "cheat!"))[0] in (None, "ben", "Cara")
    with pytest.raises(UserError, match="not two of the players"):
        speakers.for_table("friday", ["Ben", "Zed"])
    with pytest.raises(UserError, match="calibrate voices"):
        speakers.for_table("nobody", ["Ben", "Cara"])
    assert speakers.voiced("rec", None) == "rec"


# ------------------------------------------------------------------ the commands


@needs_espeak
def test_calibrate_voices_from_recordings(recordings, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(speakers.ENV_VAR, str(tmp_path))
    code = main(["calibrate", "voices", "--players", "Alice,Ben,Cara", "--from", str(recordings)])
    assert code == 0
    out = capsys.readouterr().out
    assert "Alice: 3 samples" in out and "--voices default" in out
    assert "every voice is told apart" in out
    loaded = speakers.SpeakerProfile.load("default")
    assert loaded.names == ["Alice", "Ben", "Cara"]
    assert len(loaded.players[1].samples) == 3  # Ben's 44.1 kHz stereo files read


@needs_espeak
def test_calibrate_voices_names_players_without_recordings(recordings, capsys):
    code = main(["calibrate", "voices", "--players", "Alice,Zed,Yan", "--from", str(recordings),
                 "--name", "x"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "Zed, Yan" in err and "Zed-1.wav" in err and "Traceback" not in err


def test_calibrate_voices_refuses_bad_input(tmp_path, capsys):
    (tmp_path / "Alice-1.wav").write_bytes(b"not a wav at all")
    (tmp_path / "Ben-1.wav").write_bytes(b"RIFF")
    code = main(["calibrate", "voices", "--players", "Alice,Ben", "--from", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "Alice, Ben" in err and "not a PCM wav" in err
    assert main(["calibrate", "voices", "--players", "Alice", "--from", str(tmp_path)]) == 2
    assert main(["calibrate", "voices", "--players", "A,B", "--from", str(tmp_path / "no")]) == 2
    assert main(["calibrate", "voices", "--players", "A,B", "--name", "../x"]) == 2
    err = capsys.readouterr().err
    assert "at least two" in err and "no such folder" in err and "profile name" in err


@needs_espeak
def test_calibrate_voices_says_which_voices_are_alike(tmp_path, capsys):
    for player, voice, pitch in (
        ("Ann", "en-us", 50),
        ("Bea", "en-us", 52),
        ("Cal", "en-gb+m3", 25),
    ):
        for n, text in enumerate((player, "cheat", "two aces"), 1):
            s = synthesize(text, voice=voice, pitch=pitch, speed=150 + 10 * n)
            write_wav(tmp_path / f"{player}-{n}.wav", np.concatenate([quiet(0.2), s, quiet(0.2)]))
    code = main(["calibrate", "voices", "--players", "Ann,Bea,Cal", "--from", str(tmp_path),
                 "--out", str(tmp_path / "profile")])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr()
    assert "Ann and Bea sound alike" in printed.err
    assert "every voice is told apart" not in printed.out


@needs_espeak
def test_listen_with_voices_says_who_spoke(recordings, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(speakers.ENV_VAR, str(tmp_path))
    assert main(["calibrate", "voices", "--players", "Alice,Ben,Cara", "--from",
                 str(recordings), "--name", "friday"]) == 0  # fmt: skip
    audio = np.concatenate([quiet(0.8), say("Cara", "two sevens"), quiet(0.8),
                            say("Ben", "cheat!"), quiet(0.8)])  # fmt: skip
    wav = write_wav(tmp_path / "table.wav", audio)
    capsys.readouterr()
    args = ["listen", "--wav", str(wav), "--players", "Alice,Ben,Cara", "--rank-due", "7"]
    assert main([*args, "--voices", "friday"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["intent"]["type"] for line in lines] == ["claim", "call"]
    assert [line["speaker"] for line in lines] == ["Cara", "Ben"]
    assert all(set(line) <= {"start", "end", "text", "intent", "confidence", "speaker"}
               for line in lines)  # fmt: skip
    assert main([*args, "--voices", "nobody"]) == 2
    assert "no voice profile 'nobody'" in capsys.readouterr().err


@needs_espeak
def test_play_with_voices_credits_a_bare_call_to_its_voice(recordings, tmp_path, capsys,
                                                           monkeypatch):  # fmt: skip
    monkeypatch.setenv(speakers.ENV_VAR, str(tmp_path))
    assert main(["calibrate", "voices", "--players", "Alice,Ben,Cara", "--from",
                 str(recordings), "--name", "t"]) == 0  # fmt: skip
    game = np.concatenate([quiet(6.0), say("Alice", "two aces"), quiet(8.0), say("Ben", "cheat!"),
                           quiet(6.0)])  # fmt: skip
    wav = write_wav(tmp_path / "game.wav", game)
    tts = str(tmp_path / "tts.wav")
    args = ["play", "--players", "Alice,Ben,Cara", "--audio", str(wav), "--no-camera",
            "--no-window", "--tts-out", tts, "--json", "--voices", "t"]  # fmt: skip
    capsys.readouterr()
    assert main(args) == 0
    said = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = [s.get("kind") for s in said]
    assert "who_called" not in kinds
    call = said[kinds.index("call")]
    assert (call["caller"], call["claimer"]) == ("Ben", "Alice")


@needs_espeak
def test_a_voice_learned_and_then_undone_is_forgotten(recordings):
    """What the table undoes taught nothing: the voiceprint is as it was before it."""
    samples, _ = speakers.load_samples(recordings, list(VOICES))
    profile = speakers.SpeakerProfile.enroll("table", samples)
    enrolled = profile.players[1].voiceprint.copy()
    claim = profile.voice_of(say("Ben", "three kings", 170))
    assert profile.learn("Ben", claim)
    assert float(profile.players[1].voiceprint @ enrolled) < 0.9999
    assert profile.forget("Ben", claim) and not profile.forget("Ben", claim)
    assert np.allclose(profile.players[1].voiceprint, enrolled)
    heard = speakers.SpeakerProfile.heard_in_play(list(VOICES))
    voices = {p: [heard.voice_of(say(p, c, 170)) for c in ("two aces", "one queen", "four tens")]
              for p in VOICES}  # fmt: skip
    for player, theirs in voices.items():
        for voice in theirs:
            heard.learn(player, voice)
    assert heard.ready
    before = heard.players[0].voiceprint.copy()
    assert heard.forget("Alice", voices["Alice"][-1])
    assert not heard.ready and not np.allclose(heard.players[0].voiceprint, before)
    assert not heard.forget("Alice", voices["Ben"][0])  # never learned as hers


TEN_RANKS = ("aces", "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines",
             "tens")  # fmt: skip


def ten_claims(order: tuple[str, ...]) -> list[np.ndarray]:
    """Ten claims of two, aces to tens, said in turn round ``order``, six seconds apart."""
    parts = [quiet(6.0)]
    for turn, rank in enumerate(TEN_RANKS):
        parts += [say(order[turn % len(order)], f"two {rank}"), quiet(6.0)]
    return parts


@needs_espeak
def test_play_without_voices_learns_them_from_the_claims(tmp_path, capsys):
    """No profile: once each player's claims have taught the referee their voice, a bare
    call is credited to its caller's voice; with --no-learn-voices it is asked about."""
    order = ("Alice", "Ben", "Cara")
    parts = ten_claims(order)
    parts += [say("Ben", "cheat!"), quiet(6.0)]
    wav = write_wav(tmp_path / "game.wav", np.concatenate(parts))
    runs = {}
    for flags in ([], ["--no-learn-voices"]):
        args = ["play", "--players", ",".join(order), "--audio", str(wav), "--no-camera",
                "--no-window", "--tts-out", str(tmp_path / "tts.wav"), "--json",
                "--journal", str(tmp_path / f"j{len(flags)}.jsonl"),
                "--db", str(tmp_path / f"s{len(flags)}.db"), *flags]  # fmt: skip
        capsys.readouterr()
        assert main(args) == 0
        said = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        runs[bool(flags)] = [s.get("kind") for s in said], said
    kinds, said = runs[False]
    assert kinds.count("claim") == len(TEN_RANKS)
    assert "who_called" not in kinds
    call = said[kinds.index("call")]
    assert (call["caller"], call["claimer"]) == ("Ben", "Alice")
    kinds, _ = runs[True]
    assert kinds.count("claim") == len(TEN_RANKS) and "who_called" in kinds


def _unit_voices(seed: int, n: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, 256)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_voices_learned_in_play_are_kept_for_a_resumed_game(tmp_path, monkeypatch):
    """A game resumed that evening knows the voices its claims taught; another table, a
    file from another evening or one the undo took back from does not bring them back."""
    table = ["Alice", "Ben", "Cara"]
    heard = speakers.SpeakerProfile.heard_in_play(table)
    voices = {p: _unit_voices(i, speakers.HEARD_MIN) for i, p in enumerate(table)}
    for player, theirs in voices.items():
        for voice in theirs:
            assert heard.learn(player, voice)
    assert heard.forget("Cara", voices["Cara"][-1])
    kept = tmp_path / "game.voices.npz"
    heard.keep_learned(kept)
    again = speakers.SpeakerProfile.heard_in_play(table)
    assert again.restore_learned(kept) == 3 * speakers.HEARD_MIN - 1
    assert not again.ready  # Cara's third claim was undone
    for before, after in zip(heard.players, again.players, strict=True):
        assert np.allclose(before.voiceprint, after.voiceprint)
    assert again.learn("Cara", voices["Cara"][-1]) and again.ready
    reseated = speakers.SpeakerProfile.heard_in_play(["Ben", "Alice", "Cara"])
    assert reseated.restore_learned(kept) == 0 and not any(p.learned for p in reseated.players)
    assert speakers.SpeakerProfile.heard_in_play(table).restore_learned(tmp_path / "none") == 0
    import time

    later = time.time() + speakers.KEPT_FOR_S + 60
    monkeypatch.setattr(time, "time", lambda: later)
    assert speakers.SpeakerProfile.heard_in_play(table).restore_learned(kept) == 0
    monkeypatch.undo()
    kept.write_bytes(kept.read_bytes()[:300])
    with pytest.raises(speakers.VoiceProfileError, match="damaged"):
        speakers.SpeakerProfile.heard_in_play(table).restore_learned(kept)


@needs_espeak
def test_a_resumed_game_knows_the_voices_it_had_learned(tmp_path, capsys):
    """The lid closed after ten claims: `play --resume` credits Ben's bare call to his voice
    at once, as the game before the crash would have; a game whose kept voices are gone
    asks "Who called?" again."""
    order = ("Alice", "Ben", "Cara")
    parts = ten_claims(order)
    claims = write_wav(tmp_path / "claims.wav", np.concatenate(parts))
    call = write_wav(tmp_path / "call.wav", np.concatenate([quiet(6.0), say("Ben", "cheat!"),
                                                            quiet(6.0)]))  # fmt: skip
    journal = tmp_path / "game.jsonl"
    common = ["--no-camera", "--no-window", "--tts-out", str(tmp_path / "tts.wav"), "--json",
              "--db", str(tmp_path / "s.db")]  # fmt: skip
    assert main(["play", "--players", ",".join(order), "--audio", str(claims), "--journal",
                 str(journal), *common]) == 0  # fmt: skip
    kept = journal.with_suffix(".voices.npz")
    assert kept.is_file()
    twin = tmp_path / "twin.jsonl"
    twin.write_bytes(journal.read_bytes())  # the same game, its voices not kept
    runs = {}
    for path in (journal, twin):
        capsys.readouterr()
        assert main(["play", "--resume", "--journal", str(path), "--audio", str(call),
                     *common]) == 0  # fmt: skip
        out = capsys.readouterr()
        said = [json.loads(line) for line in out.out.splitlines()]
        runs[path] = [s.get("kind") for s in said], said, out.err
    kinds, said, err = runs[journal]
    assert "known again" in err and "who_called" not in kinds
    called = said[kinds.index("call")]
    assert (called["caller"], called["claimer"]) == ("Ben", "Alice")
    kinds, _, err = runs[twin]
    assert "known again" not in err and "who_called" in kinds


@needs_espeak
def test_play_goes_on_without_voices_when_the_voice_encoder_is_missing(tmp_path, capsys,
                                                                     monkeypatch):  # fmt: skip
    """Voices learned in play are a help, not a need: a damaged install (no voice encoder)
    says so and the game is played as without them (a bare call asked about)."""
    missing = tmp_path / "voice_encoder.onnx"
    monkeypatch.setattr(speakers, "encoder", lambda: speakers.VoiceEncoder(missing))
    game = np.concatenate([quiet(6.0), say("Alice", "two aces"), quiet(8.0), say("Ben", "cheat!"),
                           quiet(6.0)])  # fmt: skip
    wav = write_wav(tmp_path / "game.wav", game)
    args = ["play", "--players", "Alice,Ben,Cara", "--audio", str(wav), "--no-camera",
            "--no-window", "--tts-out", str(tmp_path / "tts.wav"), "--json"]  # fmt: skip
    capsys.readouterr()
    assert main(args) == 0
    out = capsys.readouterr()
    kinds = [json.loads(line).get("kind") for line in out.out.splitlines()]
    assert "voice encoder" in out.err and "not learned" in out.err
    assert kinds.count("claim") == 1 and "who_called" in kinds


@needs_espeak
def test_calibrate_voices_from_the_microphone_prompts_each_player(tmp_path, capsys, monkeypatch):
    from referee.speech import audio as audio_module

    answers = [np.concatenate([quiet(0.4), say(p, t), quiet(0.6)])
               for p in ("Alice", "Ben") for t in (p, "cheat", "two aces")]  # fmt: skip

    class FakeMic:  # each recording is the next answer, as said after its prompt
        def __init__(self, device=None, seconds=None):
            self.samples = answers.pop(0)

        def __iter__(self):
            return iter(ArraySource(self.samples))

    monkeypatch.setattr(audio_module, "MicSource", FakeMic)
    monkeypatch.setattr(audio_module, "list_input_devices", lambda: [(0, "fake mic")])
    code = main(["calibrate", "voices", "--players", "Alice,Ben", "--silent",
                 "--out", str(tmp_path / "p")])  # fmt: skip
    assert code == 0 and answers == []
    out = capsys.readouterr().out
    assert out.index("Alice, say your name.") < out.index("Alice, say cheat.")
    assert out.index("Alice, say a claim") < out.index("Ben, say your name.")
    loaded = speakers.SpeakerProfile.load(tmp_path / "p")
    assert [len(p.samples) for p in loaded.players] == [3, 3]
    recorded = len(quiet(0.4)) + len(say("Alice", "Alice")) + len(quiet(0.6))
    assert len(loaded.players[0].samples[0]) < recorded - 0.5 * SAMPLE_RATE  # the wait cut off


def test_a_name_said_alone_and_cut_to_its_words_is_a_sample(tmp_path):
    # "Ben." cut to its words is 0.27 s: kept; a click of 0.1 s is not
    rng = np.random.default_rng(0)
    write_wav(tmp_path / "Ben-1.wav", 0.1 * rng.standard_normal(int(0.27 * SAMPLE_RATE)))
    write_wav(tmp_path / "Ben-2.wav", 0.1 * rng.standard_normal(int(0.1 * SAMPLE_RATE)))
    samples, problems = speakers.load_samples(tmp_path, ["Ben"])
    assert len(samples["Ben"]) == 1
    assert problems == [f"{tmp_path / 'Ben-2.wav'} is too short or silent; skipped"]


@needs_espeak
def test_a_voiceprint_learns_its_players_claims_and_not_another_voice(recordings, tmp_path):
    """In play each claim taken is its player's (said in their turn): the voiceprint learns
    it, so a voice that sounds other than at enrollment (another room, a raised voice) is
    known better as the evening goes on. A voice surely another player's is not learned, and
    what was learned is never saved into the profile."""
    samples, _ = speakers.load_samples(recordings, list(VOICES))
    profile = speakers.SpeakerProfile.enroll("table", samples)
    enrolled = {p.name: p.voiceprint.copy() for p in profile.players}

    def alice_at_the_party(text: str, speed: int = 170) -> np.ndarray:
        s = synthesize(text, voice="en-us+f2", pitch=60, speed=speed)  # not her enrolled voice
        return (s * (0.1 / np.sqrt(np.mean(s**2)))).astype(np.float32)

    calls = [alice_at_the_party(t) for t in ("cheat!", "liar!", "I doubt it")]
    before = [profile.identify(c) for c in calls]
    assert not profile.learn("Alice", profile.voice_of(say("Ben", "three kings")))
    assert float(profile.players[0].voiceprint @ enrolled["Alice"]) > 0.9999  # unchanged
    for claim in ("three kings", "two sevens", "one queen", "four tens"):
        assert profile.learn("Alice", profile.voice_of(alice_at_the_party(claim, 160)))
    after = [profile.identify(c) for c in calls]
    assert [name for name, _ in after] == ["Alice"] * 3
    assert np.mean([s for _, s in after]) > np.mean([s for _, s in before]) + 0.1
    assert len(profile.players[0].learned) == 4
    again = speakers.SpeakerProfile.load(profile.save(tmp_path / "table"))
    assert float(again.players[0].voiceprint @ enrolled["Alice"]) > 0.9999
    for _ in range(speakers.LEARNED_MAX + 3):
        profile.learn("Alice", profile.voice_of(calls[0]))
    assert len(profile.players[0].learned) == speakers.LEARNED_MAX


@needs_espeak
def test_a_table_that_enrolled_no_one_comes_to_know_its_voices_from_their_claims():
    """Without ``calibrate voices`` the referee still learns each player's voice from the
    claims taken in their turns; it names no one by voice until every player's voiceprint
    holds ``HEARD_MIN`` claims, and then a bare call in a known voice is theirs."""
    profile = speakers.SpeakerProfile.heard_in_play(list(VOICES))
    calls = {p: say(p, "cheat!") for p in VOICES}
    claims = ("two aces", "three kings", "one queen", "four tens")
    assert profile.heard_only and not profile.ready
    assert profile.identify(calls["Ben"]) == (None, 0.0)
    for claim in claims[: speakers.HEARD_MIN]:
        for player in VOICES:
            assert profile.identify(calls[player])[0] is None  # not every voice known yet
            assert profile.learn(player, profile.voice_of(say(player, claim, 170)))
    assert profile.ready
    assert [profile.identify(calls[p])[0] for p in VOICES] == list(VOICES)
    # a claim said for Alice in Ben's voice is not learned as hers
    assert not profile.learn("Alice", profile.voice_of(say("Ben", claims[-1])))
    assert len(profile.players[0].learned) == speakers.HEARD_MIN
    assert profile.decision == speakers.decision_for(3, heard_only=True)


def test_the_voice_space_hears_less_of_what_varies_within_one_voice():
    """Voices that differ along one direction, each voice's utterances scattered along
    another: the space keeps the first and shrinks the second (halfway to the identity)."""
    from referee.speech import voice_space

    rng = np.random.default_rng(0)
    x, y = [], []
    for voice in range(40):
        centre = np.zeros(256)
        centre[0] = rng.normal()
        for _ in range(10):
            v = centre + 0.05 * rng.normal(size=256)
            v[1] += 3 * rng.normal()  # the words and the room, not the voice
            x.append(v)
            y.append(voice)
    space = voice_space.fit(np.array(x), np.array(y))
    assert space.shape == (256, 256) and np.allclose(space, space.T, atol=1e-6)
    gain = np.linalg.norm(space, axis=0)
    assert gain[1] < 0.5 * gain[0]
    assert gain[0] == pytest.approx(np.median(gain[2:]), rel=0.1)


def test_a_missing_voice_space_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(speakers, "SPACE", tmp_path / "voice_space.npy")
    speakers.voice_space.cache_clear()
    try:
        with pytest.raises(speakers.VoiceProfileError, match="voice space .* missing"):
            speakers.table_scores(np.eye(256, dtype=np.float32)[:3], np.ones(256, np.float32))
    finally:
        speakers.voice_space.cache_clear()


def test_the_voice_space_is_made_without_the_voices_it_is_scored_on():
    from bench.speech.voices import PLAYERS, STRANGERS
    from referee.speech import voice_space
    from tests.table import TABLES

    used = set(voice_space.training_voices())
    assert len(used) > 200
    scored = {voice for _, voice, _ in PLAYERS + STRANGERS if voice != "piper"}
    assert not used & scored
    espeak = [v for table in TABLES.values() for v in table.values() if v.engine == "espeak"]
    assert not used & {v.name for v in espeak}
    strangers = {v.name for v in TABLES["strangers"].values() if v.engine == "espeak"}
    assert not {u for u in used if u.split("+")[0] in strangers}
