"""Plain text normalisation shared by intent matching and control acts: case, contractions, punctuation;
and the stemmed content words of a text (`tokens`)."""

from __future__ import annotations

import re
from functools import lru_cache

CONTRACTIONS = (
    (re.compile(r"\bwon'?t\b"), "will not"),
    (re.compile(r"\bcan't\b"), "cannot"),
    (re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (re.compile(r"\b(i|you|we|they|he|she)'d\b"), r"\1 would"),
    (re.compile(r"\b(i)'m\b"), r"\1 am"),
    (re.compile(r"\b(\w+)'re\b"), r"\1 are"),
    (re.compile(r"\b(\w+)'ve\b"), r"\1 have"),
    (re.compile(r"\b(\w+)'ll\b"), r"\1 will"),
    (re.compile(r"\b(that|it|what|there|here|he|she|who|where|how)'s\b"), r"\1 is"),
    (re.compile(r"\b(\w+)'s\b"), r"\1"),
    (re.compile(r"\b(do|does|did|is|are|was|ca)nt\b"), r"\1 not"),  # typed without the apostrophe
    (re.compile(r"\bcan not\b"), "cannot"),
    (re.compile(r"\bwanna\b"), "want to"),
    (re.compile(r"\bgonna\b"), "going to"),
)
WORD = re.compile(r"[a-z0-9][a-z0-9-]*[a-z0-9]|[a-z0-9]")


def singular(word: str) -> str:
    """A word with an English plural ending taken off: "blenders", "boxes", "batteries" are "blender",
    "box", "battery"; "glass", "bus", "analysis" and short words stay. Both sides of a comparison go
    through it, so a rare misreading ("news" as "new") only matters where both words exist."""
    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    return word[:-1]


# Every reader of a message (acts, polarity, questions, recognition) normalises it again, about a dozen
# times a turn: the answer is kept for the texts seen last.
@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """Lower case, contractions spelt out, apostrophes and punctuation gone."""
    text = text.lower().replace("’", "'")
    for pattern, replacement in CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return " ".join(WORD.findall(text))


STOPWORDS = frozenset(
    "a an the i i'd i'm me my to for of and or please can could would like want need some is it be do you "
    "your with on in at this that how what".split()
)
TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    return list(_tokens(text))


def content_words(text: str) -> list[str]:
    """The tokens that say something on their own (no stop word, three letters or more): what the
    learner and its scoring compare texts by."""
    return [w for w in tokens(text) if w not in STOPWORDS and len(w) > 2]


# The same texts are read over and over (an element's description on every value found, a message by
# every reader of a turn): their words are kept.
@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[str, ...]:
    words = TOKEN.findall(text.lower())
    return tuple(_stem(w) for w in words if w not in STOPWORDS)


def _stem(word: str) -> str:
    # Enough for "loans" ~ "loan", "applying" ~ "apply": examples and users differ in such endings.
    if len(word) > 4 and word.endswith("ies"):  # "copies" ~ "copy", "deliveries" ~ "delivery"
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word
