"""The legal phrases as a tree of decoder tokens, so a decoder can be held to saying them.

A token-level constraint (only the vocabulary's tokens allowed) still lets a decoder string
them into non-phrases ("who turn", "how king"). Walking this tree instead, the decoder can only
end on a whole legal phrase, written the ways a decoder writes it: capitalized or not, words
apart or after a comma ("Ben, cheat"), "B.S." as it is spelled.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from referee.intents import COMMAND_PHRASES, PASS_PHRASES, normalize
from referee.speech.vocab import ListenContext, phrases

#: phrases spelled otherwise than word by word
SPELLINGS: dict[str, tuple[str, ...]] = {
    "b s": ("B.S.", "BS", "B.S", "b.s.", "bs"),
    "i doubt it": ("I doubt it",),
    "i pass": ("I pass",),
}


@dataclass
class Node:
    """A point in the tree: the tokens that may follow, and whether a phrase may end here."""

    children: dict[int, Node] = field(default_factory=dict)
    terminal: bool = False


def spoken_phrases(ctx: ListenContext) -> list[str]:
    """Every legal phrase, normalized, in all the forms :mod:`referee.intents` understands
    (``phrases`` leaves out the forms a word grammar cannot hold, such as "what's the score")."""
    out = list(phrases(ctx))
    if "command" in ctx.intents:
        out += [normalize(p) for p, _command in COMMAND_PHRASES]
    if "pass" in ctx.intents:
        out += [normalize(p) for p in PASS_PHRASES]
    return list(dict.fromkeys(out))


def surface_forms(phrase: str) -> list[str]:
    """How a decoder may write ``phrase``: each word lower-case or capitalized, each gap a
    space or a comma."""
    if phrase in SPELLINGS:
        return list(SPELLINGS[phrase])
    words = phrase.split()
    variants = [("I",) if w == "i" else (w, w.capitalize()) for w in words]
    forms = []
    for spelled in itertools.product(*variants):
        for gaps in itertools.product((" ", ", "), repeat=len(words) - 1):
            rest = zip(gaps, spelled[1:], strict=True)
            forms.append(spelled[0] + "".join(gap + word for gap, word in rest))
    return forms


def usual_form(phrase: str, players: Iterable[str] = ()) -> str:
    """``phrase`` as a decoder most often writes it: sentence case, names and "I" with a
    capital, no commas ("Ben cheat", "Undo that", "B.S.")."""
    if phrase in SPELLINGS:
        return SPELLINGS[phrase][0]
    names = {w for p in players for w in normalize(p).split()}
    words = [w.capitalize() if w in names or w == "i" else w for w in phrase.split()]
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]]) if words else ""


def build(encode: Callable[[str], list[int]], legal: Iterable[str]) -> Node:
    """The tree of every surface form of every phrase in ``legal``, as ``encode`` spells it
    (each form is encoded with a leading space, as a decoder writes its first word)."""
    root = Node()
    for phrase in legal:
        for form in surface_forms(phrase):
            node = root
            for token in encode(" " + form):
                node = node.children.setdefault(token, Node())
            node.terminal = True
    return root
