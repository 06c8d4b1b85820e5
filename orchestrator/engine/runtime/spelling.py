"""Repairing misspelt words before an utterance is embedded, and only misspelt ones.

A word the catalog does not use is not a typo for that reason: "last", "second", "apply", "sales" are
English words, and rewriting them towards the catalog's vocabulary ("last" -> "least", "sales" ->
"salaries") changed what users asked for. A word is repaired only when it is neither in the catalog's
vocabulary nor an English word; the English words are pyspellchecker's English frequency list (about
160,000 words from subtitles and web text, cleaned of common misspellings), read once per process.
So "passwrd" becomes "password", while "lone" stays "lone": it is a word, and the sentence encoder
reads "a personal lone" near enough to a loan without help.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

from rapidfuzz import fuzz, process

_english: Collection[str] | None = None
_english_lock = threading.Lock()


def english_words() -> Collection[str]:
    """pyspellchecker's English word list (lower case), loaded once; empty when the package is missing,
    in which case nothing outside the catalog's vocabulary counts as a word (the old behaviour)."""
    global _english
    with _english_lock:
        if _english is None:
            try:
                from spellchecker import SpellChecker
            except ImportError:  # pragma: no cover - a required dependency; kept usable without it
                _english = frozenset()
            else:
                # Its word-frequency table is a dict: membership is all we need, and it costs no copy.
                _english = SpellChecker(language="en", distance=1).word_frequency.dictionary
        return _english


class SpellingRepair:
    """Replaces a word that is neither the catalog's nor English by the closest catalog word, when close
    enough and starting with the same letter ("lon" -> "loan", never "work" -> "fork")."""

    def __init__(self, vocabulary: set[str], min_score: float = 75.0, words: Collection[str] | None = None):
        self.vocabulary = sorted(w for w in vocabulary if len(w) >= 4)
        self.known = vocabulary
        self.min_score = min_score
        self.words = english_words() if words is None else words

    def __call__(self, text: str) -> str:
        return " ".join(self._word(w) for w in text.split())

    def is_word(self, word: str) -> bool:
        return word in self.known or word in self.words

    def _word(self, word: str) -> str:
        if len(word) < 4 or not self.vocabulary or self.is_word(word) or any(c.isdigit() for c in word):
            return word
        found = process.extractOne(word, self.vocabulary, scorer=fuzz.ratio, score_cutoff=self.min_score)
        return found[0] if found and found[0][0] == word[0] else word
