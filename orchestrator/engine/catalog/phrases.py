"""How an element's words sit in a sentence: a noun phrase ("the pizza type", "your email address") or an
embedded question ("how you pay for the order"), spoken to the user or about them.

Element names and descriptions are written by analysts in any of these shapes; the sentences built from
them (a plan step, a question) pick their frame from the shape rather than pasting the words after
"their" or "give me".
"""

from __future__ import annotations

WH_WORDS = frozenset(("what", "which", "how", "when", "where", "who", "why"))
DETERMINERS = frozenset(("a", "an", "the", "your", "my", "our", "their", "his", "her", "its", "this", "that", "any"))
# What a person has of their own: "their email", "their date of birth"; anything else is "the pizza type".
PERSONAL = frozenset((
    "email", "e-mail", "name", "surname", "address", "phone", "mobile", "birth", "birthday", "age", "ssn", "income",
    "salary", "password", "username", "passport", "nationality", "gender", "signature", "employer", "occupation",
))
_TO_THIRD = {"you": "they", "your": "their", "yours": "theirs", "yourself": "themselves", "you're": "they're",
             "you've": "they've"}


def is_clause(phrase: str) -> bool:
    """ "how you pay for the order" is an embedded question, not a thing one can be given."""
    return phrase.split(" ", 1)[0].lower() in WH_WORDS


def has_determiner(phrase: str) -> bool:
    return phrase.split(" ", 1)[0].lower() in DETERMINERS


def is_personal(phrase: str) -> bool:
    words = (word.strip(".,").lower() for word in phrase.replace("_", " ").split())
    return any(word.removesuffix("'s").removesuffix("’s") in PERSONAL for word in words)


def about_the_user(phrase: str) -> str:
    """The phrase said of the user rather than to them: "how you pay" -> "how they pay", "your name" ->
    "their name"."""
    return " ".join(_TO_THIRD.get(word.lower(), word) for word in phrase.split(" "))


def the_thing(phrase: str, *, owner: str) -> str:
    """A bare noun phrase given its determiner: `owner` ("your", "their") for what a person has of their
    own, "the" for anything else; a phrase that has one keeps it."""
    if has_determiner(phrase) or is_clause(phrase):
        return phrase
    return f"{owner if is_personal(phrase) else 'the'} {phrase}"


def lower_first(text: str) -> str:
    """A catalog's phrase as it reads mid-sentence: "Your phone number" -> "your phone number"; "SSN" or
    "IBAN" stay as written."""
    return text[0].lower() + text[1:] if len(text) > 1 and text[0].isupper() and not text[1].isupper() else text


def joined(items: list[str], word: str = "and") -> str:
    """ "a, b and c" (or "a, b or c" with `word="or"`); one item alone; "" for none."""
    return ", ".join(items[:-1]) + f" {word} " + items[-1] if len(items) > 1 else "".join(items)
