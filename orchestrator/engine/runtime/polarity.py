"""Yes or no in everyday words: a small closed vocabulary with negation, instead of a phrase list.

Each clause of a reply is read word by word. A clause counts only when every word is known here
(an answer word, a cue, negation, or filler), so "no power when I press the button" or "yes it
broke yesterday" are sentences about something else, not replies. Within a clause:

- answer words ("yes", "yeah", "no", "nope") say it outright and are never negated;
- cues lean one way ("share", "fine", "go ahead" approve; "mind", "problem", "objection", "decline"
  object) and any negation in the clause turns them ("I don't mind", "no objection", "not
  comfortable with that", "I won't allow that");
- negation with no cue is a refusal ("I'd rather not", "better not");
- "why not", "I do" and the like are idioms read whole first;
- words of doubt ("not sure", "no idea", "maybe") make the reply unreadable, never a yes or no.

Every clause must say the same thing; a reply mixing yes and no is asked again.
"""

from __future__ import annotations

import re

from .text import normalise

ANSWER_YES = frozenset("yes yeah yep yup ya yah yea y aye yess yesss".split())
ANSWER_NO = frozenset("no nope nah n nay negative never nop".split())
APPROVE = frozenset(
    "sure ok okay k kk alright absolutely certainly definitely totally course indeed surely affirmative fine good "
    "great perfect cool excellent agree agreed correct right true consent consented allow allowed permit permitted "
    "permission accept accepted approve approved authorise authorize authorised authorized share send submit "
    "proceed continue ahead comfortable happy glad works so granted whatever interested confirm confirmed fair".split()
)
OBJECT = frozenset(
    "mind problem problems objection objections worries worry issue issues concern concerns decline refuse reject "
    "deny disagree object private against forbid".split()
)
NEGATION = frozenset("not no never neither nor without".split())
DOUBT = frozenset("maybe perhaps unsure idea depends know probably possibly dunno hmm wonder".split())
FILLER = frozenset(
    "i me my mine you your we us our they them their it its this that these those he she him her to with by for "
    "and then now just really all at of the a an is am are was were be been being do does did done would will "
    "shall can could should may might must have has had want wanted like please thanks thank thx ty cheers well um "
    "umm uh oh ah erm hm hmm here there mate man buddy go on guess think suppose believe hope rather prefer better "
    "say said told let see any anything anyone anybody much very too also already still again info information "
    "data details everything one hell in sir madam gladly way sounds sound thing keep give given need "
    # The whole-utterance "stop" and "cancel" are control acts read before this; inside a reply they
    # add nothing ("no, stop"), and "cancel my booking" stays a request.
    "stop cancel halt "
    # Closed-class words (prepositions, pronouns, particles) carry no yes or no of their own.
    "about above across after along around away before below beside between beyond down during from "
    "into off onto out over through toward towards under until up upon within myself yourself yourselves "
    "ourselves themselves itself something someone somebody nothing anyway anyhow if such only even quite "
    "pretty fairly kind sort "
    # contractions typed without their apostrophe ("yes thats right"); "dont" and the like read as negation
    "thats its im ive youre theyre whats enough".split()
)
# After "my", "your", "the" ... up to two unknown words name what is shared ("share my ssn").
DETERMINERS = frozenset("my your the this that these those his her their our".split())
IDIOMS_YES = re.compile(r"(?<!not )\b(?:why not|i do|i will|do it|do so|do that|please do|go for it|go on|by all means"
                        r"|fire away|i am in|count me in|be my guest)\b(?! not\b)")
# "nah, I'm good": a polite refusal, though "good" on its own approves.
IDIOMS_NO = re.compile(r"(?:no|nah|nope)(?: thanks| thank you)?(?: i am| we are) (?:good|fine|ok|okay|alright)"
                       r"(?: thanks| thank you)?")
DOUBT_PHRASES = re.compile(r"\bnot sure\b|\bno idea\b|\bno clue\b|\bnot certain\b|\bdo not know\b|\bi wonder\b")
CLAUSES = re.compile(r"[,.;:!?]+|\s+-\s+|\bbut\b")
MAX_OBJECT_WORDS = 2


def yes_no(utterance: str) -> str | None:
    """ "yes" or "no" when every clause of `utterance` says so, else None."""
    if IDIOMS_NO.fullmatch(normalise(utterance)):
        return "no"
    verdicts = set()
    for clause in CLAUSES.split(utterance.lower()):
        words = normalise(clause)
        if not words:
            continue
        verdict = _clause(words)
        if verdict is None:
            return None
        if verdict != "":
            verdicts.add(verdict)
    return verdicts.pop() if len(verdicts) == 1 else None


OUTRIGHT_NO = ANSWER_NO | frozenset("thanks thank you sorry".split())


def declines(utterance: str) -> bool:
    """ "no, I'd rather show it at the desk": an outright no, then why or what instead. The reason is
    about something else, so `yes_no` cannot read it; but a no needs no reason to be one. A yes or a
    doubt anywhere after it ("no, wait, do it", "no, not sure") undoes it."""
    clauses = [text for text in (normalise(c) for c in CLAUSES.split(utterance.lower())) if text]
    if len(clauses) < 2 or not set(clauses[0].split()) <= OUTRIGHT_NO or not set(clauses[0].split()) & ANSWER_NO:
        return False
    return all(_clause(text) != "yes" and not DOUBT_PHRASES.search(text) and not DOUBT & set(text.split())
               for text in clauses[1:])


def _clause(text: str) -> str | None:
    """ "yes", "no", "" (politeness only: "thanks"), or None (not a reply, or one in doubt)."""
    if DOUBT_PHRASES.search(text):
        return None
    text = IDIOMS_YES.sub(" yes ", text)
    words = text.split()
    answers: set[str] = set()
    cues: list[int] = []
    negated = False
    objects = 0
    unknown_run = MAX_OBJECT_WORDS + 1  # unknown words are allowed only right after a determiner
    for index, word in enumerate(words):
        word = _base(word)
        if word in DOUBT:
            return None
        if word in NEGATION:
            # "no" on its own answers; right before a cue it negates ("no problem", "no big objection").
            if word in ANSWER_NO and not _cue_follows(words[index + 1:]):
                answers.add("no")
            else:
                negated = True
        elif word in ANSWER_YES:
            answers.add("yes")
        elif word in ANSWER_NO:
            answers.add("no")
        elif word in APPROVE:
            cues.append(1)
        elif word in OBJECT:
            cues.append(-1)
        elif word in DETERMINERS:
            unknown_run = 0
            continue
        elif word not in FILLER:
            unknown_run += 1
            objects += 1
            if unknown_run > MAX_OBJECT_WORDS:
                return None
            continue
        unknown_run = MAX_OBJECT_WORDS + 1
    if objects and not cues:
        return None  # "yes my phone broke", "not the first one": about something, not a reply
    return _verdict(answers, cues, negated)


def _verdict(answers: set[str], cues: list[int], negated: bool) -> str | None:
    """What a clause's answer words and cues say together; None when they disagree."""
    leanings = {("yes" if cue > 0 else "no") if not negated else ("no" if cue > 0 else "yes") for cue in cues}
    if negated and not cues:
        leanings.add("no")  # "I'd rather not", "please don't"
    said = answers | leanings
    if len(said) > 1:
        return None
    return said.pop() if said else ""


def _cue_follows(words: list[str]) -> bool:
    rest = [w for w in words if w not in ("a", "an", "big", "real", "such")]
    return bool(rest) and (rest[0] in APPROVE or rest[0] in OBJECT)


def _base(word: str) -> str:
    """ "sharing", "shared", "sends" -> the cue they inflect, when it is one."""
    for suffix, restore in (("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("d", ""), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)] + restore
            if stem in APPROVE or stem in OBJECT:
                return stem
    return word


# --- stopping the request ---------------------------------------------------------------------------
# The same closed-vocabulary reading for "stop": every clause must be a stop ("forget it", "scrap
# that", "let's stop here", "I give up") or a word around one ("actually", "I changed my mind",
# "I'll do it later"). What follows a stop verb may only be the current request in general words
# ("the application", "this request"): "cancel my booking" asks to cancel something, and is left to
# the catalog's intents.
STOP_PHRASES = re.compile(
    r"\b(?:stop|cancel|abort|quit|halt|forget|scrap|drop|never ?mind|give up|leave it|end|exit|terminate"
    r"|do not (?:want to|wish to|need to) (?:continue|go on|proceed|carry on|do this|do that|do it)"
    r"|(?:i am|i have|we are) (?:done|finished)|(?:i|we) changed (?:my|our) mind|change of plans?)\b"
)
STOP_OBJECTS = frozenset(
    "it that this everything all the whole thing request application process conversation chat one anymore "
    "any more about here now then for please thanks thank you actually okay ok well so just let us we i me my "
    "mind later another time some other day want to would like like can could please right away instead "
    "altogether whole entirely completely do will ll rather no come back oh ah um uh erm hmm hm".split()
)
# "stop, I'll phone the branch instead": after a stop, what the user will do instead is theirs to say.
OWN_PLAN = re.compile(r"\b(?:(?:i|we) (?:will|shall|am going to|are going to|would rather|can|could|might)|let me) ")


def stops(utterance: str) -> bool:
    """Does the whole utterance ask to stop the current request?"""
    found = False
    for clause in CLAUSES.split(utterance.lower()):
        text = normalise(clause)
        if not text:
            continue
        plan = OWN_PLAN.search(text)
        rest = STOP_PHRASES.sub(" ", text)
        found = found or rest != text
        if all(word in STOP_OBJECTS for word in rest.split()):
            continue
        if plan is None:
            return False
        # Only the words before the user's own plan must be a stop's; the plan itself may say anything,
        # once a stop is said ("I'll phone the branch" alone asks nothing to stop).
        before = text[:plan.start()]
        if not found or any(word not in STOP_OBJECTS for word in STOP_PHRASES.sub(" ", before).split()):
            return False
    return found
