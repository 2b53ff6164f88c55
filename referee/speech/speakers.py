"""Who said it: each enrolled player's voiceprint, and the voice of an utterance matched to it.

The voiceprint is resemblyzer's speaker embedding (a 3-layer LSTM on 40-band mel spectra,
exported to ``models/voice_encoder.onnx`` by ``models/voice_encoder_export.py``), run with
onnxruntime: no torch at the table. The features are made here in numpy as resemblyzer makes
them (librosa's mel power spectrogram, 25 ms windows every 10 ms; 1.6 s partials, 1.3 a
second, averaged), except that resemblyzer's webrtcvad trimming is replaced by
:func:`voiced_core`, which keeps only the loud frames of the words: the recognizer's
segments reach 0.35-0.4 s before and after the words under babble, and the babble in them
is someone else's voice.

A :class:`SpeakerProfile` (``referee calibrate voices``) holds each player's voiceprint (the
normed mean of their samples' embeddings) and their samples. Voices are compared in a space
(``models/voice_space.npy``, made by :mod:`referee.speech.voice_space`) where what changes
within one voice from word to word and under babble counts for less. :meth:`SpeakerProfile.identify`
names the player whose voiceprint is nearest, when it is near enough (``threshold``) and
clearly nearer than the runner-up's (``margin``); otherwise None: ask "Who called?".

    profile = SpeakerProfile.load("default")
    name, score = profile.identify(samples)          # ("Ben", 0.91) or (None, 0.62)
    tap = AudioTap(source)                           # the live path
    for heard in attach(recognizer.utterances(tap), profile, tap):
        heard.speaker, heard.speaker_score
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from referee.paths import MODELS_DIR
from referee.profiles import now, write_profile
from referee.speech.audio import Chunk, read_wav, resample, write_wav
from referee.speech.types import SAMPLE_RATE, Heard

PROFILE_VERSION = 1
ENV_VAR = "REFEREE_VOICES_DIR"
MODEL = MODELS_DIR / "voice_encoder.onnx"
#: the space voices are compared in (:mod:`referee.speech.voice_space` makes it)
SPACE = MODELS_DIR / "voice_space.npy"

# resemblyzer's hyperparameters (resemblyzer/hparams.py)
N_FFT = 400  # 25 ms
HOP = 160  # 10 ms
N_MELS = 40
PARTIAL_FRAMES = 160  # 1.6 s
PARTIAL_RATE = 1.3  # partials a second
MIN_COVERAGE = 0.75
TARGET_DBFS = -30.0

#: a frame is voiced when within this many dB of the utterance's loudest 20 ms
CORE_DROP_DB = 12.0
CORE_FRAME = 320
#: below this much voiced audio the whole stretch is used (too little to trim)
CORE_MIN_S = 0.25
#: a recording shorter than this is no sample: a name said alone and cut to its words is
#: 0.25-0.3 s ("Ben." in piper's voice, 0.27 s, was skipped at 0.3)
MIN_SAMPLE_S = 0.2

#: identify()'s least score and margin over the runner-up by the number of players at the
#: table, chosen on synthetic tables of 4 and 8 (bench/speech/voices.md): the more voices,
#: the nearer they lie, and the surer a match must be. Between the two, in proportion;
#: fewer than 4 as 4, more than 8 as 8. Chosen again 2026-12-06 for the voice space
#: (:func:`voice_space`; before it 4 players 0.14 and 0.01, 8 players 0.28 and 0.16)
DECISION_BY_PLAYERS = {4: (0.06, 0.03), 8: (0.2, 0.11)}
#: the most voices a player's voiceprint learns in play (:meth:`SpeakerProfile.learn`): the
#: latest are kept
LEARNED_MAX = 24
#: ...and together they weigh at most this share of the enrolled samples (each weighing one
#: sample until then). Uncapped, 16 claims learned took the 8-player table's clean calls
#: named right from 61% (enrolled only) to 60% where 6 took them to 69%: the claims' words,
#: not the voices, came to fill the voiceprints. Capped at 1: 6 claims 71%, 16 claims 68%
#: (bench/speech/voices.py --claims)
LEARNED_SHARE = 1.0
#: a table that enrolled no voices (:meth:`SpeakerProfile.heard_in_play`) names no one by
#: voice until every player's voiceprint has learned this many of their claims
HEARD_MIN = 3
#: ...and then with its own least score and margin, by the number of players as
#: ``DECISION_BY_PLAYERS``: a voiceprint made of a few claims alone knows the claims' words
#: as well as the voice, and a call says other words. Chosen on synthetic tables
#: (bench/speech/voices.md, at most 1% named wrong on the draws it was chosen on): after 3-6
#: claims each, 4 players' bare calls named right 80-97% clean and 62-66% under 10 dB
#: babble, wrong 0-2.3%; 8 players' 50-53% and 27-30%, wrong 0.8-2%
DECISION_HEARD_BY_PLAYERS = {4: (0.22, 0.1), 8: (0.24, 0.17)}
#: voices learned in play and kept beside the game's journal (:meth:`SpeakerProfile.keep_learned`)
#: come back on a resume only this fresh: later it is another evening, maybe another room
KEPT_FOR_S = 12 * 3600.0


def decision_for(players: int, heard_only: bool = False) -> tuple[float, float]:
    """(threshold, margin) for a table of ``players`` (see ``DECISION_BY_PLAYERS``;
    ``heard_only``: voices learned in play alone, ``DECISION_HEARD_BY_PLAYERS``)."""
    table = DECISION_HEARD_BY_PLAYERS if heard_only else DECISION_BY_PLAYERS
    (lo, (t0, m0)), (hi, (t1, m1)) = sorted(table.items())
    w = min(1.0, max(0.0, (players - lo) / (hi - lo)))
    return round(t0 + w * (t1 - t0), 3), round(m0 + w * (m1 - m0), 3)


class VoiceProfileError(Exception):
    """A voice profile that cannot be used (missing, damaged, newer version)."""


# ------------------------------------------------------------------ features


def _hz_to_mel(f: np.ndarray) -> np.ndarray:
    """Slaney's mel scale (librosa's default, htk=False): linear below 1 kHz, log above."""
    f = np.asarray(f, np.float64)
    mel = f / (200.0 / 3)
    log = f >= 1000.0
    return np.where(log, 15.0 + np.log(np.maximum(f, 1e-9) / 1000.0) / (np.log(6.4) / 27), mel)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, np.float64)
    hz = m * (200.0 / 3)
    return np.where(m >= 15.0, 1000.0 * np.exp((np.log(6.4) / 27) * (m - 15.0)), hz)


@lru_cache(maxsize=1)
def mel_filters() -> np.ndarray:
    """librosa.filters.mel(sr=16000, n_fft=400, n_mels=40): (40, 201), Slaney-normed."""
    fft_freqs = np.linspace(0, SAMPLE_RATE / 2, 1 + N_FFT // 2)
    mel_f = _mel_to_hz(np.linspace(_hz_to_mel(0.0), _hz_to_mel(SAMPLE_RATE / 2), N_MELS + 2))
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2 : N_MELS + 2] - mel_f[:N_MELS]))[:, None]
    return weights


def mel_spectrogram(wav: np.ndarray) -> np.ndarray:
    """(frames, 40) mel power spectrum, as resemblyzer's ``wav_to_mel_spectrogram`` (librosa:
    centred frames, zero padding, periodic Hann window, power 2)."""
    x = np.pad(wav.astype(np.float64), N_FFT // 2)
    count = 1 + (len(x) - N_FFT) // HOP
    idx = np.arange(N_FFT)[None, :] + HOP * np.arange(count)[:, None]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)
    power = np.abs(np.fft.rfft(x[idx] * window, axis=1)) ** 2
    return (power @ mel_filters().T).astype(np.float32)


def normalize_volume(wav: np.ndarray, target_dbfs: float = TARGET_DBFS) -> np.ndarray:
    """Raise (never lower) the level to ``target_dbfs`` RMS, as resemblyzer does."""
    rms = float(np.sqrt(np.mean(np.square(wav, dtype=np.float64)))) if len(wav) else 0.0
    if rms <= 0:
        return wav
    change = target_dbfs - 20 * np.log10(rms)
    return wav if change < 0 else (wav * 10 ** (change / 20)).astype(np.float32)


def partial_slices(n_samples: int) -> list[slice]:
    """The mel-frame slices of resemblyzer's partial utterances (``compute_partial_slices``)."""
    n_frames = int(np.ceil((n_samples + 1) / HOP))
    step = int(np.round((SAMPLE_RATE / PARTIAL_RATE) / HOP))
    steps = max(1, n_frames - PARTIAL_FRAMES + step + 1)
    slices = [slice(i, i + PARTIAL_FRAMES) for i in range(0, steps, step)]
    last = slices[-1]
    coverage = (n_samples - last.start * HOP) / ((last.stop - last.start) * HOP)
    if coverage < MIN_COVERAGE and len(slices) > 1:
        slices = slices[:-1]
    return slices


def voiced_core(samples: np.ndarray, drop_db: float = CORE_DROP_DB) -> np.ndarray:
    """The loud 20 ms frames of an utterance (within ``drop_db`` of its loudest, one frame
    either side kept), joined: the talker nearest the microphone, not the room around them.
    Too little of it (under ``CORE_MIN_S``) and the whole stretch is returned."""
    n = len(samples) // CORE_FRAME
    if n == 0:
        return samples
    frames = samples[: n * CORE_FRAME].reshape(n, CORE_FRAME).astype(np.float64)
    db = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-12)
    loud = db >= db.max() - drop_db
    keep = loud | np.r_[loud[1:], False] | np.r_[False, loud[:-1]]
    if keep.sum() * CORE_FRAME < CORE_MIN_S * SAMPLE_RATE:
        return samples
    return frames[keep].ravel().astype(np.float32)


# ------------------------------------------------------------------ the encoder


class VoiceEncoder:
    """resemblyzer's encoder under onnxruntime (one thread: the recognizer has the other)."""

    def __init__(self, model: Path = MODEL, threads: int = 1):
        import onnxruntime as ort

        if not Path(model).is_file():
            raise VoiceProfileError(f"the voice encoder {model} is missing; reinstall the referee")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    def partials(self, mels: np.ndarray) -> np.ndarray:
        """(n, 256) embeddings of a (n, 160, 40) batch of partials."""
        out = []
        for m in mels:  # one at a time: the graph's LSTM state is sized for batch 1 or 2
            out.append(self.session.run(None, {"mels": m[None].astype(np.float32)})[0][0])
        return np.stack(out)

    def embed(self, wav: np.ndarray, *, normalize: bool = True) -> np.ndarray:
        """The unit embedding of one utterance (16 kHz mono), as resemblyzer's
        ``embed_utterance`` of the same (volume-normalized) samples."""
        wav = normalize_volume(wav) if normalize else wav
        slices = partial_slices(len(wav))
        need = slices[-1].stop * HOP
        if need >= len(wav):
            wav = np.pad(wav, (0, need - len(wav)))
        mel = mel_spectrogram(wav)
        raw = self.partials(np.stack([mel[s] for s in slices])).mean(axis=0)
        return (raw / max(float(np.linalg.norm(raw)), 1e-9)).astype(np.float32)


@lru_cache(maxsize=1)
def encoder() -> VoiceEncoder:
    return VoiceEncoder()


def embed(samples: np.ndarray, rate: int = SAMPLE_RATE, *, core: bool = True) -> np.ndarray:
    """The voice of ``samples`` (the voiced core only, unless ``core`` is False)."""
    wav = resample(np.asarray(samples, np.float32), rate) if rate != SAMPLE_RATE else samples
    wav = np.asarray(wav, np.float32)
    return encoder().embed(voiced_core(wav) if core else wav)


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / max(float(np.linalg.norm(v)), 1e-9)).astype(np.float32)


@lru_cache(maxsize=1)
def voice_space() -> np.ndarray:
    """The (256, 256) matrix of :mod:`referee.speech.voice_space`: what changes in one
    voice from word to word and room to room, whitened (halfway) away."""
    try:
        space = np.load(SPACE)
    except (OSError, ValueError) as err:
        raise VoiceProfileError(f"the voice space {SPACE} is missing or damaged ({err}); "
                                "reinstall the referee") from err  # fmt: skip
    if space.shape != (256, 256):
        raise VoiceProfileError(f"the voice space {SPACE} has shape {space.shape}; reinstall")
    return space.astype(np.float32)


def _table_rows(prints: np.ndarray, voices: np.ndarray) -> np.ndarray:
    """``voices`` (rows) centred on the mean of ``prints`` and carried into the voice
    space, unit length."""
    rows = (voices - prints.mean(axis=0)) @ voice_space()
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-9)


def table_scores(prints: np.ndarray, voice: np.ndarray) -> np.ndarray:
    """Cosine of ``voice`` to each voiceprint once what the table's voices share (their
    mean) is taken from both: every voice is far from the embedding's origin (two players
    are often 0.9 alike), so the raw cosines differ in the second decimal; centred, the
    right player stands out by 0.2 (bench/speech/voices.md). With two players this is the
    side of the line between their voiceprints. Compared in the voice space
    (:func:`voice_space`), where what a voice says and the room around it count less."""
    return _table_rows(prints, prints) @ _table_rows(prints, voice[None])[0]


# ------------------------------------------------------------------ the profile


@dataclass
class Player:
    """One enrolled player: their voiceprint and what they said to make it (None and
    nothing for a player known only by what they say in play, ``heard_only``)."""

    name: str
    voiceprint: np.ndarray | None
    samples: list[np.ndarray] = field(default_factory=list)
    embeddings: list[np.ndarray] = field(default_factory=list)
    #: voices learned in play (their claims, :meth:`SpeakerProfile.learn`), never saved in the
    #: profile (kept beside the journal, :meth:`SpeakerProfile.keep_learned`); the
    #: enrolled voiceprint is kept in ``enrolled`` once there are any
    learned: deque[np.ndarray] = field(default_factory=lambda: deque(maxlen=LEARNED_MAX))
    enrolled: np.ndarray | None = None
    #: never enrolled: the voiceprint is the voices learned alone
    heard_only: bool = False


def _hold(player: Player, voice: np.ndarray) -> None:
    """``voice`` among ``player``'s voices learned in play (its enrolled voiceprint kept
    apart first); the voiceprint is made again by :func:`_refresh`."""
    if player.enrolled is None and not player.heard_only:
        player.enrolled = player.voiceprint
    player.learned.append(_unit(voice))


def _refresh(player: Player) -> None:
    """``player``'s voiceprint made again from what it holds (:meth:`SpeakerProfile.learn`):
    the voices learned alone (none left: no voiceprint) for a player never enrolled, else
    the enrolled voiceprint and the voices learned, weighing at most ``LEARNED_SHARE`` of
    its samples together."""
    learned = list(player.learned)
    if player.heard_only:
        player.voiceprint = _unit(np.sum(learned, axis=0)) if learned else None
        return
    if player.enrolled is None:
        return  # nothing learned yet: the voiceprint is the enrolled one
    if not learned:
        player.voiceprint = player.enrolled
        return
    weight = max(1, len(player.samples))
    share = min(1.0, LEARNED_SHARE * weight / len(learned))
    player.voiceprint = _unit(weight * player.enrolled + share * np.sum(learned, axis=0))


@dataclass
class SpeakerProfile:
    """The table's voices: ``identify`` names who spoke, or None when unsure."""

    name: str
    players: list[Player]
    #: None: by the number of players (:func:`decision_for`)
    threshold: float | None = None
    margin: float | None = None
    created: str = ""
    source: str = ""
    version: int = PROFILE_VERSION

    @classmethod
    def enroll(cls, name: str, samples: dict[str, list[np.ndarray]], source: str = ""):
        """A profile from each player's recordings (16 kHz mono), in seat order."""
        players = []
        for player, clips in samples.items():
            embs = [embed(c) for c in clips]
            players.append(Player(player, _unit(np.mean(embs, axis=0)), list(clips), embs))
        return cls(name, players, source=source, created=now())

    @classmethod
    def heard_in_play(cls, players: Iterable[str]) -> SpeakerProfile:
        """A profile for a table that enrolled no voices: each player's voiceprint is made
        of their claims taken in play (:meth:`learn`), said in the room of the evening, and
        no one is named by voice until every player's has ``HEARD_MIN`` of them. Never
        saved as a profile: the voices of tonight's room are tonight's (kept only beside
        tonight's journal, :meth:`keep_learned`)."""
        players = [Player(p, None, heard_only=True) for p in players]
        return cls("heard in play", players, source="claims taken in play", created=now())

    @property
    def heard_only(self) -> bool:
        return any(p.heard_only for p in self.players)

    @property
    def ready(self) -> bool:
        """Whether every player has a voiceprint to be told by."""
        return all(
            p.voiceprint is not None and (not p.heard_only or len(p.learned) >= HEARD_MIN)
            for p in self.players
        )

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def _player(self, name: str) -> Player | None:
        return next((p for p in self.players if p.name == name), None)

    def similarities(self, voice: np.ndarray) -> np.ndarray:
        """How like each player's voiceprint (in seat order) a unit embedding is: see
        :func:`table_scores`."""
        return table_scores(np.stack([p.voiceprint for p in self.players]), voice)

    @property
    def decision(self) -> tuple[float, float]:
        """(threshold, margin) in use: the profile's own, else by the table's size."""
        auto = decision_for(len(self.players), self.heard_only)
        return (
            auto[0] if self.threshold is None else self.threshold,
            auto[1] if self.margin is None else self.margin,
        )

    def decide(self, sims: np.ndarray) -> tuple[str | None, float]:
        """(player, score) from the similarities: None when the best is under ``threshold``
        or within ``margin`` of the runner-up."""
        if len(sims) == 0:
            return None, 0.0
        order = np.argsort(-sims)
        best = float(sims[order[0]])
        second = float(sims[order[1]]) if len(sims) > 1 else -1.0
        threshold, margin = self.decision
        if best < threshold or best - second < margin:
            return None, best
        return self.players[order[0]].name, best

    def identify(self, samples: np.ndarray, rate: int = SAMPLE_RATE) -> tuple[str | None, float]:
        """Who said ``samples``: (name, similarity), or (None, best similarity) when unsure."""
        return self.whose(self.voice_of(samples, rate))

    def whose(self, voice: np.ndarray | None) -> tuple[str | None, float]:
        """:meth:`identify` of a voice already embedded (None: too little to tell)."""
        if voice is None or not self.ready:
            return None, 0.0
        return self.decide(self.similarities(voice))

    def voice_of(self, samples: np.ndarray, rate: int = SAMPLE_RATE) -> np.ndarray | None:
        """The voice (unit embedding) of ``samples``; None when too short to tell."""
        if len(samples) < 0.1 * rate or not self.players:
            return None
        return embed(samples, rate)

    def learn(self, name: str, voice: np.ndarray) -> bool:
        """Learn ``voice`` as ``name``'s: the table told whose it is (their claim, said in
        their turn). Three enrolled samples said once in a quiet moment are little to know a
        voice by in a loud room; an evening's claims, said in that room, are many. Not when
        the voice is surely another player's (someone said the claim for them): then False.
        The voiceprint becomes the normed mean of the enrolled samples (as many as there
        were, their mean as saved) and the latest ``LEARNED_MAX`` voices learned, which
        together weigh no more than the enrolled ones (``LEARNED_SHARE``)."""
        player = self._player(name)
        if player is None:
            return False
        sure, _ = self.whose(voice)
        if sure is not None and sure != name:
            return False
        _hold(player, voice)
        _refresh(player)
        return True

    def forget(self, name: str, voice: np.ndarray) -> bool:
        """Take back ``voice`` learned as ``name``'s: the table undid what taught it (a
        claim misheard, a caller named wrongly), so it may be someone else's, or babble.
        False when it was not learned (or has been pushed out since)."""
        player = self._player(name)
        if player is None:
            return False
        unit = _unit(voice)
        for i, known in enumerate(player.learned):
            if np.array_equal(known, unit):
                del player.learned[i]
                _refresh(player)
                return True
        return False

    def keep_learned(self, path: Path) -> None:
        """Write what play has taught each voiceprint to ``path`` (whole or not at all), so
        that a game resumed after a crash knows the table's voices again
        (:meth:`restore_learned`) instead of learning them anew from three claims each."""
        path = Path(path)
        learned = [(p.name, v) for p in self.players for v in p.learned]
        voices = np.stack([v for _, v in learned]).astype(np.float32) if learned else (
            np.zeros((0, 256), np.float32))  # fmt: skip
        part = path.with_name(path.name + ".part")
        path.parent.mkdir(parents=True, exist_ok=True)
        owners = np.array([n for n, _ in learned], dtype=str).reshape(-1)
        with open(part, "wb") as f:
            np.savez(f, players=np.array(self.names), owners=owners, voices=voices,
                     saved=np.float64(time.time()))  # fmt: skip
        os.replace(part, path)

    def restore_learned(self, path: Path, max_age_s: float = KEPT_FOR_S) -> int:
        """Learn again the voices :meth:`keep_learned` wrote to ``path`` for this table (the
        same players in the same seats) within ``max_age_s``: how many were restored (0: no
        such file, another table's, or too old). Raises :class:`VoiceProfileError` when
        the file is damaged."""
        path = Path(path)
        if not path.is_file():
            return 0
        try:
            with np.load(path, allow_pickle=False) as data:
                players = [str(n) for n in data["players"]]
                owners = [str(n) for n in data["owners"]]
                voices = np.asarray(data["voices"], np.float32)
                saved = float(data["saved"])
            if voices.shape != (len(owners), 256) or not np.isfinite(voices).all():
                raise ValueError(f"voices of shape {voices.shape} for {len(owners)} owners")
        except Exception as err:  # a damaged file of any kind: say so, lose the game nothing
            raise VoiceProfileError(f"the voices kept in {path} are damaged ({err})") from err
        if players != self.names or not 0 <= time.time() - saved <= max_age_s:
            return 0
        for name, voice in zip(owners, voices, strict=True):
            player = self._player(name)
            if player is not None:
                _hold(player, voice)
        for player in self.players:
            _refresh(player)
        return len(owners)

    def confusions(self) -> list[tuple[str, str, float]]:
        """Pairs of players the profile may not tell apart: (a, b, similarity of their
        voiceprints), where a sample of one, matched against the others' voiceprints and a
        voiceprint of their own remaining samples, is nearer another player's, or the two
        voiceprints are nearer than either player's own samples are to their voiceprint
        (:meth:`pairwise`)."""
        out: dict[tuple[str, str], float] = {}
        if len(self.players) < 2:
            return []
        prints = np.stack([p.voiceprint for p in self.players])
        pair_sims, within = self.pairwise()
        for i, p in enumerate(self.players):
            for j, e in enumerate(p.embeddings):
                others = [x for k, x in enumerate(p.embeddings) if k != j]
                if not others:
                    continue
                own = prints.copy()
                own[i] = _unit(np.mean(others, axis=0))
                sims = table_scores(own, e)
                k = int(np.argmax(sims))
                if k != i:
                    a, b = sorted((p.name, self.players[k].name))
                    out[(a, b)] = float(pair_sims[i, k])
        for i, p in enumerate(self.players):
            for k in range(i + 1, len(self.players)):
                if pair_sims[i, k] >= min(within[i], within[k]):
                    out[tuple(sorted((p.name, self.players[k].name)))] = float(pair_sims[i, k])
        return sorted(((a, b, s) for (a, b), s in out.items()), key=lambda t: -t[2])

    def pairwise(self) -> tuple[np.ndarray, list[float]]:
        """(similarity of each voiceprint to each other, each player's least similarity to
        their own samples), both as :func:`table_scores` compares (what the table's voices
        share taken away)."""
        prints = np.stack([p.voiceprint for p in self.players])
        rows = _table_rows(prints, prints)
        within = [min((float(rows[i] @ _table_rows(prints, e[None])[0]) for e in p.embeddings),
                      default=1.0)
                  for i, p in enumerate(self.players)]  # fmt: skip
        return rows @ rows.T, within

    # ---------------------------------------------------------------- files
    def save(self, folder: Path) -> Path:
        """``folder/profile.json`` and ``folder/samples/<Player>-<N>.wav``."""
        folder = Path(folder)
        (folder / "samples").mkdir(parents=True, exist_ok=True)
        for old in (folder / "samples").glob("*.wav"):
            old.unlink()
        players = []
        for p in self.players:
            files = []
            for n, clip in enumerate(p.samples, 1):
                rel = f"samples/{p.name}-{n}.wav"
                write_wav(folder / rel, clip)
                files.append(rel)
            vp = p.voiceprint if p.enrolled is None else p.enrolled  # never what play learned
            players.append({"name": p.name, "voiceprint": [round(float(v), 6) for v in vp],
                            "samples": files})  # fmt: skip
        fields = {
            "method": "resemblyzer speaker embedding (models/voice_encoder.onnx) of each "
            "sample's voiced core; voiceprint = normed mean; cosine centred on the table's "
            "mean voiceprint, in the voice space (models/voice_space.npy); threshold and "
            "margin null: by the number of players",
            "threshold": self.threshold,
            "margin": self.margin,
            "players": players,
        }
        return write_profile(folder, "referee voice profile", self, fields)

    @classmethod
    def load(cls, name_or_path: str | Path) -> SpeakerProfile:
        """A saved profile by name (in :func:`profiles_dir`), folder or ``profile.json``."""
        path = profile_path(name_or_path)
        if not path.is_file():
            raise VoiceProfileError(
                f"no voice profile {str(name_or_path)!r} ({path}); make one with "
                "`referee calibrate voices --players A,B,C`"
            )
        try:
            data = json.loads(path.read_text())
            version = int(data.get("version", 0))
            if version > PROFILE_VERSION:
                raise VoiceProfileError(
                    f"voice profile {path} is version {version}, newer than this referee "
                    f"understands ({PROFILE_VERSION}); recalibrate"
                )
            players = []
            for entry in data["players"]:
                clips = [read_wav(path.parent / rel, check=False) for rel in entry["samples"]]
                vp = _unit(np.asarray(entry["voiceprint"], np.float32))
                if vp.shape != (256,):
                    raise ValueError(f"voiceprint of {entry['name']} has shape {vp.shape}")
                players.append(Player(str(entry["name"]), vp, clips))
            profile = cls(
                str(data.get("name", path.parent.name)),
                players,
                threshold=_number(data.get("threshold")),
                margin=_number(data.get("margin")),
                created=str(data.get("created", "")),
                source=str(data.get("source", "")),
                version=version,
            )
        except VoiceProfileError:
            raise
        except Exception as err:  # a damaged file of any kind: say so, lose nothing
            raise VoiceProfileError(
                f"voice profile {path} is damaged ({err}); recalibrate"
            ) from err
        return profile

    def with_embeddings(self) -> SpeakerProfile:
        """The profile with each sample's embedding computed (for :meth:`confusions`)."""
        for p in self.players:
            if len(p.embeddings) != len(p.samples):
                p.embeddings = [embed(c) for c in p.samples]
        return self


def for_table(name: str, players: Iterable[str], *, warn=None) -> SpeakerProfile:
    """The profile ``name`` for the seated ``players`` only (a voice not at the table is never
    credited with a call); ``warn`` hears which players have no voice in it. Raises
    :class:`referee.errors.UserError` when it cannot be used."""
    from referee.errors import UserError

    try:
        profile = SpeakerProfile.load(name)
    except VoiceProfileError as err:
        raise UserError(str(err)) from None
    seated = {p.lower(): p for p in players}
    kept = [replace(p, name=seated[p.name.lower()]) for p in profile.players
            if p.name.lower() in seated]  # fmt: skip
    missing = [p for p in seated.values() if p.lower() not in {k.name.lower() for k in kept}]
    if len(kept) < 2:
        raise UserError(
            f"voice profile {name!r} knows {', '.join(profile.names) or 'nobody'}, not two of "
            f"the players here; make one with `referee calibrate voices --players "
            f"{','.join(seated.values())} --name {name}`"
        )
    if missing and warn is not None:
        warn(f"no voice in profile {name!r} for {', '.join(missing)}: a bare call by them is "
             "asked about (or taken for a voice like theirs)")  # fmt: skip
    return replace(profile, players=kept)


def voiced(recognizer, profile: SpeakerProfile | None, kept: Path | None = None):
    """``recognizer`` saying each utterance's speaker, or as it is without a profile
    (``kept``: see :class:`VoicedRecognizer`)."""
    return recognizer if profile is None else VoicedRecognizer(recognizer, profile, kept=kept)


def _number(value) -> float | None:
    return None if value is None else float(value)


def profiles_dir() -> Path:
    """``$REFEREE_VOICES_DIR``, else ``calibration/voices`` in the referee's data folder."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    from referee.paths import data_dir

    return data_dir() / "calibration" / "voices"


def valid_name(name: str) -> bool:
    return bool(re.fullmatch(r"[\w.-]+", name))


def profile_path(name_or_path: str | Path) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".json":
        return p
    if p.is_dir() or "/" in str(name_or_path):
        return p / "profile.json"
    return profiles_dir() / str(name_or_path) / "profile.json"


# ------------------------------------------------------------------ the live path


class AudioTap:
    """A chunk source passed through unchanged, keeping its last ``keep_s`` seconds so the
    voice of an utterance can be looked at once the recognizer has heard it."""

    def __init__(self, source: Iterable[Chunk] = (), keep_s: float = 30.0):
        self.source = source
        self._chunks: deque[Chunk] = deque()
        self._keep = keep_s

    def __iter__(self) -> Iterator[Chunk]:
        for chunk in self.source:
            self.remember(chunk)
            yield chunk

    def remember(self, chunk: Chunk) -> None:
        """Keep ``chunk`` (the oldest beyond ``keep_s`` are let go)."""
        self._chunks.append(chunk)
        while self._chunks and self._chunks[0].end < chunk.end - self._keep:
            self._chunks.popleft()

    def clear(self) -> None:
        self._chunks.clear()

    def __getattr__(self, name: str):  # the source's own attributes (a mic's level, ...)
        return getattr(self.source, name)

    def samples(self, start: float, end: float) -> np.ndarray:
        """The audio from ``start`` to ``end`` seconds (as much of it as is kept)."""
        parts = []
        for c in self._chunks:
            if c.end <= start or c.start >= end:
                continue
            a = max(0, int(round((start - c.start) * SAMPLE_RATE)))
            b = min(len(c.samples), int(round((end - c.start) * SAMPLE_RATE)))
            parts.append(c.samples[a:b])
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def _warn(message: str) -> None:
    from referee.errors import warn

    warn(message)


class Teller:
    """Tells each utterance's speaker by ``profile`` from the audio ``tap`` kept. A voice that
    cannot be told (the encoder failing mid-game) leaves the words heard with no speaker: a
    voice is a help, the ears go on; said once."""

    def __init__(self, profile: SpeakerProfile, tap: AudioTap):
        self.profile = profile
        self.tap = tap
        self.failed = False

    def tell(self, heard: Heard) -> tuple[Heard, np.ndarray | None]:
        """(``heard`` with its speaker, the voice it was told by or None)."""
        u = heard.utterance
        try:
            voice = self.profile.voice_of(self.tap.samples(u.start, u.end))
            name, score = self.profile.whose(voice)
        except Exception as err:  # noqa: BLE001 - see the class
            if not self.failed:
                _warn(f"could not tell a voice ({err}); a bare call is asked about")
            self.failed = True
            return replace(heard, speaker=None, speaker_score=None), None
        return replace(heard, speaker=name, speaker_score=round(score, 3)), voice


def with_speaker(heard: Heard, profile: SpeakerProfile, tap: AudioTap) -> Heard:
    """``heard`` with the enrolled player whose voice it is (None when unsure)."""
    return Teller(profile, tap).tell(heard)[0]


def attach(heard: Iterable[Heard], profile: SpeakerProfile, tap: AudioTap) -> Iterator[Heard]:
    """Each ``Heard`` with its speaker (see :class:`Teller`)."""
    teller = Teller(profile, tap)
    for h in heard:
        yield teller.tell(h)[0]


def load_samples(folder: Path, players: list[str]) -> tuple[dict[str, list[np.ndarray]], list]:
    """``folder/<Player>-<N>.wav`` for each player: ({player: [16 kHz mono]}, problems).

    Raises :class:`VoiceProfileError` naming every player with no recording."""
    from referee.errors import UserError

    found: dict[str, list[np.ndarray]] = {}
    problems: list[str] = []
    missing = []
    for player in players:
        pattern = re.compile(rf"{re.escape(player)}-(\d+)\.wav", re.IGNORECASE)
        files = sorted(
            (p for p in Path(folder).iterdir() if pattern.fullmatch(p.name)),
            key=lambda p: int(pattern.fullmatch(p.name).group(1)),
        )
        clips = []
        for f in files:
            try:
                clip = read_wav(f, check=False)
            except UserError as err:
                problems.append(str(err))
                continue
            if len(clip) < MIN_SAMPLE_S * SAMPLE_RATE or float(np.abs(clip).max(initial=0)) < 1e-3:
                problems.append(f"{f} is too short or silent; skipped")
                continue
            clips.append(clip)
        if clips:
            found[player] = clips
        else:
            missing.append(player)
    if missing:
        raise VoiceProfileError(
            "no usable recording for "
            + ", ".join(missing)
            + f" in {folder} (expected "
            + ", ".join(f"{p}-1.wav" for p in missing)
            + ")"
            + ("; " + "; ".join(problems) if problems else "")
        )
    return found, problems


class VoicedRecognizer:
    """A recognizer whose every :class:`Heard` says its speaker: the live referee's push
    interface (``start``, ``feed(chunk)``, ``finish``) and ``utterances(source)`` wrapped,
    everything else (``set_context``, ``mute``, ``hearing``...) passed through.

        recognizer = VoicedRecognizer(make_recognizer(), SpeakerProfile.load("default"))
    """

    def __init__(self, recognizer, profile: SpeakerProfile, keep_s: float = 30.0,
                 kept: Path | None = None):  # fmt: skip
        self.recognizer = recognizer
        self.profile = profile
        self.tap = AudioTap(keep_s=keep_s)
        self.teller = Teller(profile, self.tap)
        #: where what play teaches the voices is kept (:meth:`SpeakerProfile.keep_learned`)
        self.kept = kept
        self._voices: dict[tuple[float, float], np.ndarray | None] = {}
        self._last: tuple[tuple[float, float] | None, Heard | None] = (None, None)
        encoder()  # loaded now (play builds this while it greets), not at the first call
        voice_space()  # ...and so is the space voices are compared in (or its fault told)

    def __getattr__(self, name: str):
        return getattr(self.recognizer, name)

    def start(self) -> None:
        self.tap.clear()
        self.recognizer.start()

    def feed(self, chunk: Chunk) -> list[Heard]:
        self.tap.remember(chunk)
        return [self._voiced(h) for h in self.recognizer.feed(chunk)]

    def finish(self) -> list[Heard]:
        return [self._voiced(h) for h in self.recognizer.finish()]

    def _voiced(self, heard: Heard) -> Heard:
        """``heard`` with its speaker; an early reading's final over the same audio (the
        usual case) reuses its answer."""
        key = (heard.utterance.start, heard.utterance.end)
        if self._last[0] != key:
            found, voice = self.teller.tell(heard)
            self._last = (key, found)
            self._voices[key] = voice
            while len(self._voices) > 16:  # the latest utterances' voices, for learn_voice
                del self._voices[next(iter(self._voices))]
        found = self._last[1]
        return replace(heard, speaker=found.speaker, speaker_score=found.speaker_score)

    def learn_voice(self, heard: Heard, player: str) -> bool:
        """``heard`` (an utterance this recognizer gave) was ``player``'s: their voiceprint
        learns its voice (:meth:`SpeakerProfile.learn`). False when its voice is not known
        or is surely someone else's."""
        voice = self._voices.get((heard.utterance.start, heard.utterance.end))
        return voice is not None and self._kept(self.profile.learn(player, voice))

    def forget_voice(self, heard: Heard, player: str) -> bool:
        """What ``learn_voice(heard, player)`` taught is taken back (the table undid it)."""
        voice = self._voices.get((heard.utterance.start, heard.utterance.end))
        return voice is not None and self._kept(self.profile.forget(player, voice))

    def _kept(self, changed: bool) -> bool:
        """``changed`` voices written to :attr:`kept` (a failure said once: the game goes on)."""
        if changed and self.kept is not None:
            try:
                self.profile.keep_learned(self.kept)
            except OSError as err:
                _warn(f"cannot keep the voices learned in {self.kept} ({err}); "
                                  "a resumed game learns them anew")  # fmt: skip
                self.kept = None
        return changed

    def utterances(self, source: Iterable[Chunk]) -> Iterator[Heard]:
        tap = AudioTap(source, self.tap._keep)
        return attach(self.recognizer.utterances(tap), self.profile, tap)
