"""Control acts in everyday words, counted only when they are the whole utterance."""

from __future__ import annotations

import pytest

from orchestrator.engine.runtime.acts import cannot_answer, control_act, yes_no


@pytest.mark.parametrize(
    "text",
    ["I don't mind", "no problem, go ahead", "sure, why not?", "fine by me", "absolutely", "go ahead",
     "yes please", "ok", "sure, go ahead", "yeah that's fine", "of course",
     # negation turns an objection into consent; inflections and a named object are read
     "no objection", "I have no problem with that", "that's alright", "you have my ok", "I give my consent",
     "sure you can share my ssn", "go ahead and send it", "I'm fine with you sharing it", "I guess so"],
)
def test_everyday_yes(text):
    assert yes_no(text) == "yes"


@pytest.mark.parametrize(
    "text",
    ["I'd rather not", "please don't share it", "no way", "no", "nope", "absolutely not", "don't",
     "I would prefer not to", "no thanks", "not at all",
     "I do not consent", "no I don't consent", "I don't want you to share that", "I won't allow that",
     "not comfortable with that", "I don't think so", "better not", "nah, I'm good", "of course not",
     "no, I'd rather keep that private", "no, don't do that"],
)
def test_everyday_no(text):
    assert yes_no(text) == "no"


@pytest.mark.parametrize(
    "text",
    ["no power when I press the button", "Don't know what happened, it just died", "yes it broke yesterday",
     "quit working after the update", "what do you want", "I'd like a platinum visa",
     # doubt is no answer; a sentence about something else is not a reply even with yes or no in it
     "I'm not sure", "no idea", "maybe", "yes my phone broke", "not the first one", "no internet at home",
     "yes, but only my email", "yes and no", "thanks"],
)
def test_sentences_that_start_like_an_act_are_not_one(text):
    assert yes_no(text) is None


@pytest.mark.parametrize(
    ("text", "act"),
    [
        ("help", "help"),
        ("help me, I can't remember my password", None),
        ("what can you do?", "help"),
        ("why did you ask for my email address?", "why"),
        ("why was my loan rejected?", "why"),
        ("why does it keep crashing?", None),
        ("quit working after the update", None),
        ("cancel my booking", None),
        ("cancel", "stop"),
        ("stop it please", "stop"),
        ("never mind", "stop"),
        ("what do you mean?", "clarify"),
        ("no problem, go ahead", "yes"),
        ("I'd rather not", "no"),
        # stopping in everyday words; a stop verb before something else is a request ("cancel my booking")
        ("forget it, I changed my mind", "stop"),
        ("actually never mind", "stop"),
        ("let's stop here", "stop"),
        ("scrap that", "stop"),
        ("stop the application", "stop"),
        ("I give up", "stop"),
        ("never mind, I'll do it later", "stop"),
        ("I don't want to continue", "stop"),
        ("the app keeps telling me to stop", None),
        ("I have to end my subscription", None),
        ("the end of the month", None),
        ("not interested", "no"),
    ],
)
def test_acts_are_whole_utterances(text, act):
    assert control_act(text) == act


def test_dont_know_counts_as_the_whole_answer_only_for_free_text():
    assert cannot_answer("I don't know my email", whole=False)
    assert not cannot_answer("Don't know what happened, it just died", whole=True)
    assert cannot_answer("I don't know", whole=True)
