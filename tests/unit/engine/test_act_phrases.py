"""Everyday ways of asking for an intent, read off its description's verb and object."""

import pytest

from orchestrator.engine.runtime.act_phrases import act_of, act_phrases, object_of


@pytest.mark.parametrize(
    ("name", "description", "act", "thing"),
    [
        ("check_card_status", "check the status of a credit card application", "status", "credit card application"),
        ("check_order_status", "check an order's status", "status", "order"),
        ("ticket_status", "check on a ticket", "status", "ticket"),  # the name says status
        ("set_up_payment_plan", "set up a payment plan", "create", "payment plan"),  # the first verb decides
        ("transfer_prescription", "transfer a prescription from another pharmacy", "transfer", "prescription"),
        ("report_broken_device", "report a broken device", "problem", "device"),
        ("update_policy", "update policy details, such as adding a driver", "change", "policy details"),
        ("ask_pharmacist", "ask the pharmacist a question", "ask", "pharmacist"),
    ],
)
def test_the_act_and_the_object_come_from_the_description(name, description, act, thing):
    assert act_of(name, description) == act
    assert object_of(description, act) == thing


def test_every_phrase_names_the_object():
    phrases = act_phrases("cancel_policy", "cancel a policy")
    assert phrases and all("policy" in p for p in phrases)
    assert "I no longer want my policy" in phrases


def test_a_trouble_noun_is_reported_as_an_event():
    phrases = act_phrases("report_outage", "report a power outage")
    assert "there is a power outage" in phrases
    assert not any("is not working" in p for p in phrases)


def test_no_phrases_without_a_known_act_or_object():
    assert act_phrases("greet", "say hello") == []
    assert act_phrases("misc", "cancel") == []  # an act but nothing it is about
