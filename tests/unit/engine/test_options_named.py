"""An option named with an unsure request settles it for the one close intent that takes that option,
when the ranking already puts that intent first; never for a word every request of the catalog says."""

from __future__ import annotations

import pytest

from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.runtime.calibration import Calibration
from orchestrator.engine.runtime.intents import IntentMatcher
from orchestrator.engine.runtime.nlu import IntentGuess
from orchestrator.engine.runtime.options_named import NamedOptions

from .given_ranking import GivenRanking

HIRE = """
catalog: hire
title: Car hire
elements:
  - {name: car_class, format: "enum:compact|convertible|van", description: the kind of car}
  - {name: branch, format: "enum:airport|station", description: where you collect it}
  - {name: species, format: "enum:dog|cat", description: a pet riding along}
  - {name: booking, description: the booking reference}
  - {name: reservation, askable: false, description: the reservation}
  - {name: extension, askable: false, description: the extension}
skills:
  - name: reserve
    description: Reserves a car
    modes:
      - inputs: [car_class, branch, species]
        outcomes:
          - {name: reserved, outputs: [reservation]}
  - name: extend
    description: Extends a rental
    modes:
      - inputs: [booking, branch]
        outcomes:
          - {name: extended, outputs: [extension]}
intents:
  - name: rent_car
    description: rent a car
    examples: [rent a car, I need a car, hire a vehicle, book a car]
    goal: {known: [reservation]}
  - name: extend_rental
    description: extend a rental
    examples: [extend my rental, keep the car longer, I need it for more days, my dog needs the car longer]
    goal: {known: [extension]}
"""


@pytest.fixture(scope="module")
def hire():
    return load_catalog(HIRE, filename="hire.yaml")


def unsure(extend_first: bool = False) -> GivenRanking:
    """The two intents close together, renting first (or extending first when `extend_first`)."""
    order = ["extend_rental", "rent_car"] if extend_first else ["rent_car", "extend_rental"]
    return GivenRanking({}, [IntentGuess(order[0], 0.40, 0.50), IntentGuess(order[1], 0.38, 0.48)],
                        Calibration(floor=0.3, sure=0.35, margin=0.15))


def test_an_option_only_the_first_intent_takes_settles_the_request(hire):
    decision = IntentMatcher(hire, unsure()).decide("I want a convertible from the airport")
    assert decision.kind == "intent" and decision.intent == "rent_car"
    assert "convertible" in decision.reason


def test_without_an_option_the_request_is_asked_about(hire):
    assert IntentMatcher(hire, unsure()).decide("I want one from tomorrow").kind == "ambiguous"


def test_an_option_of_an_element_several_intents_take_settles_nothing(hire):
    # the branch is an input of both: "the airport" says nothing of which
    assert IntentMatcher(hire, unsure()).decide("at the airport please").kind == "ambiguous"


def test_an_option_the_other_intents_examples_say_settles_nothing(hire):
    # only renting takes the species, but people say "my dog" extending too
    assert IntentMatcher(hire, unsure()).decide("it's for my dog").kind == "ambiguous"


def test_an_option_never_overturns_the_ranking(hire):
    # the ranking puts extending first: the option does not start renting against it
    assert IntentMatcher(hire, unsure(extend_first=True)).decide("a convertible").kind == "ambiguous"


def test_which_intents_take_each_option(hire):
    users = NamedOptions(hire).users
    assert users == {"car_class": {"rent_car"}, "branch": {"rent_car", "extend_rental"}, "species": {"rent_car"}}
