"""Control acts: the conversation's own moves (stop, yes, no, what/how/why, help, "what do you mean?").

An act counts only when it is the whole utterance (give or take politeness): "help me, I can't
remember my password" is a request, "no power when I press the button" describes a fault, and
"cancel my booking" may be a catalog's intent. Yes and no are read from everyday phrasings, each
clause of the reply checked against a lexicon: "no problem, go ahead" is a yes, "I'd rather not"
a no, "sure, why not?" a yes.
"""

from __future__ import annotations

import re

from .text import normalise

_TAIL = r"(?: (?:please|now|then|thanks|thank you|for now))*"
STOP = re.compile(
    r"(?:please )?(?:i want to |i would like to |let us |lets |can we |just )?"
    r"(?:stop|cancel|abort|quit|never mind|nevermind|forget it|forget about it|forget that)"
    r"(?: (?:it|that|this|the request|everything|all))?" + _TAIL
)
WHAT = re.compile(r"\bwhat (?:did|have) you (?:do|done)\b|\bwhat happened so far\b|^(?:a )?summar(?:y|ise|ize)\b")
HOW = re.compile(r"\bhow did you (?:get|find|know|obtain|work out|come up with)\b")
WHY = re.compile(r"\bwhy (?:did|do|would) you (?:need|ask|want|use|require|check)\b"
                 r"|^(?:and |but |so )?why (?:was|is|were|did) (?:my|the) \w+")
HELP = re.compile(r"(?:help|help me|what can you do|what can you do for me|what do you do|what can i ask"
                  r"|what are my options|options|menu)" + _TAIL)
CLARIFY = re.compile(r"(?:sorry |i am sorry )?(?:what do you mean|what does that mean|what is that|meaning"
                     r"|i do not understand|i do not get it|pardon|come again|huh|what|sorry|excuse me)"
                     r"(?: by that| by it)?" + _TAIL)

_YES = (
    r"(?:yes|yeah|yep|yup|ya|sure|ok|okay|k|alright|all right|fine|fine by me|fine with me|that is fine"
    r"|that is ok|that is okay|it is fine|it is ok|go ahead|go on|go for it|please do|do it|do so|yes please"
    r"|of course|absolutely|definitely|certainly|agreed|i agree|i do|correct|right|sounds good|sounds fine"
    r"|no problem|not a problem|no worries|i do not mind|do not mind|why not|sure why not|by all means"
    r"|you can|you may|you have my permission|you have my consent|ok with me|okay with me|that works"
    r"|perfect|great|good|i consent|i accept|accepted|approved|allowed|yes you can|yes go ahead|go on then)"
    r"(?: (?:please|then|thanks|thank you|sure|go ahead|share it|you can|with me|do it|by me))*"
)
YES = re.compile(f"{_YES}(?: {_YES})*")  # "yeah that is fine", "ok go ahead"
_NO = (
    r"(?:no|nope|nah|no way|not really|never|no thanks|no thank you|i would rather not|rather not|would rather not"
    r"|i would prefer not|i prefer not|prefer not|please do not|do not|please do not share it|do not share it"
    r"|do not share|do not do that|do not do it|i do not agree|i disagree|i refuse|refused|not ok|not okay"
    r"|not fine|absolutely not|certainly not|of course not|definitely not|i do not want to|i do not want that"
    r"|i do not want it|not now|no no|not at all|no i do not|i do not|nothing|do not bother|no need"
    r"|i would rather you did not|keep it private|keep it to yourself|that is not ok|that is not okay)"
    r"(?: (?:please|thanks|thank you|share it|share that|share them|do that|do it|to|that|it|with them"
    r"|with anyone|at all))*"
)
NO = re.compile(f"{_NO}(?: {_NO})*")
INTERJECTION = re.compile(r"^(?:well|um|umm|uh|oh|hmm|ah|erm|hm) ")
CLAUSES = re.compile(r"[,.;:!?]+|\s+-\s+")
DONT_KNOW = re.compile(r"\b(?:do not|did not) (?:know|have|remember|recall)\b|\bno idea\b"
                       r"|\bcannot (?:tell|give|find|remember)\b|\bnot sure\b")
DONT_KNOW_WHOLE = re.compile(r"(?:i )?(?:do not|did not) (?:know|have it|have one|remember|recall)|no idea"
                             r"|(?:i am )?not sure|i cannot (?:tell|say|remember)|no clue|dunno|pass" + _TAIL)


def yes_no(utterance: str) -> str | None:
    """ "yes" or "no" when every clause of the utterance says so, else None."""
    verdicts = set()
    for clause in CLAUSES.split(utterance.lower()):
        words = INTERJECTION.sub("", normalise(clause))
        if not words:
            continue
        if YES.fullmatch(words):
            verdicts.add("yes")
        elif NO.fullmatch(words):
            verdicts.add("no")
        else:
            return None
    return verdicts.pop() if len(verdicts) == 1 else None


def control_act(utterance: str) -> str | None:
    """The act the whole utterance makes, or None for anything else (a request, an answer, a value)."""
    text = INTERJECTION.sub("", normalise(utterance))
    if STOP.fullmatch(text):
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


def cannot_answer(utterance: str, whole: bool) -> bool:
    """ "I don't know": anywhere in an answer to a formatted question, only as the whole answer to a
    free-text one ("Don't know what happened, it just died" describes a fault)."""
    text = normalise(utterance)
    return bool(DONT_KNOW_WHOLE.fullmatch(text) if whole else DONT_KNOW.search(text))
