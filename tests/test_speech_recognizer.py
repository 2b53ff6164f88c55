"""The recognizer's shared logic: onset stamps, first caller, early calls, the mute gate,
vocabulary checks and name+call merging, with a fake backend that 'hears' tone pitches."""

from __future__ import annotations

import numpy as np
import pytest

from referee.speech.audio import ArraySource
from referee.speech.recognizer import PARTIAL_MIN_S, Recognizer
from referee.speech.types import SAMPLE_RATE, Hypothesis
from referee.speech.vad import FRAME
from referee.speech.vocab import ListenContext

CHATTER = "<chatter>"  # a backend's verdict: speech too long to be a game phrase
GUESSED = "<three kings, guessed>"  # "three kings", read by forcing onto the vocabulary
MENDED = "<cheat, mended when final>"  # read early as nothing legal; mended only when final
MENDED_CLAIM = "<three kings, mended when final>"  # the same, a claim
TAIL = "<two aces, once its quiet tail is in>"  # the last word's end is below the voice gate
TAIL_LOST = "<i doubt it, until its quiet tail is in>"  # then nothing
TAIL_CLAIM = "<cheat, until its quiet tail is in>"  # then "three kings"
GUESSED_CALL = "<a call by Ben made where whisper heard none>"
NAME_BEGUN = "<alice, read ben while it is being said>"
CALL_FLIPS = "<a bare call made 'cheater' of the words so far, 'b s' of them all>"
CALL_MADE = "<a bare call made 'cheater' however much of it is read>"
CALL_BEGUN = "<a bare call made 'cheat' of the words so far, 'cheater' of them all>"

#: the fake backend's language: a tone's pitch stands for a phrase
WORDS = {300: "cheat", 500: "two aces", 700: "ben", 900: "the weather is lovely today",
         1100: "three kings", 1300: "alice cheat", 1500: CHATTER, 1700: GUESSED,
         1900: MENDED, 2100: TAIL, 2300: "cara", 3300: "undo", 2700: "two twos",
         3100: MENDED_CLAIM, 3500: "cheat alice", 3700: TAIL_LOST,
         3900: TAIL_CLAIM, 4100: GUESSED_CALL, 4300: NAME_BEGUN,
         4500: CALL_FLIPS, 4700: CALL_MADE, 4900: CALL_BEGUN, 5300: "liar three one"}  # fmt: skip


class ToneBackend:
    name = "tones"
    streaming_cost_s = 0.0

    def __init__(self):
        self.decoded: list[float] = []
        self.finals: list[bool] = []

    def set_context(self, ctx):
        return []

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        self.decoded.append(len(audio) / SAMPLE_RATE)
        self.finals.append(final)
        spectrum = np.abs(np.fft.rfft(audio))
        freq = np.argmax(spectrum) * SAMPLE_RATE / len(audio)
        nearest = min(WORDS, key=lambda f: abs(f - freq))
        text = WORDS[nearest] if abs(nearest - freq) < 60 else ""
        if text == CHATTER:
            return Hypothesis("", chatter=True)
        if text == GUESSED:
            return Hypothesis("three kings", 0.5, guessed=True)
        if text == GUESSED_CALL:
            return Hypothesis("cheat ben", 0.5, guessed=True) if final else Hypothesis("")
        if text == CALL_FLIPS:
            return Hypothesis("cheater" if len(audio) < 1.2 * SAMPLE_RATE else "b s", 0.02,
                              guessed=True)  # fmt: skip
        if text == CALL_MADE:
            return Hypothesis("cheater", 0.02, guessed=True)
        if text == CALL_BEGUN:
            return Hypothesis("cheat" if len(audio) < 1.2 * SAMPLE_RATE else "cheater", 0.02,
                              guessed=True)  # fmt: skip
        if text == NAME_BEGUN:
            return Hypothesis("alice" if final else "ben", 0.5)
        if text == MENDED:
            if final:
                return Hypothesis("cheat", 0.5, guessed=True)
            return Hypothesis("chee", 0.5, unsettled=True)
        if text == MENDED_CLAIM:
            if final:
                return Hypothesis("three kings", 0.5, guessed=True)
            return Hypothesis("three kin", 0.5, unsettled=True)
        if text == TAIL_LOST:
            loud = np.flatnonzero(np.abs(audio) > 0.05)
            tail_s = (len(audio) - loud[-1]) / SAMPLE_RATE if len(loud) else 0.0
            return Hypothesis("i doubt it" if tail_s < 0.12 else "i doubt and", 0.9)
        if text == TAIL_CLAIM:
            loud = np.flatnonzero(np.abs(audio) > 0.05)
            tail_s = (len(audio) - loud[-1]) / SAMPLE_RATE if len(loud) else 0.0
            return Hypothesis("cheat" if tail_s < 0.12 else "three kings", 0.9, guessed=True)
        if text == TAIL:
            loud = np.flatnonzero(np.abs(audio) > 0.05)
            tail_s = (len(audio) - loud[-1]) / SAMPLE_RATE if len(loud) else 0.0
            return Hypothesis("two aces" if tail_s > 0.15 else "two a", 0.9)
        return Hypothesis(text, 0.9)


def table(*events: tuple[float, int, float], total: float | None = None) -> np.ndarray:
    """Audio with tone bursts: (start s, pitch Hz, length s), over a faint noise floor."""
    total = total or max(s + n for s, _, n in events) + 1.0
    audio = np.random.default_rng(0).normal(0, 1e-3, int(total * SAMPLE_RATE))
    for start, freq, length in events:
        t = np.arange(int(length * SAMPLE_RATE)) / SAMPLE_RATE
        i = int(start * SAMPLE_RATE)
        audio[i : i + len(t)] += 0.2 * np.sin(2 * np.pi * freq * t)
    return audio.astype(np.float32)


def recognizer(**kw) -> Recognizer:
    ctx = kw.pop("context", ListenContext(players=("Alice", "Ben")))
    return Recognizer(ToneBackend(), context=ctx, **kw)


def finals(rec, audio):
    return [h for h in rec.utterances(ArraySource(audio)) if not h.utterance.partial]


def test_utterances_are_stamped_with_their_speech_onset():
    heard = finals(recognizer(), table((1.0, 500, 0.6), (3.0, 1100, 0.7)))
    assert [h.intent.to_dict() for h in heard] == [
        {"type": "claim", "count": 2, "rank": "A"},
        {"type": "claim", "count": 3, "rank": "K"},
    ]
    assert heard[0].utterance.start == pytest.approx(1.0, abs=0.03)
    assert heard[0].utterance.end == pytest.approx(1.6, abs=0.03)
    assert heard[1].utterance.start == pytest.approx(3.0, abs=0.03)


def test_first_caller_is_decided_by_audio_time_not_decoding_time():
    # Alice calls at 1.2 s ("Alice, cheat!"); Ben says his name at 2.2 s, then "cheat"
    audio = table((1.2, 1300, 0.5), (2.2, 700, 0.25), (2.75, 300, 0.3))
    calls = [h for h in recognizer().utterances(ArraySource(audio)) if h.intent.type == "call"]
    by_caller = {}
    for h in calls:
        if h.intent.caller is not None:
            by_caller.setdefault(h.intent.caller, h.utterance.start)
    assert set(by_caller) == {"Alice", "Ben"}
    assert by_caller["Alice"] < by_caller["Ben"]
    assert by_caller["Alice"] == pytest.approx(1.2, abs=0.03)
    assert by_caller["Ben"] == pytest.approx(2.2, abs=0.03)  # the onset of his name


def test_a_call_is_emitted_before_its_utterance_ends():
    rec = recognizer()
    heard = list(rec.utterances(ArraySource(table((1.0, 300, 1.0)))))
    early = [h for h in heard if h.utterance.partial]
    final = [h for h in heard if not h.utterance.partial]
    assert early and early[0].intent.type == "call"
    assert early[0].decided_at < 2.0  # known while the caller is still speaking
    assert final[-1].utterance.start == early[0].utterance.start
    assert final[-1].decided_at >= 2.0


def test_only_calls_complete_claims_and_names_are_emitted_early():
    heard = list(recognizer().utterances(ArraySource(table((1.0, 500, 1.0)))))
    assert [h.utterance.partial for h in heard] == [True, False]
    assert heard[0].intent == heard[1].intent
    # a name may complete a call said just before it, so it comes early too (once)
    names = list(recognizer().utterances(ArraySource(table((1.0, 700, 1.0)))))
    assert [h.utterance.partial for h in names] == [True, False]
    assert {h.intent.type for h in names} == {"name"}


def test_the_first_pause_is_read_in_full_and_the_final_reuses_it():
    # the words end at 1.6 s: the decode 60 ms later is a full reading, and the endpoint
    # (200 ms of quiet) takes it as it is instead of decoding the same words again
    rec = recognizer()
    heard = list(rec.utterances(ArraySource(table((1.0, 3100, 0.6)))))
    assert rec.backend.finals[-1] is True
    assert rec.backend.finals.count(True) == 1
    final = [h for h in heard if not h.utterance.partial]
    assert [h.intent.to_dict() for h in final] == [{"type": "claim", "count": 3, "rank": "K"}]
    assert final[0].decided_at == pytest.approx(1.8, abs=0.05)  # at the endpoint


def test_a_bare_call_read_at_the_first_pause_is_read_again_whole():
    """A call without its caller waits for a name anyway, so its final reads the words with
    their quiet tail: the caller's name may end there ("cheat, Dev!" read "cheat" at the
    first pause, "cheat dev" whole)."""
    rec = recognizer()
    finals(rec, table((1.0, 1900, 0.6)))
    assert rec.backend.finals.count(True) == 2
    assert rec.backend.decoded[-1] > rec.backend.decoded[-2]


class SlowToneBackend(ToneBackend):
    """Each decode takes ``cost`` seconds of a fake clock."""

    def __init__(self, clock: list[float], cost: float):
        super().__init__()
        self.clock, self.cost = clock, cost

    def decode(self, audio, *, final=True):
        self.clock[0] += self.cost
        return super().decode(audio, final=final)


def test_no_early_decode_is_queued_behind_a_running_one(monkeypatch):
    # a long unbroken utterance with a decoder slower than the audio: live, the audio waits
    # for each decode, so periodic re-reads would pile up; they are skipped instead
    clock = [0.0]
    monkeypatch.setattr("referee.speech.recognizer.time.perf_counter", lambda: clock[0])
    fast = recognizer()
    list(fast.utterances(ArraySource(table((1.0, 900, 1.5)))))
    rec = Recognizer(SlowToneBackend(clock, 0.5), context=ListenContext(players=("Ben",)))
    list(rec.utterances(ArraySource(table((1.0, 900, 1.5)))))
    assert len(rec.backend.decoded) < len(fast.backend.decoded)
    # the words end at 2.5 s; queued, the five re-reads, the first pause and the final
    # would take until 4.7 s
    assert rec.busy_until < 4.0


def test_a_pause_reached_while_the_decoder_is_busy_is_read_only_if_the_words_stop(monkeypatch):
    """Under babble every dip is a first pause. One reached while an earlier reading still
    runs is read once the decoder is free, and not at all if the words went on by then: read
    each in full, a call made of babble ("Cara, cheat!") was known 2.3 s after its words
    (bench/table findings §17)."""
    clock = [0.0]
    monkeypatch.setattr("referee.speech.recognizer.time.perf_counter", lambda: clock[0])
    # a guessed call (it keeps the ears on the words) said in four bursts, 0.1 s apart
    bursts = [(1.0 + 0.5 * i, 1900, 0.4) for i in range(4)]
    rec = Recognizer(SlowToneBackend(clock, 0.45), context=ListenContext(players=("Ben",)))
    heard = list(rec.utterances(ArraySource(table(*bursts))))
    # the re-reads while the words go on keep the decoder busy over the first three pauses;
    # the last is read (2.96 s) and the final reads the words whole, as a bare call's does.
    # Read at every pause, the five full readings ended at 4.02 s
    assert rec.backend.finals.count(True) == 2
    final = heard[-1]
    assert not final.utterance.partial and final.intent.type == "call"
    assert final.decided_at == pytest.approx(2.96 + 0.45 + 0.45, abs=0.05)


def test_a_guessed_named_call_read_the_same_at_two_pauses_is_acted_on_early():
    """Under babble the gate stays open past the words: a call made where whisper heard
    none, read the same at a second pause, is not left to the final."""
    rec = recognizer()
    heard = list(rec.utterances(ArraySource(table((1.0, 4100, 0.4), (1.5, 4100, 0.6)))))
    early = [h for h in heard if h.utterance.partial]
    assert [h.guessed for h in early] == [True, False]
    assert early[-1].intent.to_dict() == {"type": "call", "caller": "Ben"}
    assert early[-1].decided_at < 2.2  # the words end at 2.1 s, their final at 2.3 s
    # read at one pause only, it waits for the whole utterance
    once = list(recognizer().utterances(ArraySource(table((1.0, 4100, 0.6)))))
    assert [h.guessed for h in once if h.utterance.partial] == [True]


def test_a_bare_call_made_with_another_call_word_at_its_first_pause_is_not_taken():
    """A call said is made the same at every reading; chatter's words made into a call
    flip between call words ("cheater" at the first pause, "b s" whole:
    bench/speech/chatter)."""
    flips = list(recognizer().utterances(ArraySource(table((1.0, 4500, 0.4), (1.5, 4500, 0.6)))))
    assert [(h.utterance.partial, h.utterance.text) for h in flips] == [(True, "cheater")]
    same = list(recognizer().utterances(ArraySource(table((1.0, 4700, 0.4), (1.5, 4700, 0.6)))))
    assert [(h.utterance.partial, h.utterance.text) for h in same][-1] == (False, "cheater")
    # the start of the call heard at the pause, all of it whole: one call
    begun = list(recognizer().utterances(ArraySource(table((1.0, 4900, 0.4), (1.5, 4900, 0.6)))))
    assert [(h.utterance.partial, h.utterance.text) for h in begun][-1] == (False, "cheater")


def test_mute_gate_drops_the_referees_own_voice():
    audio = table((0.5, 300, 0.5), (2.0, 500, 0.5))
    rec = recognizer()
    rec.mute(until=1.5)
    heard = finals(rec, audio)
    assert [h.intent.type for h in heard] == ["claim"]
    rec.unmute()
    assert [h.intent.type for h in finals(rec, audio)] == ["call", "claim"]


def test_mute_cuts_an_utterance_in_progress():
    rec = recognizer()
    rec.mute(until=1.2)  # the referee talks over the start of a call
    assert finals(rec, table((1.0, 300, 0.3))) == []


def test_sound_running_on_after_the_ears_open_is_echo_only_briefly():
    """Loud sound that runs on from the voice is its echo for ECHO_CARRY_S; words going on
    past that are heard, from where the ears opened (in a kitchen whose noise stayed over
    the gate, a claim begun just after they opened was once taken for echo to its end)."""
    rec = recognizer()
    rec.mute(until=1.2)
    heard = finals(rec, table((1.0, 500, 0.9)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "claim", "count": 2, "rank": "A"}]
    assert heard[0].utterance.start >= 1.2
    assert rec.backend.decoded[-1] <= 1.9 - 1.2 + 0.2  # none of the muted audio


def test_chatter_and_illegal_claims_are_rejected():
    rec = recognizer(context=ListenContext.for_rank_due("K", ("Alice", "Ben")))
    heard = finals(rec, table((0.5, 900, 0.8), (2.0, 500, 0.5), (3.0, 1100, 0.5)))
    # chatter: nothing; "two aces" while kings are due: not legal; "three kings": yes
    assert [h.intent.to_dict() for h in heard] == [{"type": "claim", "count": 3, "rank": "K"}]


def test_name_then_call_becomes_a_call_by_that_player():
    heard = finals(recognizer(), table((1.0, 700, 0.25), (1.5, 300, 0.3)))
    assert heard[-1].intent.to_dict() == {"type": "call", "caller": "Ben"}
    assert heard[-1].utterance.start == pytest.approx(1.0, abs=0.03)


def test_call_then_name_becomes_a_call_by_that_player():
    heard = finals(recognizer(), table((1.0, 300, 0.3), (1.55, 700, 0.25)))
    assert heard[-1].intent.to_dict() == {"type": "call", "caller": "Ben"}
    assert heard[-1].utterance.start == pytest.approx(1.0, abs=0.03)


def test_names_far_from_a_call_stay_names():
    heard = finals(recognizer(), table((1.0, 700, 0.25), (3.5, 300, 0.3)))
    assert [h.intent.type for h in heard] == ["name", "call"]
    assert heard[1].intent.caller is None


def test_silence_and_noise_yield_nothing():
    assert finals(recognizer(), table(total=3.0)) == []
    noisy = np.random.default_rng(1).normal(0, 0.05, 3 * SAMPLE_RATE).astype(np.float32)
    assert finals(recognizer(), noisy) == []


def test_set_context_changes_what_is_legal():
    rec = recognizer(context=ListenContext.for_rank_due("A", ()))
    audio = table((0.5, 500, 0.5))
    assert len(finals(rec, audio)) == 1
    rec.set_context(ListenContext.for_rank_due("2", ()))
    assert finals(rec, audio) == []


def test_an_early_bare_call_that_turns_out_chatter_is_dropped():
    # the first words sound like "cheat", the whole sentence is chatter: the referee never
    # acted on the bare early call, so the full utterance decides
    chatter = list(recognizer().utterances(ArraySource(table((1.0, 300, 0.45), (1.45, 900, 1.2)))))
    assert [h.utterance.partial for h in chatter] == [True]
    # an early call that named its caller was acted on at once: it stands
    named = finals(recognizer(), table((1.0, 1300, 0.45), (1.45, 900, 1.2)))
    assert [h.intent.to_dict() for h in named] == [{"type": "call", "caller": "Alice"}]


def test_an_early_claim_stands_unless_the_whole_utterance_is_chatter_or_it_was_guessed():
    # "three kings" read at the first pause, then the rest of the words decode to nothing
    # legal: a clean early reading stands (the final often just caught a cough)...
    early_then_noise = table((1.0, 1100, 0.45), (1.45, 2500, 0.6))
    assert [h.intent.to_dict() for h in finals(recognizer(), early_then_noise)] == [
        {"type": "claim", "count": 3, "rank": "K"}
    ]
    # ...but not when the whole utterance was chatter ("three kings... of them, I said")
    early_then_chatter = table((1.0, 1100, 0.45), (1.45, 1500, 1.2))
    heard = list(recognizer().utterances(ArraySource(early_then_chatter)))
    assert [h.utterance.partial for h in heard] == [True]
    # ...and not when the early reading was only a guess onto the vocabulary
    guessed_then_noise = table((1.0, 1700, 0.45), (1.45, 2500, 0.6))
    heard = list(recognizer().utterances(ArraySource(guessed_then_noise)))
    assert [(h.utterance.partial, h.guessed) for h in heard] == [(True, True)]


@pytest.mark.parametrize("start", [1.0, 1.3, 2.5, 3.7])
def test_the_least_speech_read_at_a_first_pause_is_the_same_wherever_it_falls(start):
    # PARTIAL_MIN_S of speech is read at its first pause, a frame less is not, at any time
    # in the stream: audio times are sums of 20 ms frames, and compared as seconds ten
    # frames were a hair short of 0.2 at some times and not at others
    def early(length: float) -> list[bool]:
        audio = table((start, 300, length))
        return [h.utterance.partial for h in recognizer().utterances(ArraySource(audio))]

    assert early(PARTIAL_MIN_S) == [True, False]
    assert early(PARTIAL_MIN_S - FRAME / SAMPLE_RATE) == [False]


def test_an_unsettled_early_reading_is_decoded_again_as_final():
    # read during the words without the second reading; nothing is said after it, so that
    # reading would be reused for the final: it is decoded again, as final, and mended then,
    # on the same audio (only quiet came after it, and the backend still has its encoding)
    rec = recognizer()
    heard = finals(rec, table((1.0, 3100, 0.64)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "claim", "count": 3, "rank": "K"}]
    assert heard[0].guessed
    assert rec.backend.finals[-2:] == [False, True]
    assert rec.backend.decoded[-1] == rec.backend.decoded[-2]


def test_an_unsettled_early_reading_followed_by_more_words_is_read_whole():
    # the same mended word, then more words: the final reads all of it, not the early audio
    rec = recognizer()
    finals(rec, table((1.0, 1900, 0.64), (1.74, 1300, 0.4)))
    decoded = rec.backend.decoded
    whole = decoded.index(max(decoded))  # (a bare call the head made is then read again
    assert rec.backend.finals[whole]  # from its loudest words: STRETCH_GUESSED_BARE)
    assert decoded[whole] > max(decoded[:whole])


def test_a_name_then_a_call_is_known_as_a_named_call_before_the_call_ends():
    audio = table((1.0, 700, 0.25), (1.5, 300, 1.0))
    heard = list(recognizer().utterances(ArraySource(audio)))
    named = [h for h in heard if h.intent.type == "call" and h.intent.caller == "Ben"]
    assert named[0].utterance.partial and named[0].decided_at < 2.5  # the call ends at 2.5 s
    assert named[0].utterance.start == pytest.approx(1.0, abs=0.03)
    assert not named[-1].utterance.partial


def test_after_an_early_bare_call_the_recognizer_listens_on_for_the_caller():
    # "cheat" read early, then "cheat, Alice" before the words end: a named call, early
    rec = recognizer()
    heard = list(rec.utterances(ArraySource(table((1.0, 300, 0.4), (1.4, 1300, 0.5)))))
    early = [h.intent.to_dict() for h in heard if h.utterance.partial]
    assert early[0] == {"type": "call", "caller": None}
    assert {"type": "call", "caller": "Alice"} in early


def test_the_final_reads_again_when_the_first_pause_found_nothing_legal():
    # at the first pause the reading is "two a"; with the quiet tail it is "two aces"
    rec = recognizer()
    heard = finals(rec, table((1.0, 2100, 0.6)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "claim", "count": 2, "rank": "A"}]
    assert rec.backend.finals[-2:] == [True, True]  # the first pause, then the endpoint


def babble_table(words_amplitude: float, pitch: int = 3300) -> np.ndarray:
    """Five seconds of babble holding the voice gate open (a tone of a phrase nobody legal
    says, in 0.16 s syllables 0.04 s apart, so the noise floor stays under it), a command
    tone inside it at 3.0-3.35 s ("undo", or the phrase of ``pitch``)."""
    audio = table(total=6.5)
    t = np.arange(int(5.0 * SAMPLE_RATE)) / SAMPLE_RATE
    syllables = np.where((t % 0.2) < 0.16, 0.05, 0.0)
    audio[int(0.5 * SAMPLE_RATE) : int(5.5 * SAMPLE_RATE)] += syllables * np.sin(
        2 * np.pi * 900 * t
    )
    w = t[: int(0.35 * SAMPLE_RATE)]
    i = int(3.0 * SAMPLE_RATE)
    audio[i : i + len(w)] += words_amplitude * np.sin(2 * np.pi * pitch * w)
    return audio.astype(np.float32)


def test_a_command_standing_out_of_babble_is_read_from_its_own_stretch():
    """Babble held one utterance open for 5 s; read whole it is the babble's (nothing legal),
    so the loudest words in it are read alone, stamped with their own onset: a command said
    there is taken, a call naming its caller, and a claim read plainly and surely
    (STRETCH_CLAIM: a ringing room's "four nines" under babble); not a guessed claim (chatter
    under babble read so gave claims nobody made), nor a bare call."""
    rec = recognizer()
    heard = finals(rec, babble_table(0.2))
    assert [h.utterance.text for h in heard] == ["undo"]
    assert rec.backend.decoded[-2:] == [pytest.approx(5.66), pytest.approx(0.68)]  # whole, words
    assert heard[0].utterance.start == pytest.approx(3.0, abs=0.03)
    assert heard[0].utterance.end <= 3.55
    heard = finals(recognizer(), babble_table(0.2, pitch=500))  # "two aces" there, at 0.9
    assert [h.intent.to_dict() for h in heard] == [{"type": "claim", "count": 2, "rank": "A"}]
    assert heard[0].utterance.start == pytest.approx(3.0, abs=0.03)
    rec = recognizer()
    assert finals(rec, babble_table(0.2, pitch=1700)) == []  # a claim guessed there: not taken
    assert rec.backend.decoded[-1] == pytest.approx(0.68)  # though it was read
    # a call naming its caller is taken ("Yuki, cheat!" at the end of 5 s of babble), a bare
    # call is not
    heard = finals(recognizer(), babble_table(0.2, pitch=1300))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": "Alice"}]
    assert heard[0].utterance.start == pytest.approx(3.0, abs=0.03)
    assert finals(recognizer(), babble_table(0.2, pitch=300)) == []
    # without the words standing out, nothing is read again
    rec = recognizer()
    assert finals(rec, babble_table(0.05)) == []
    backend = rec.backend
    assert all(s > 4.0 for s, final in zip(backend.decoded, backend.finals, strict=True) if final)


def test_a_claim_in_babble_is_read_from_its_stretch_only_by_the_rule(monkeypatch):
    """Without STRETCH_CLAIM (or under its floor) a claim standing out of babble is not taken."""
    from referee.speech import recognizer as module

    monkeypatch.setattr(module, "STRETCH_CLAIM", False)
    assert finals(recognizer(), babble_table(0.2, pitch=500)) == []
    monkeypatch.setattr(module, "STRETCH_CLAIM", True)
    monkeypatch.setattr(module, "STRETCH_CLAIM_MIN", 0.95)  # "two aces" is read at 0.9
    assert finals(recognizer(), babble_table(0.2, pitch=500)) == []


class HeadMadeBareBackend(ToneBackend):
    """Reads a long utterance whole as a bare call only the head heard ("cheat", 0.03,
    guessed), as whisper-constrained read Rob's "Rob, cheat!" at the end of a second of
    babble; shorter audio as the tones say."""

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        hypothesis = super().decode(audio, final=final)
        if len(audio) > 4.0 * SAMPLE_RATE:
            return Hypothesis("cheat", 0.03, guessed=True)
        return hypothesis


@pytest.mark.parametrize("pitch, caller", [(1300, "Alice"), (300, None), (500, None)])
def test_a_bare_call_only_the_head_heard_is_read_again_from_its_loudest_words(pitch, caller):
    """A call naming its caller there is taken, stamped with the words' onset; the bare call
    stands when they say no more than it (a bare call, or a claim)."""
    rec = Recognizer(HeadMadeBareBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, babble_table(0.2, pitch=pitch))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": caller}]
    assert rec.backend.decoded[-1] == pytest.approx(0.68)  # the words were read alone
    if caller is not None:
        assert heard[0].utterance.start == pytest.approx(3.0, abs=0.03)


def strong_pitches(audio: np.ndarray, pitches) -> set[int]:
    """Which of ``pitches`` sound in ``audio`` (at least 0.3 of the strongest one)."""
    spectrum = np.abs(np.fft.rfft(audio))
    hz = np.fft.rfftfreq(len(audio), 1 / SAMPLE_RATE)
    energy = {f: spectrum[np.abs(hz - f) < 30].max() for f in pitches}
    return {f for f, e in energy.items() if e > 0.3 * max(energy.values())}


class RunTogetherBackend(ToneBackend):
    """Reads two phrases said with a short pause between them as one garbled phrase (as
    whisper read espeak-ng's "Cara, cheat!": "cara m teet"), each alone as itself; and "ben"
    said with a trailing sound (pitch 2500) as "ben remind"."""

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        spectrum = np.abs(np.fft.rfft(audio))
        strong = strong_pitches(audio, [*WORDS, 2500, 2900])
        if len(strong) > 1:
            self.decoded.append(len(audio) / SAMPLE_RATE)
            self.finals.append(final)
            return Hypothesis("ben m teet", 0.5)
        peak = np.argmax(spectrum) * SAMPLE_RATE / len(audio)
        if abs(peak - 2500) < 60:
            return Hypothesis("ben remind", 0.6)
        if abs(peak - 2900) < 60:  # "Ben," whose end, once heard, reads as more words
            loud = np.flatnonzero(np.abs(audio) > 0.05)
            said_s = (loud[-1] - loud[0]) / SAMPLE_RATE if len(loud) else 0.0
            return Hypothesis("ben remind" if said_s > 0.37 else "ben", 0.6)
        return super().decode(audio, final=final)


def test_a_name_and_a_call_run_together_are_read_apart_at_their_pause():
    """ "Ben, cheat!" with 0.12 s between the words is one utterance (the gate's hangover is
    0.2 s), read whole as nothing legal; read as the words either side of the pause it is a
    call by Ben, stamped with his name's onset."""
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = list(rec.utterances(ArraySource(table((1.0, 700, 0.3), (1.42, 300, 0.3)))))
    final = [h for h in heard if not h.utterance.partial]
    assert [h.intent.to_dict() for h in final] == [{"type": "call", "caller": "Ben"}]
    assert final[0].utterance.start == pytest.approx(1.0, abs=0.03)
    assert final[0].utterance.end == pytest.approx(1.72, abs=0.03)
    # known at the pause after "cheat": the words since the name read alone, not the whole
    early = [h for h in heard if h.utterance.partial and h.intent.type == "call"]
    assert early[0].intent.caller == "Ben" and early[0].decided_at < 1.72 + 0.2
    # the name read with a sound after it ("ben remind"): its first word names the caller
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 2500, 0.3), (1.42, 300, 0.3)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": "Ben"}]


def test_a_guessed_call_after_a_name_is_read_apart_at_the_final():
    # "Ben, ... chee(t)": the call after the pause is only guessed ("cheat" forced onto the
    # vocabulary), so it is not acted on early; the final reads the two sides apart and it
    # is Ben's call, though the whole ("ben m teet") begins with his name
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 700, 0.3), (1.42, 1900, 0.3)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": "Ben"}]
    assert heard[0].guessed


def test_words_either_side_of_a_pause_are_one_call_only_when_they_make_one():
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    # a name and a claim: read apart, no call (the claim is not taken from half of it)
    heard = finals(rec, table((1.0, 700, 0.3), (1.42, 500, 0.3)))
    assert [h.intent.type for h in heard] in ([], ["name"])
    # a pause too short to be between words (60 ms): not read apart
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    assert finals(rec, table((1.0, 2500, 0.3), (1.36, 300, 0.3))) == []


def test_a_command_before_a_pause_is_taken_when_the_whole_reads_as_nothing():
    """ "undo" with the room's talk run on after it (the gate held open): the whole reads as
    nothing legal, the words before the pause "undo". Taken, from its own words; words
    after the pause are not taken so (babble says them)."""
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 3300, 0.3), (1.42, 1500, 0.3)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "command", "command": "undo"}]
    assert heard[0].utterance.end < 1.42  # its own words, not the talk after them
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    assert finals(rec, table((1.0, 1500, 0.3), (1.42, 3300, 0.3))) == []


def test_a_name_read_at_its_pause_stands_when_the_whole_begins_with_it():
    """ "Cara," read "cara" at the pause after it and "cara rip" whole (the 20 dB kitchen):
    the name stands, and the call just after it is hers."""
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 2900, 0.4), (1.66, 300, 0.3)))
    assert [h.intent.to_dict() for h in heard][-1] == {"type": "call", "caller": "Ben"}
    assert heard[-1].utterance.start == pytest.approx(1.0, abs=0.03)


def test_a_call_after_a_pause_with_nothing_legal_before_it_is_not_taken():
    """Babble held the gate open before "bullshit!" (0.12 s under the gate between them):
    read whole, nothing legal, and the words after the pause are not read alone for a
    call (bench/speech's chatter under babble: "the train was delayed again" read so as
    "i doubt it")."""
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    assert finals(rec, table((1.0, 900, 0.6), (1.72, 300, 0.3))) == []


def test_a_bare_call_read_again_whole_stands_when_the_whole_reads_nothing():
    # "I doubt it" read at the first pause; read again with its quiet tail, nothing legal
    # (a 20 dB noise clip of bench/speech): the call read first stands
    rec = recognizer()
    heard = finals(rec, table((1.0, 3700, 0.5)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": None}]
    assert rec.backend.finals.count(True) == 2  # read again, and not taken


def test_a_bare_call_read_again_whole_as_another_kind_of_thing_stands_as_the_call():
    # "cheat!" read at the first pause; read again with its quiet tail (for a caller's
    # name), "three twos" (bench/echo's noise room): a claim nobody made; the call stands
    heard = finals(recognizer(), table((1.0, 3900, 0.4)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": None}]


def test_a_caller_named_last_is_taken_only_once_the_words_pause():
    """Read while the words go on, "cheat alice" may be "cheat, Al-" finished by the
    decoder's guess (espeak-ng's "cheat, Dev!" read "cheat ben" 0.3 s in): the call comes
    early without its caller, and the caller only from the reading at the pause after it."""
    heard = list(recognizer().utterances(ArraySource(table((1.0, 3500, 1.0)))))
    early = [h for h in heard if h.utterance.partial]
    assert early[0].intent.to_dict() == {"type": "call", "caller": None}
    assert early[0].decided_at < 2.0
    named = [h for h in early if h.intent.caller == "Alice"]
    assert named and named[0].decided_at >= 2.0 + 0.06  # the words end at 2.0 s


def test_a_name_is_read_only_once_its_words_pause():
    """ "Liar, Alice!" with a pause at the comma: the call, then the first 0.3 s of "Alice"
    read "ben" while it was being said (whisper finishing the name with a guess), paired with
    the call and acted on as Ben's (bench/speech/named.py). A name alone is read at its
    pause, whole."""
    heard = list(recognizer().utterances(ArraySource(table((1.0, 300, 0.4), (1.7, 4300, 0.6)))))
    callers = [h.intent.caller for h in heard if h.intent.type == "call"]
    assert "Ben" not in callers
    assert callers[-1] == "Alice"
    named = next(h for h in heard if h.intent.type == "call" and h.intent.caller == "Alice")
    assert named.decided_at < 2.3 + 0.15  # at the pause after the name, not its final


def test_a_short_utterance_read_as_a_name_and_a_stray_word_names_the_caller_after_it():
    """ "Cara," read "cara red" at its pause and "cara mipp" whole (the 20 dB kitchen, no
    legal early reading): the name, and the bare call just after it is hers."""
    rec = Recognizer(RunTogetherBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 2500, 0.3), (1.66, 300, 0.3)))
    assert [h.intent.to_dict() for h in heard][-1] == {"type": "call", "caller": "Ben"}
    assert heard[-1].utterance.start == pytest.approx(1.0, abs=0.03)
    # more words after the name are chatter, not a name: the call stays bare
    rec = Recognizer(ChattyBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 2500, 0.3), (1.66, 300, 0.3)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": None}]


class ChattyBackend(RunTogetherBackend):
    """Reads the 2500 Hz tone as "ben is late again"."""

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        hypothesis = super().decode(audio, final=final)
        if hypothesis.text == "ben remind":
            return Hypothesis("ben is late again", 0.6)
        return hypothesis


def test_a_claim_read_while_the_words_go_on_waits_for_a_second_reading_to_agree():
    """Under babble the first words of "cheat, player three!" were read "two kings" 0.8 s in
    by a periodic re-read and taken as the current player's claim (bench/table): a claim read
    while the words go on is emitted only when the next reading says it too."""
    # "two aces" read 0.22 s in, then the words go on as something else: no claim at all
    heard = list(recognizer().utterances(ArraySource(table((1.0, 500, 0.25), (1.25, 900, 1.0)))))
    assert [h.intent.type for h in heard] == []
    # a claim said with more sound after it (a cough) reads the same again: taken early
    heard = list(recognizer().utterances(ArraySource(table((1.0, 1100, 0.8), (1.8, 2500, 0.4)))))
    early = [h for h in heard if h.utterance.partial]
    assert early and early[0].intent.to_dict() == {"type": "claim", "count": 3, "rank": "K"}
    assert early[0].decided_at < 1.8
    # read once and the words pause right after: taken at the pause, before reading it again
    heard = list(recognizer().utterances(ArraySource(table((1.0, 1100, 0.3)))))
    early = [h for h in heard if h.utterance.partial]
    assert early and early[0].intent.to_dict() == {"type": "claim", "count": 3, "rank": "K"}
    assert early[0].decided_at < 1.3 + 0.1


def test_babble_well_under_the_last_words_is_not_someone_speaking():
    """A bare call waits for its caller's name while someone is speaking; the babble of the
    room reopening the gate after it is not that (MicProfile.words_drop_db)."""
    from referee.speech.audio import Chunk

    rng = np.random.default_rng(2)
    audio = table((1.0, 300, 0.3), total=3.0)  # "cheat"
    babble = rng.normal(0, 0.2 * 10 ** (-20 / 20), 4 * SAMPLE_RATE).astype(np.float32)
    loud_word = table((0.2, 700, 0.4), total=1.0)  # "ben", as loud as the call
    rec = recognizer()
    heard = rec.feed(Chunk(0.0, audio))
    assert [h.intent.to_dict() for h in heard if not h.utterance.partial] == [
        {"type": "call", "caller": None}
    ]
    hearing = []
    for i in range(0, len(babble), FRAME):
        rec.feed(Chunk(3.0 + i / SAMPLE_RATE, babble[i : i + FRAME]))
        hearing.append((rec._segmenter.in_speech, rec.hearing))
    assert any(gate for gate, _ in hearing)  # the babble opened the gate
    assert not any(speaking for _, speaking in hearing)
    rec.feed(Chunk(7.0, loud_word[: int(0.5 * SAMPLE_RATE)]))
    assert rec.hearing  # a word as loud as the call's is someone speaking


class FaintNameBackend(ToneBackend):
    """Reads a name said alone after a pause as nothing (pitch 4500), as whisper read
    "Alice" alone in 10 dB noise, or as another name (4700: "ben"), as "Cara" alone was
    read "dev" in a 20 dB kitchen; and the call before it and the name together as
    "cheat alice"."""

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        strong = strong_pitches(audio, (300, 500, 4500, 4700, 4900, 5100, 5500, 5700))
        self.decoded.append(len(audio) / SAMPLE_RATE)
        self.finals.append(final)
        if strong == {5500}:
            return Hypothesis("see", 0.5)  # "cheat" alone after a pause, as whisper read it
        if strong == {5700}:
            return Hypothesis("three kings", 0.3, guessed=True)  # and as it forced it once
        if strong in ({4700, 5500}, {4700, 5700}):
            return Hypothesis("ben cheat", 0.5)
        if strong == {300, 4900}:
            return Hypothesis("cheat play a", 0.5)  # "cheat, play-" (the seat unfinished)
        if strong == {300, 4900, 5100}:
            return Hypothesis("cheat play a three", 0.5)
        if strong and strong <= {4900, 5100}:
            return Hypothesis("")
        if strong in ({300, 4500}, {300, 4700}):
            return Hypothesis("cheat alice", 0.5)
        if strong == {4700}:
            return Hypothesis("ben", 0.5)
        if strong == {500, 4500}:
            return Hypothesis("two aces alice", 0.5)
        if strong == {4500}:
            return Hypothesis("")
        return super().decode(audio, final=final)


def test_words_read_as_nothing_just_after_a_bare_call_are_read_again_with_it():
    """ "cheat, Alice!" with a comma longer than the gate's hangover is two utterances; in
    10 dB noise "Alice" alone read as nothing (bench/speech, twice). Read joined to the
    call, it names the caller: the same call (its onset), now Alice's."""
    rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 300, 0.3), (1.75, 4500, 0.4)))
    assert heard[-1].intent.to_dict() == {"type": "call", "caller": "Alice"}
    assert heard[-1].utterance.start == pytest.approx(1.0, abs=0.03)
    assert heard[-1].utterance.end == pytest.approx(2.15, abs=0.03)
    # the joined reading heard both: the call's audio and the name's
    assert max(rec.backend.decoded) > 1.5


@pytest.mark.parametrize(
    "events",
    [
        ((1.0, 300, 0.3), (2.1, 4500, 0.4)),  # too long after the call to be its name
        ((1.0, 500, 0.3), (1.75, 4500, 0.4)),  # after a claim: nothing is read again
    ],
)
def test_only_words_just_after_a_bare_call_are_read_again_with_it(events):
    rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table(*events))
    assert len(heard) == 1 and heard[0].intent.to_dict() in (
        {"type": "call", "caller": None},
        {"type": "claim", "count": 2, "rank": "A"},
    )
    assert max(rec.backend.decoded) < 1.5  # each utterance read alone (pre-roll and all)


def test_a_name_just_after_a_bare_call_is_read_with_it_at_its_first_pause():
    """In a 20 dB kitchen "Cara" after "cheat," read alone at its pause was "dev", paired
    with the call and acted on as Dev's (bench/table). Read joined to the call it is the
    caller's own name, known at that pause."""
    rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = list(rec.utterances(ArraySource(table((1.0, 300, 0.3), (1.75, 4700, 0.4)))))
    callers = [h.intent.caller for h in heard if h.intent.type == "call"]
    assert "Ben" not in callers and callers[-1] == "Alice"
    early = next(h for h in heard if h.utterance.partial and h.intent.caller == "Alice")
    assert early.utterance.start == pytest.approx(1.0, abs=0.03)
    assert early.decided_at < 2.15 + 0.1  # at the pause after the name, not its final
    assert all(h.intent.type != "name" for h in heard)


def test_a_seat_just_after_a_bare_call_is_taken_only_once_it_is_said_whole():
    """ "cheat, ... player three!" in 20 dB noise: at the pause inside "play-er" the words
    since the call, read with it, were "cheat play a" (Alice's seat); the whole, "cheat
    play a three" (bench/speech/named.py). By seat, the final decides."""
    rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben", "Cara")))
    audio = table((1.0, 300, 0.3), (1.75, 4900, 0.25), (2.1, 5100, 0.3))
    heard = list(rec.utterances(ArraySource(audio)))
    callers = [h.intent.caller for h in heard if h.intent.type == "call"]
    assert "Alice" not in callers and callers[-1] == "Cara"


def test_a_bare_call_just_after_words_read_as_nothing_is_read_with_them():
    """ "Cara, ... cheat!" under babble: the gate closed at the comma, "Cara" alone read as
    nothing, and her call was bare (bench/table findings §21). Read joined to the words
    just before it, it names her: stamped with her name's onset, as "Ben ... cheat!" is."""
    rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 4500, 0.4), (1.75, 300, 0.3)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": "Alice"}]
    assert heard[0].utterance.start == pytest.approx(1.0, abs=0.03)
    # words long before the call are not its caller's name
    rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 4500, 0.4), (2.4, 300, 0.3)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": None}]


def test_words_read_as_nothing_just_after_a_name_are_read_with_it():
    """ "Rob, ... cheat!" in a quiet room: the gate closed at the comma, "Rob" was read alone
    (a name, nothing by itself in play) and "cheat" alone "see" (bench/table, strangers);
    in a 20 dB kitchen it was forced to "three sixes", and ended the game.
    Read joined to the name just before, it is Rob's call, stamped with his name's onset."""
    for alone in (5500, 5700):  # read as nothing, or guessed a claim ("three sixes")
        rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben")))
        heard = finals(rec, table((1.0, 4700, 0.3), (1.75, alone, 0.3)))
        assert [h.intent.to_dict() for h in heard] == [
            {"type": "name", "name": "Ben"},
            {"type": "call", "caller": "Ben"},
        ]
        assert heard[-1].utterance.start == pytest.approx(1.0, abs=0.03)
    # words long after a name are not read with it
    rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 4700, 0.3), (2.4, 5500, 0.3)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "name", "name": "Ben"}]


class GuessedJoinBackend(FaintNameBackend):
    """As :class:`FaintNameBackend`, but the name and the words after it read together are
    a call the backend made where whisper read none (guessed)."""

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        if strong_pitches(audio, (4700, 5500)) == {4700, 5500}:
            self.decoded.append(len(audio) / SAMPLE_RATE)
            return Hypothesis("ben cheat", 0.2, guessed=True)
        return super().decode(audio, final=final)


@pytest.mark.parametrize("length", [0.16, 0.3])
@pytest.mark.parametrize("backend", [FaintNameBackend, GuessedJoinBackend])
def test_words_just_after_a_name_are_read_with_it_at_their_first_pause(backend, length):
    """ "Rob, ... cheat!" with the comma longer than the gate's hangover was read only when
    the call's own hangover ended, alone and then joined to the name: acted on 0.46-0.67 s
    after the words in a 20 dB kitchen and 15 dB babble (bench/table, strangers). Read
    joined at its first pause (however short the call word), Ben's call is known there;
    made where whisper read none (guessed), the whole utterance decides, read joined first
    (the call word is not read alone again)."""
    rec = Recognizer(backend(), context=ListenContext(players=("Alice", "Ben")))
    end = 1.75 + length
    heard = list(rec.utterances(ArraySource(table((1.0, 4700, 0.3), (1.75, 5500, length)))))
    calls = [h for h in heard if h.intent.type == "call"]
    assert [(h.utterance.partial, h.intent.caller) for h in calls] == [
        (True, "Ben"),
        (False, "Ben"),
    ]
    assert calls[0].decided_at < end + 0.1  # the first pause: 60 ms after the words
    assert calls[0].guessed == (backend is GuessedJoinBackend)
    assert all(h.utterance.start == pytest.approx(1.0, abs=0.03) for h in calls)
    joined = [d for d in rec.backend.decoded if d > 1.2]
    assert len(joined) == 1  # the final reuses the pause's reading
    after_name = rec.backend.decoded[1:]
    assert all(d > 1.2 or d < 0.6 for d in after_name)  # nor alone at its end


class LostNameBackend(FaintNameBackend):
    """Reads the words after a name (5900) alone as other words, and joined to the name as a
    call that names no one: under 10 dB babble espeak-ng's "Ben, cheat!" read "ben", then
    "thank you", and joined, "cheat" (bench/speech)."""

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        strong = strong_pitches(audio, (4700, 5900))
        if strong == {5900}:
            self.decoded.append(len(audio) / SAMPLE_RATE)
            return Hypothesis("thank you", 0.6)
        if strong == {4700, 5900}:
            self.decoded.append(len(audio) / SAMPLE_RATE)
            return Hypothesis("cheat", 0.05, guessed=True)
        return super().decode(audio, final=final)


def test_a_bare_call_read_from_words_joined_to_a_name_is_that_players():
    """The words after a name read alone, read as other words alone and as a bare call when
    joined to the name: the call is theirs, its caller the name (as if they had read as the
    call alone, :func:`merge_caller`). The call is never taken from words long after a
    name, nor from such words with no name before them."""
    rec = Recognizer(LostNameBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 4700, 0.3), (1.75, 5900, 0.3)))
    assert [h.intent.to_dict() for h in heard] == [
        {"type": "name", "name": "Ben"},
        {"type": "call", "caller": "Ben"},
    ]
    assert heard[-1].utterance.start == pytest.approx(1.0, abs=0.03)
    for events in (((1.0, 4700, 0.3), (2.4, 5900, 0.3)), ((1.75, 5900, 0.3),)):
        rec = Recognizer(LostNameBackend(), context=ListenContext(players=("Alice", "Ben")))
        assert all(h.intent.type != "call" for h in finals(rec, table(*events)))


def test_a_blip_is_not_read_as_many_words():
    """0.06 s of loud sound, read with its pre-roll, was "liar three one": a call invented in
    bench/speech/chatter. A reading's words after its first need 0.1 s of the utterance
    each; the same words said at length are heard."""
    assert finals(recognizer(), table((1.0, 5300, 0.06))) == []
    heard = finals(recognizer(), table((1.0, 5300, 0.4)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": None}]


class LoneTwoBackend(ToneBackend):
    """Reads pitch 5900 as "two" (with twos due: one two, a claim)."""

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        if strong_pitches(audio, (5900,)) == {5900}:
            return Hypothesis("two", 0.9)
        return super().decode(audio, final=final)


def test_a_blip_is_no_call_nor_name_but_a_short_count_word_is_a_claim():
    """Under 10 dB babble, 0.06-0.08 s over the gate read "liar" (five times), "bullshit",
    "ben" and "pass" in bench/speech/chatter; true calls stayed over it 0.14 s and more
    (bench/speech/call_lengths.md). A real "six" lasts 0.08 s over the gate (fsdd): a claim
    of the rank due said alone stands however short."""
    assert finals(recognizer(), table((1.0, 300, 0.06))) == []  # "cheat"
    assert finals(recognizer(), table((1.0, 700, 0.06))) == []  # "ben"
    heard = finals(recognizer(), table((1.0, 300, 0.12)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "call", "caller": None}]
    rec = Recognizer(LoneTwoBackend(), context=ListenContext.for_rank_due("2", ()))
    heard = finals(rec, table((1.0, 5900, 0.06)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "claim", "count": 1, "rank": "2"}]


class FaintClaimBackend(ToneBackend):
    """Reads pitch 5900 as "one two", faintly (0.2) or plainly, as whisper read babble alone
    with twos due."""

    def __init__(self, confidence: float):
        super().__init__()
        self.confidence = confidence

    def decode(self, audio: np.ndarray, *, final: bool = True) -> Hypothesis:
        if strong_pitches(audio, (2700, 5900)) == {5900}:
            return Hypothesis("one two", self.confidence)
        return super().decode(audio, final=final)


@pytest.mark.parametrize("under_db, confidence, taken", [
    (15, 0.2, False),  # the room's babble, read faintly: dropped
    (15, 0.6, True),   # read plainly: a soft player's claim stands
    (6, 0.2, True),    # a faint reading of words near the table's level stands
    (15, None, True),  # a backend that gives no confidence (pocketsphinx) is never faint
    (19, 0.35, False), # far under the table, read less than plainly: the room's
    (19, None, True),
    (13, 0.35, True),  # less than plainly, but not so far under: a soft player's
    (19, 0.6, True),   # far under, read plainly: stands
])  # fmt: skip
def test_a_faint_reading_of_words_well_under_the_tables_is_the_rooms(under_db, confidence, taken):
    audio = table((1.0, 2700, 0.6), total=4.0)  # "two twos", said at the table
    t = np.arange(int(0.4 * SAMPLE_RATE)) / SAMPLE_RATE
    quiet = 0.2 * 10 ** (-under_db / 20) * np.sin(2 * np.pi * 5900 * t)
    audio[int(2.5 * SAMPLE_RATE) : int(2.5 * SAMPLE_RATE) + len(t)] += quiet.astype(np.float32)
    rec = Recognizer(FaintClaimBackend(confidence), context=ListenContext.for_rank_due("2", ()))
    heard = [h.utterance.text for h in finals(rec, audio)]
    assert heard[0] == "two twos"
    assert ("one two" in heard) == taken


def test_a_faint_reading_is_taken_before_anything_set_the_tables_level():
    t = np.arange(int(0.4 * SAMPLE_RATE)) / SAMPLE_RATE
    audio = table((0.2, 100, 0.01), total=3.0)
    audio[SAMPLE_RATE : SAMPLE_RATE + len(t)] += (0.02 * np.sin(2 * np.pi * 5900 * t)).astype(
        np.float32
    )
    rec = Recognizer(FaintClaimBackend(0.2), context=ListenContext.for_rank_due("2", ()))
    assert [h.utterance.text for h in finals(rec, audio)] == ["one two"]


def test_a_name_just_after_words_read_as_nothing_is_read_again_with_them():
    """ "cheat, ... Rob!" in a 20 dB kitchen: "cheat" alone (piper's deep voice) read as
    nothing, "Rob" alone as his name, and the call went unheard twice (bench/table,
    strangers, 5fcbafb). Read joined, a call naming its caller: his call, from its onset."""
    rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 5500, 0.3), (1.75, 4700, 0.4)))
    assert heard[-1].intent.to_dict() == {"type": "call", "caller": "Ben"}
    assert heard[-1].utterance.start == pytest.approx(1.0, abs=0.03)


def test_a_name_alone_after_words_read_as_nothing_stays_a_name_when_they_make_no_call():
    rec = Recognizer(FaintNameBackend(), context=ListenContext(players=("Alice", "Ben")))
    heard = finals(rec, table((1.0, 4900, 0.3), (1.75, 4700, 0.4)))
    assert [h.intent.to_dict() for h in heard] == [{"type": "name", "name": "Ben"}]
