"""How people ask for a kind of request in general, said about the thing a catalog's intent is about.

A catalog's examples name the request ("check my ticket"); users often describe their situation
instead ("has anyone looked at my problem yet", "is my card on its way"). Sentence embeddings match
on topic more than on what is being asked for, so two intents about the same thing (a new card, the
state of a card application) are easily confused when the user's words name neither.

An intent's description says what it does in a verb and an object ("check the status of a credit
card application", "cancel a booking"). The verb tells the kind of request (its act); each act has
a few everyday ways of asking for it, written here once for every catalog and filled in with the
intent's object. These phrases are added to the catalog's own words about the intent.
"""

from __future__ import annotations

import re

# The act of a request, by the verbs (or nouns) that name it in an intent's description or name. The
# first such word of the description decides ("set up a payment plan" is a creation, not a payment),
# but a status word anywhere wins: "check the status of ..." is a status request, not a look-up.
ACT_WORDS: dict[str, frozenset[str]] = {
    "status": frozenset("status track tracking progress".split()),
    "cancel": frozenset("cancel terminate annul revoke withdraw unsubscribe".split()),
    "renew": frozenset("refill renew reorder replenish repeat extend".split()),
    "access": frozenset("reset recover unlock unblock".split()),
    "dispute": frozenset("dispute complain contest challenge".split()),
    "problem": frozenset("report repair fix".split()),
    "ask": frozenset("ask speak talk contact consult enquire inquire".split()),
    "transfer": frozenset("transfer switch port".split()),
    "moving": frozenset("move relocate".split()),
    "choose": frozenset("choose pick select".split()),
    "provide": frozenset("submit send provide give upload enter".split()),
    "change": frozenset("change update modify edit amend correct".split()),
    "pay": frozenset("pay settle".split()),
    "create": frozenset("apply book order request open reserve schedule buy purchase get add create file "
                        "register join enrol enroll subscribe start arrange set".split()),
    "lookup": frozenset("check view show see find know look".split()),
}

# Everyday ways of asking, per act; "{o}" is the intent's object. "my" for something the user has,
# "a" for something new.
TEMPLATES: dict[str, tuple[str, ...]] = {
    "status": ("any news on my {o}", "has my {o} gone through yet", "is my {o} on its way",
               "what is happening with my {o}", "I am still waiting for my {o}", "has anyone looked at my {o} yet",
               "is my {o} still open", "my {o} has not come yet"),
    "cancel": ("I no longer want my {o}", "call off my {o}", "please undo my {o}", "I changed my mind about my {o}",
               "I do not need my {o} any more", "get rid of my {o}",
               "I want my money back for my {o}"),
    "renew": ("I am running out of my {o}", "I need another lot of my {o}", "top up my {o}",
              "my {o} is nearly finished", "the same {o} again please"),
    "access": ("I cannot get into my {o}", "I do not remember my {o}", "my {o} is not accepted",
               "I need a new {o}", "I am locked out of my {o}"),
    "problem": ("my {o} is not working", "something is wrong with my {o}", "my {o} keeps failing",
                "my {o} stopped working", "I have a problem with my {o}", "my {o} is damaged"),
    # A problem whose object is itself the trouble ("report an outage", "report a leak").
    "incident": ("there is {a} {o}", "I want to tell you about {a} {o}", "we have {a} {o} here",
                 "is there {a} {o} in my area", "since this morning there has been {a} {o}"),
    "dispute": ("my {o} is wrong", "I do not agree with my {o}", "I want to query my {o}",
                "there is a mistake on my {o}", "I am not happy with my {o}"),
    "moving": ("I am moving house, what happens to my {o}", "take my {o} with me to my new place",
               "I am leaving my current home, sort out my {o}"),
    "transfer": ("move my {o} over to you", "I want to use you instead of my current one for my {o}",
                 "take over my {o} from my old provider", "I am leaving my old provider, bring my {o} here"),
    "choose": ("I would like a particular {o}", "can I decide which {o} I get", "let me pick my {o}",
               "I prefer a different {o}"),
    "provide": ("here is my {o}", "I want to give you my {o}", "let me send you my {o}", "I have my {o} for you"),
    "ask": ("can I speak to a {o}", "I need some advice from a {o}", "I have a question for a {o}",
            "is there a {o} I can ask"),
    "change": ("something in my {o} is out of date", "I need to amend my {o}", "my {o} needs correcting",
               "put the new details on my {o}"),
    "pay": ("I want to settle my {o}", "how can I pay my {o}", "take the money for my {o}"),
    "create": ("sign me up for {a} {o}", "set me up with {a} {o}", "arrange {a} {o} for me",
               "I am interested in {a} {o}", "how do I get {a} {o}"),
    "lookup": ("what is my {o}", "show me my {o}", "tell me my {o}", "how much is my {o}"),
}

# Nouns that are themselves a trouble: reporting one is telling of an event, not of a broken thing.
TROUBLE = frozenset("outage leak fault issue problem damage failure breakdown cut blackout flood fire accident "
                    "theft incident".split())
_WORD = re.compile(r"[a-z]+(?:'s)?")
_CLAUSE = re.compile(r"[,;:(]| such as | e\.g\. ")
_LEADING = frozenset("a an the your my our their his her its for on to of up new another".split())
_STOP = frozenset("a an the from to with at in on for of by via into about".split())
_DESCRIBING = frozenset("broken faulty damaged lost stolen new another existing current".split())


def _words(text: str) -> list[str]:
    return [w.removesuffix("'s") for w in _WORD.findall(_CLAUSE.split(text.lower())[0])]


def act_of(name: str, description: str) -> str | None:
    """The kind of request an intent makes, from its description's words, else its name's."""
    words = _words(description) + _words(name.replace("_", " "))
    if set(words) & ACT_WORDS["status"]:
        return "status"
    return next((act for word in words for act, verbs in ACT_WORDS.items() if word in verbs), None)


def object_of(description: str, act: str) -> str:
    """What the request is about: the words after the verb, up to a preposition ("transfer a prescription
    from another pharmacy" -> "prescription"); for a status, what the status is of."""
    words = _words(description)
    if act == "status" and "status" in words:
        at = words.index("status")
        # "the status of a claim", or "an order's status"
        words = words[at + 2:] if words[at + 1:at + 2] == ["of"] else words[:at]
    else:
        verbs = ACT_WORDS[act]
        words = words[next((i + 1 for i, w in enumerate(words) if w in verbs), 0):]
    while words and (words[0] in _LEADING or words[0] in ACT_WORDS["lookup"]):
        words = words[1:]
    kept: list[str] = []
    for word in words:
        if word in _STOP:
            break
        if word not in _DESCRIBING:  # "a broken device" -> "device"
            kept.append(word)
    return " ".join(kept)


def act_phrases(name: str, description: str) -> list[str]:
    """Everyday ways of asking for this intent; none when its act or object cannot be read."""
    act = act_of(name, description)
    if act is None:
        return []
    thing = object_of(description, act)
    if not thing:  # every phrase names the thing: one that does not would match any request at all
        return []
    article = "an" if thing[0] in "aeiou" else "a"
    if act == "problem" and set(thing.split()) & TROUBLE:
        act = "incident"
    return [t.format(o=thing, a=article) for t in TEMPLATES[act]]
