"""What kind of sentence a message is, before any word of it is read as a yes, a no or a value.

Approval words are not approval: "will you send my income to them?" holds "send" but asks a
question, and "only if you keep it private" holds a condition. These readers look at the form of
the sentence (a question mark, a wh-word or an inverted auxiliary at the start, a modal of
obligation, a hedge, a condition, a correction marker) so the generator can tell a question or a
hold from an answer. Each returns a plain verdict; none looks at the session.
"""

from __future__ import annotations

import re

from ..polarity import IDIOMS_YES, yes_no
from ..text import normalise, singular

WH_START = re.compile(r"^(?:and |but |so |btw |by the way |also |ok |okay |wait )?"
                      r"(?:what|why|who|whom|whose|how|which|when|where)\b")
# "do I have to ...", "will you send ...", "is it ...": an auxiliary before its subject opens a question
INVERTED = re.compile(r"^(?:and |but |so |btw |by the way |also |ok |okay |wait |um |hmm |oh )?"
                      r"(?:do|does|did|is|are|was|were|will|would|can|could|shall|should|must|may|might|have|has"
                      r"|am)(?: not)? (?:i|you|we|they|it|he|she|that|this|there|my|your|the|anyone|someone"
                      r"|somebody|anybody)\b")
QUESTION_TAIL = re.compile(r"\b(?:right|ok|okay|yes|correct|no)\s*\?\s*$")
DOUBT = re.compile(r"\b(?:not sure|unsure|no idea|not certain|i wonder|wait|hold on|hang on|one (?:sec|second|moment)"
                   r"|give me a (?:sec|second|moment|minute)|let me think|think about it|not yet|maybe|perhaps"
                   # a hold to ask or check with someone: "let me check with my partner first"
                   r"|let me (?:check|see)|(?:check|talk|speak|confirm) with (?:my|our|the|him|her|them)"
                   r"|(?:let me|i (?:need|have|want|would like) to|i will|i must) ask (?:my|our|the|him|her|them)"
                   r"|run (?:it|this|that) (?:past|by)"
                   r"|sleep on it"
                   r"|depends|hmm+|dunno|i do not know|not decided|undecided|hesitant|unsure)\b")
CONDITION = re.compile(r"\b(?:only if|as long as|provided (?:that )?|on condition|unless|if you|but only|only the"
                       # a time the yes waits for: "yes, send it after the review", "once I have checked"
                       r"|after (?:the|i|you|we|it|my|your|that)|once (?:i|you|we|it|the|my)|when (?:i|you|we|the|my)"
                       r"|(?:not )?until"
                       r"|just the|except|but not|but do not|but never|not the whole|partially|part of)\b")
CORRECTION = re.compile(r"\b(?:actually|make it|change (?:it|that|the \w+|my \w+) to|instead|i meant|i mean"
                        r"|correction|sorry,? (?:it is|i said)|not \S+,? (?:but )?(?:it is )?\S*\d|scratch that"
                        r"|rather|update (?:it|that|the \w+|my \w+) to|should be|should have been|typo"
                        r"|\d[\w.,]*(?: \w+)? not (?:an? |the )?\d)")  # "it's 3 bedrooms not 2", "a 9 not an 8"
# "sorry, wrong module, it's CS2042": a correction of what it names only ("the wrong size arrived" is news)
WRONG = re.compile(r"\b(?:wrong|my mistake|my bad|oops)\b")
INSTEAD_OF = re.compile(r"\b(?:instead of|rather than|not)\s+(?:an?\s+|the\s+)?"
                        r"(?P<old>[$£€]?\s?[\w.,@+-]+(?:\s(?:k|grand|thousand|dollars|euros|pounds))?)", re.I)
PRONOUN = re.compile(r"\b(?:it|that|this|them|they|those)\b")
# "why was it refused?", "why did you need that?", "how did you get it?": explanations without a name
WHY_PRONOUN = re.compile(r"\bwhy (?:was|were|did) (?:it|that|this|they|those)\b"
                         r"|\bwhy (?:did|do|would) you (?:need|ask|want|use|require|check|refuse|reject|deny)\b"
                         r"|\bwhy (?:was|were|is) (?:i|my \w+) (?:refused|rejected|denied|declined)\b")
HOW_PRONOUN = re.compile(r"\bhow (?:did|do) you (?:get|find|know|obtain|work out|come up with|figure out)\b")
WHAT_DONE = re.compile(r"\bwhat (?:did|have) you (?:do|done|did)\b|\bwhat happened so far\b|\bwhat steps\b"
                       r"|^(?:a )?summar(?:y|ise|ize)\b|\bwhat have we done\b")
BOTH = re.compile(r"\b(?:both|all of them|all|the two|each|both of them|either is fine|one and the other)\b"
                  r"|\b(?:first|1st) and (?:the )?(?:second|2nd|other|last)\b")
NEITHER = re.compile(r"\b(?:neither|none|none of them|not either|no neither)\b")

# Questions about the prompt, by what they ask: who sees the value, what a no leads to, ...
TOPICS = (
    ("refusal", re.compile(r"\bwhat (?:happens|if|would happen)\b.*\b(?:no|not|refuse|decline|don'?t)\b"
                           r"|\bif i (?:say no|refuse|decline|do not)\b|\bwhat if i\b|\bcan i (?:say no|refuse"
                           r"|decline|skip)\b|\bdo i have to\b|\bmust i\b|\bis it (?:required|mandatory|necessary"
                           r"|optional)\b|\bhave i got to\b")),
    ("recipient", re.compile(r"\bwho\b|\bwhich (?:company|service|party|bureau|people)\b|\bwhere (?:does|will|is)\b"
                             r"|\bsend (?:it|them|my \w+|the \w+) to\b|\bshare (?:it|them|my \w+|the \w+) with\b"
                             r"|\bgo(?:es)? to\b|\bwill (?:you|it|they) (?:send|share|give|pass)\b|\bsee (?:it|this"
                             r"|my)\b"
                             # how the value is handled once shared: "is this secure?", "is my data protected?"
                             r"|\b(?:kept|stored|stor(?:e|ing)|safe(?:ly|ty)?|secure(?:ly)?|security|private|privacy"
                             r"|protect(?:ed|ion)?|encrypt(?:ed|ion)?|confidential(?:ity)?|leak(?:ed|s)?|misuse[ds]?)\b")),
    ("later", re.compile(r"\blater\b|\banother time\b|\btomorrow\b|\bnot now\b|\bafterwards\b")),
    ("purpose", re.compile(r"\bwhy\b|\bwhat (?:for|is (?:it|this|that) for)\b|\bwhat do you need\b"
                           r"|\bwhat does (?:it|this|that) do\b|\bpurpose\b")),
    ("need", re.compile(r"\b(?:need|really|required|necessary)\b")),
)


def is_question(text: str) -> bool:
    """Does the message ask something? A question mark (but not "sure, why not?"), a wh-word or an
    inverted auxiliary at the start of a clause ("do I have to share ...", "will you send ...")."""
    if _idiom_only(text):
        return False
    asked = text.strip().endswith("?") and not QUESTION_TAIL.search(text.lower())
    clauses = [normalise(c) for c in re.split(r"[,.;:!?]+|\bbut\b", text.lower())]
    opened = any(c and (WH_START.match(c) or INVERTED.match(c)) for c in clauses)
    return asked or opened


REPLY_WORDS = frozenset("sure ok okay yes yeah yep alright fine then well so of course".split())


def asks_back(text: str) -> bool:
    """ "yes?", "ok?": a yes said with a question mark asks back, unless it is a yes idiom ("sure, why not?")."""
    return text.rstrip().endswith("?") and not _idiom_only(text)


def _idiom_only(text: str) -> bool:
    """ "Sure, why not?", "why not": a yes that happens to look like a question."""
    plain = normalise(text)
    if not IDIOMS_YES.search(plain):
        return False
    return set(normalise(IDIOMS_YES.sub(" ", plain)).split()) <= REPLY_WORDS


def hesitates(text: str) -> bool:
    """Doubt or a hold: "wait", "not sure yet", "let me think about it"."""
    return bool(DOUBT.search(normalise(text)))


def conditional(text: str) -> bool:
    """A condition or a part acceptance: "only if ...", "as long as ...", "just the last four digits"."""
    return bool(CONDITION.search(normalise(text)))


def corrects(text: str) -> bool:
    """Does the message correct something said before ("actually make it 12", "no, I meant 12", "wrong
    module, it's CS2042")?"""
    return _says_correction(text) or bool(WRONG.search(text.lower()))


def corrects_only_what_it_names(text: str) -> bool:
    """ "wrong module, it's CS2042" corrects the module; "wrong" alone points at nothing held."""
    return bool(WRONG.search(text.lower())) and not _says_correction(text)


def _says_correction(text: str) -> bool:
    """A correction's words, as typed or with contractions spelt out."""
    return bool(CORRECTION.search(text.lower()) or CORRECTION.search(normalise(text)))


def old_value_phrase(text: str) -> str | None:
    """The value a correction replaces, as written: "15" in "make it 12 grand instead of 15"."""
    match = INSTEAD_OF.search(text)
    return match.group("old") if match else None


def prompt_topic(text: str) -> str:
    """What a question about the prompt asks, by its words (`general` when nothing fits)."""
    lowered = normalise(text)
    return next((topic for topic, pattern in TOPICS if pattern.search(lowered)), "general")


def explanation_kind(text: str) -> str | None:
    """ "what" / "how" / "why" when the message asks for an explanation of the conversation."""
    lowered = normalise(text)
    if WHAT_DONE.search(lowered):
        return "what"
    if HOW_PRONOUN.search(lowered):
        return "how"
    if WHY_PRONOUN.search(lowered):
        return "why"
    return None


def names_pronoun(text: str) -> bool:
    return bool(PRONOUN.search(normalise(text)))


# Leave given to the assistant: at a consent or confirmation prompt, what it permits is the prompt's act,
# whatever else the words match ("you can send the number" is a yes, not a request to send something).
PERMISSION = re.compile(r"\b(?:you (?:can|may|are allowed to|have my permission to)|go ahead|feel free"
                        r"|i (?:allow|permit|authori[sz]e|agree to) (?:it|that|you|this))\b")


# What may follow the action's verb in a restatement, besides the skill's own words ("publish the salary
# report on the intranet"): its object as a pronoun (the values are already said as "it"), politeness.
OBJECT_WORDS = frozenset("it them that this those please now then right away for me us thanks thank you the my your"
                         " with to data details information info number".split())


def restating(text: str, verbs: tuple[str, ...], own: frozenset[str] = frozenset()) -> str | None:
    """ "ok, publish it" at a prompt to publish: a yes that goes on to name the pending action is the yes
    it starts with; the action's verb is read as "share", the act every consent prompt asks about.
    Only after a yes: "publish it" alone or "delete it" are no clearer than before. None when the yes
    restates more than the action ("ok, publish it tomorrow", "yes, share it with the names removed"):
    a yes to something else than what is asked is no yes to it."""
    lowered = text.lower()
    # the bare verb only, as an instruction: "ok, published" reports, it does not restate
    match = re.search(rf"\b(?:{'|'.join(re.escape(v) for v in (*verbs, 'share'))})\b", lowered)
    if match is None or yes_no(lowered[:match.start()]) != "yes":
        return text
    rest = {singular(w) for w in normalise(lowered[match.end():]).split()}
    if not rest <= {singular(w) for w in OBJECT_WORDS | own}:  # "the salaries" names the salary report's
        return None
    return f"{lowered[:match.start()]}share{lowered[match.end():]}"


def grants_permission(text: str) -> bool:
    return not is_question(text) and bool(PERMISSION.search(normalise(text)))


def says_both(text: str) -> bool:
    return bool(BOTH.search(normalise(text)))


def says_neither(text: str) -> bool:
    return bool(NEITHER.search(normalise(text)))


# At a free-text question, a question may be the answer ("why does it keep crashing?" describes the
# fault); it is put to the assistant when it speaks to it or asks about the process.
TO_ASSISTANT = re.compile(r"\b(?:you|your|yours|btw|by the way|how long|how much|how many|how soon|what happens"
                          r"|who|can i|could i|do i|should i|must i|will i|am i|is it possible|usually|normally"
                          r"|typically|what if|is there|are there)\b")


def asks_the_assistant(text: str) -> bool:
    """A question put to the assistant, not one that describes what the user is asked about."""
    return is_question(text) and bool(TO_ASSISTANT.search(normalise(text)))
