"""The catalog spec: the one typed schema shared by YAML/JSON files, the API and the engine.

Structure is checked by pydantic; cross-references (unknown elements, duplicates, cycles in
the type tree, ...) by `orchestrator.engine.catalog.checks`. Use `parse_catalog` or
`load_catalog` to get a spec that passed both.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    # A misspelt key ("ouputs") must be an error, not silently ignored.
    model_config = ConfigDict(extra="forbid", frozen=True)


class Element(_Strict):
    """A variable of the assistant's shared memory; also a PDDL type and object."""

    name: str
    description: str = ""
    parent: str | None = None
    sensitive: bool = False
    askable: bool = True
    # email | number | money | date | phone | regex:<pattern> | enum:<a>|<b>|...
    format: str | None = None
    question: str | None = None  # how the assistant asks for it: "What size should the pizza be?"
    label: str | None = None  # how sentences name it: "your phone number", "the pizza size"


class Outcome(_Strict):
    name: str
    outputs: tuple[str, ...] = ()


class Mode(_Strict):
    """One way to call a skill: these inputs lead to exactly one of these outcomes."""

    name: str | None = None
    inputs: tuple[str, ...] = ()
    outcomes: tuple[Outcome, ...] = Field(min_length=1)
    effects: Literal["none", "world"] | None = None  # None: the skill's own `effects`


class SimRule(_Strict):
    """When the inputs match `when`, a simulated skill answers with this rule's result.

    `when` maps an input element to a value, `*` (any value), or a comparison such as `<600`.
    """

    when: dict[str, str] = Field(default_factory=dict)
    result: Literal["outcome", "invalid", "unfeasible", "timeout"] = "outcome"
    outcome: str | None = None  # for result "outcome"
    element: str | None = None  # for result "unfeasible": the input value that cannot work
    values: dict[str, str] = Field(default_factory=dict)  # output values that differ under this rule
    message: str = ""


class Simulation(_Strict):
    """Declared behaviour of a built-in simulated (`sim:`) skill, for the demo and for tests."""

    values: dict[str, str] = Field(default_factory=dict)  # output element -> value
    rules: tuple[SimRule, ...] = ()  # the first rule that matches wins
    weights: dict[str, float] = Field(default_factory=dict)  # else an outcome drawn by weight
    explanation: dict[str, float] | None = None  # feature weights returned with the outputs


class HttpParam(_Strict):
    """Where one input of an HTTP skill goes in the request: a path segment, a query parameter, a JSON field."""

    element: str  # the skill's input element that gives the value
    name: str  # the parameter's name in the request
    location: Literal["path", "query", "body"] = "body"


class HttpOutput(_Strict):
    """Which field of the JSON answer an output element is read from (`a.b` for a nested one)."""

    element: str
    field: str


class HttpStatus(_Strict):
    """The outcome an HTTP status means: `200`, or a class such as `2xx` or `4xx`."""

    status: str = Field(pattern=r"^[1-5]([0-9]{2}|xx)$")
    outcome: str


class HttpBinding(_Strict):
    """How an HTTP API's operation is called for a skill: its method, where each input goes, what the
    answer means. The skill's endpoint is the operation's URL, `{name}` marking path parameters.

    Without a binding, an HTTP skill speaks Concerto's own contract (`runtime/skill_http.py`).
    """

    method: Literal["get", "put", "post", "delete", "patch", "head", "options", "trace"] = "post"
    params: tuple[HttpParam, ...] = ()
    outputs: tuple[HttpOutput, ...] = ()
    statuses: tuple[HttpStatus, ...] = ()  # the first that matches wins
    secret: str | None = None  # the name of the credential an admin set; never its value
    auth_header: str = "Authorization"
    auth_scheme: str = "Bearer"  # "" to send the secret as it is (an API key header)


class Skill(_Strict):
    name: str
    description: str = ""
    # "world": calling it changes something outside the conversation (submits, publishes, creates);
    # the assistant asks before such a call that the user did not agree to.
    effects: Literal["none", "world"] = "none"
    endpoint: str = "sim:"
    max_retries: int = Field(default=1, ge=0, le=100)
    cost: int | None = Field(default=None, ge=0, le=10_000)
    preview: str | None = None
    modes: tuple[Mode, ...] = Field(min_length=1)
    simulation: Simulation | None = None
    http: HttpBinding | None = None

    def mode_names(self) -> list[str]:
        """Mode names with defaults filled in: explicit names, else m1, m2, ..."""
        return [mode.name or f"m{index}" for index, mode in enumerate(self.modes, start=1)]

    def mode(self, name: str) -> Mode:
        """The mode called `name` (a default name such as `m2` included)."""
        return self.modes[self.mode_names().index(name)]

    def changes_world(self, mode: str) -> bool:
        """Does calling this mode change something outside the conversation (submit, publish, create)?"""
        return (self.mode(mode).effects or self.effects) == "world"


def done_ref(ref: str) -> tuple[str, str]:
    """A `done` goal entry, `skill` or `skill.mode`, as (skill, mode); the mode is "" for any mode."""
    skill, _, mode = ref.partition(".")
    return skill, mode


class Goal(_Strict):
    known: tuple[str, ...] = ()
    done: tuple[str, ...] = ()


class Intent(_Strict):
    name: str
    description: str = ""
    examples: tuple[str, ...] = ()
    goal: Goal
    extensions: tuple[str, ...] = ()


class Costs(_Strict):
    skill: int = Field(default=1, ge=0, le=10_000)
    ask: int = Field(default=5, ge=0, le=10_000)
    authorize: int = Field(default=1, ge=0, le=10_000)


Privacy = Literal["per_skill", "per_element"]


class CatalogSpec(_Strict):
    catalog: str
    title: str = ""
    description: str = ""
    privacy: Privacy = "per_skill"
    costs: Costs = Costs()
    elements: tuple[Element, ...] = ()
    skills: tuple[Skill, ...] = ()
    intents: tuple[Intent, ...] = ()

    def element(self, name: str) -> Element:
        return next(e for e in self.elements if e.name == name)

    def skill(self, name: str) -> Skill:
        return next(s for s in self.skills if s.name == name)

    def intent(self, name: str) -> Intent:
        for intent in self.intents:
            if intent.name == name:
                return intent
        raise KeyError(name)

    def skill_cost(self, skill: Skill) -> int:
        return self.costs.skill if skill.cost is None else skill.cost
