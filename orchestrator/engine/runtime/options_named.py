"""An option named with an unsure request, as evidence for the one close intent that takes it.

"I want to rent a convertible from the airport" may read as close to extending a rental as to renting
a car; but "convertible" is a value of the car class, which only renting takes. When the request is
asked about between two or three intents and the options it names are all inputs of one of them and
not all of another's, that one is meant. Only enum options count: they are the catalog's own words for
what a request is about, where a code or a date may belong to any request ("my application id is
CC-000000" came with a request for a new card). A value's own element is read as `nlu.extract_value`
reads it unasked (the option's words, or a misspelling of a long option that is no English word).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..catalog.formats import parse_format
from ..catalog.spec import CatalogSpec
from .nlu import extract_value
from .patterns import TOKEN, spoken_option
from .semantic import reaching_skills
from .text import singular


class NamedOptions:
    """For one catalog: which intents take each enum element as an input of a skill reaching their goal."""

    def __init__(self, spec: CatalogSpec):
        self.spec = spec
        self.enums = [e for e in spec.elements if parse_format(e.format).is_enum]
        self.users: dict[str, set[str]] = {e.name: set() for e in self.enums}
        for intent, skills in reaching_skills(spec).items():
            for skill in skills:
                for mode in skill.modes:
                    for name in mode.inputs:
                        if name in self.users:
                            self.users[name].add(intent)

    def named(self, text: str) -> dict[str, str]:
        """The enum elements whose option the text names, with that option."""
        found = {e.name: extract_value(e, text) for e in self.enums}
        return {name: value for name, value in found.items() if value is not None}

    def settle(self, text: str, offered: Sequence[str]) -> tuple[str, dict[str, str]] | None:
        """The one intent among `offered` that takes every option named, when some option named belongs
        to that intent alone in the whole catalog (an option several intents take tells none apart) and
        no other offered intent's examples use its words ("cat" in a vet's catalog names a species that
        only registering takes, but people say it in every request); with the options that settled it."""
        named = self.named(text) if len(offered) > 1 else {}
        telling = {name: value for name, value in named.items() if len(self.users[name]) == 1}
        if not telling:
            return None
        taking = [i for i in offered if all(i in self.users[name] for name in named)]
        if len(taking) != 1:
            return None
        others = " ".join(f" {_words(e)} " for i in self.spec.intents if i.name in offered and i.name != taking[0]
                          for e in i.examples)
        if any(f" {_words(spoken_option(value))} " in others for value in telling.values()):
            return None
        return taking[0], telling


def _words(text: str) -> str:
    return " ".join(singular(w) for w in TOKEN.findall(text.lower()))
