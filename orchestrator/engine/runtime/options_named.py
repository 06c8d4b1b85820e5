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
from .patterns import _singular_words, spoken_option
from .semantic import reaching_skills


class NamedOptions:
    """For one catalog: which intents take each enum element as an input of a skill reaching their goal,
    and the words of each intent's examples."""

    def __init__(self, spec: CatalogSpec):
        self.enums = [e for e in spec.elements if parse_format(e.format).is_enum]
        self.users: dict[str, set[str]] = {e.name: set() for e in self.enums}
        for intent, skills in reaching_skills(spec).items():
            for skill in skills:
                for mode in skill.modes:
                    for name in mode.inputs:
                        if name in self.users:
                            self.users[name].add(intent)
        self.said = {i.name: " ".join(f" {_singular_words(e)} " for e in i.examples) for i in spec.intents}

    def named(self, text: str) -> dict[str, str]:
        """The enum elements whose option the text names, with that option."""
        found = {e.name: extract_value(e, text) for e in self.enums}
        return {name: value for name, value in found.items() if value is not None}

    def settle(self, text: str, offered: Sequence[str]) -> dict[str, str] | None:
        """The options that settle a "did you mean" for the first intent `offered` (the one ranked first):
        it takes every option named, no other offered intent does, some option named belongs to it alone
        in the whole catalog (an option several intents take tells none apart), and no other offered
        intent's examples use that option's words ("cat" in a vet's catalog names a species that only
        registering takes, but people say it in every request). None when they do not."""
        named = self.named(text) if len(offered) > 1 else {}
        telling = {name: value for name, value in named.items() if len(self.users[name]) == 1}
        if not telling:
            return None
        taking = [i for i in offered if all(i in self.users[name] for name in named)]
        if taking != [offered[0]]:
            return None
        others = " ".join(self.said.get(i, "") for i in offered[1:])
        if any(f" {_singular_words(spoken_option(value))} " in others for value in telling.values()):
            return None
        return telling
