"""Control acts: the conversation's own moves (stop, yes, no, what/how/why, help, "what do you mean?").

An act counts only when it is the whole utterance (give or take politeness): "help me, I can't
remember my password" is a request, "no power when I press the button" describes a fault, and
"cancel my booking" may be a catalog's intent. Yes and no are read by `polarity.yes_no`: "no problem, go
ahead" is a yes, "I'd rather not" a no, "sure, why not?" a yes.
"""

from __future__ import annotations

import re

from .polarity import stops, yes_no
from .text import normalise

_TAIL = r"(?: (?:please|now|then|thanks|thank you|for now))*"
WHAT = re.compile(r"\bwhat (?:did|have) you (?:do|done)\b|\bwhat happened so far\b|^(?:a )?summar(?:y|ise|ize)\b")
HOW = re.compile(r"\bhow did you (?:get|find|know|obtain|work out|come up with)\b")
WHY = re.compile(r"\bwhy (?:did|do|would) you (?:need|ask|want|use|require|check)\b"
                 r"|^(?:and |but |so )?why (?:was|is|were|did) (?:my|the) \w+")
HELP = re.compile(r"(?:help|help me|what can you do|what can you do for me|what do you do|what can i ask"
                  r"|what are my options|options|menu)" + _TAIL)
CLARIFY = re.compile(r"(?:sorry |i am sorry )?(?:what do you mean|what does that mean|what is that|meaning"
                     r"|i do not understand|i do not get it|pardon|come again|huh|what|sorry|excuse me)"
                     r"(?: by that| by it)?" + _TAIL)

# "What is my handset?", "remind me of the booking reference": a question about a value the session
# holds. Only an act when what follows names an element the session knows (the caller checks), since
# "what is the status of my claim" is a request.
RECALL = re.compile(r"(?:what is|what was|what are|which is|which was|remind me of|remind me|tell me again)"
                    r" (?:my|the|our) (?P<rest>.+)|which (?P<which>.+) did i (?:give|choose|pick|say|ask for)")

INTERJECTION = re.compile(r"^(?:well|um|umm|uh|oh|hmm|ah|erm|hm) ")
DONT_KNOW = re.compile(r"\b(?:do not|did not) (?:know|have|remember|recall)\b|\bno idea\b"
                       r"|\bcannot (?:tell|give|find|remember)\b|\bnot sure\b")
DONT_KNOW_WHOLE = re.compile(r"(?:i )?(?:do not|did not) (?:know|have it|have one|remember|recall)|no idea"
                             r"|(?:i am )?not sure|i cannot (?:tell|say|remember)|no clue|dunno|pass" + _TAIL)


def control_act(utterance: str) -> str | None:
    """The act the whole utterance makes, or None for anything else (a request, an answer, a value)."""
    text = INTERJECTION.sub("", normalise(utterance))
    if stops(text):
        return "stop"
    if WHAT.search(text):
        return "what"
    if HOW.search(text):
        return "how"
    if WHY.search(text):
        return "why"
    if HELP.fullmatch(text):
        return "help"
    if CLARIFY.fullmatch(text):
        return "clarify"
    return yes_no(utterance)


def recalled_words(utterance: str) -> str | None:
    """The words naming what a "what is my ...?" question asks about, or None for anything else."""
    match = RECALL.fullmatch(INTERJECTION.sub("", normalise(utterance)))
    return (match.group("rest") or match.group("which")) if match else None


def cannot_answer(utterance: str, whole: bool) -> bool:
    """ "I don't know": anywhere in an answer to a formatted question, only as the whole answer to a
    free-text one ("Don't know what happened, it just died" describes a fault)."""
    text = normalise(utterance)
    return bool(DONT_KNOW_WHOLE.fullmatch(text) if whole else DONT_KNOW.search(text))
