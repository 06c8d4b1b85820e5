"""Generated catalogs with scenarios whose truths differ from them in seeded, known ways: the learning test beds.

A catalog is a small service desk: askable user elements (some with formats a user may volunteer),
derived records that only skills give, skills in chains, and intents asking for the records at the
top. The scenario then changes a few skills the way real ones drift from their spec: an extra input
they need, an output they also give, an outcome that never happens, one the spec lacks, transient
failures, and a slot no user can fill. `simulation.scenario.differences` gives the answer key.
"""

from __future__ import annotations

import random

from ..catalog.formats import kind_of
from ..catalog.spec import CatalogSpec, Costs, Element, Goal, Intent, Mode, Outcome, Simulation, Skill
from ..planning.planner import Planner
from ..simulation.scenario import Scenario, parse_scenario

VERBS = ("renew", "transfer", "cancel", "upgrade", "register", "verify", "refund", "schedule", "report", "track")
NOUNS = ("subscription", "parcel", "warranty", "booking", "licence", "invoice", "appointment", "claim", "permit",
         "membership")
WORDS = ("red", "green", "blue", "amber", "violet", "silver")


def generated_catalog(seed: int, users: int = 6, records: int = 8, skills: int = 7, intents: int = 4) -> CatalogSpec:
    """A catalog whose intents are all plannable (tried until one is; seeds are stable)."""
    for attempt in range(50):
        spec = _catalog(random.Random(f"catalog:{seed}:{attempt}"), seed, users, records, skills, intents)
        planner = Planner.for_spec(spec)
        if all(planner.plan(i.goal).solved for i in spec.intents):
            return spec
    raise ValueError(f"no plannable catalog for seed {seed}")


def _catalog(rng: random.Random, seed: int, users: int, records: int, n_skills: int, n_intents: int) -> CatalogSpec:
    elements = []
    for i in range(users):
        # The first detail is an email, which users volunteer and the NLU spots in any sentence.
        fmt = "email" if i == 0 else rng.choice(("email", f"enum:{'|'.join(rng.sample(WORDS, 3))}", "number", None))
        elements.append(Element(name=f"u{i}", format=fmt, description=f"your detail {i}"))
    elements += [Element(name=f"r{i}", askable=False, description=f"record {i}") for i in range(records)]
    user_names = [e.name for e in elements[:users]]
    record_names = [e.name for e in elements[users:]]
    skills = []
    for s in range(n_skills):
        # Skill s reads user details and records of lower rank, and writes records of higher rank.
        cut = min(len(record_names) - 1, (s * len(record_names)) // n_skills + 1)
        pool = user_names + record_names[:cut - 1] if cut > 1 else user_names
        inputs = tuple(sorted(rng.sample(pool, k=rng.randint(1, 2))))
        outputs = tuple(sorted(rng.sample(record_names[cut - 1:], k=min(2, len(record_names) - cut + 1))))
        skills.append(Skill(
            name=f"s{s}", description=f"service {s}", max_retries=1, preview=f"service {s}",
            modes=(Mode(inputs=inputs, outcomes=(Outcome(name="ok", outputs=outputs), Outcome(name="failed"))),),
            simulation=Simulation(weights={"ok": 0.9, "failed": 0.1})))
    producible = {x for s in skills for x in s.modes[0].outcomes[0].outputs}
    targets = sorted(producible, key=lambda x: -int(x[1:]))[: n_intents + 2]
    intents = tuple(Intent(name=f"i{k}", description=f"{VERBS[k]} a {NOUNS[k]}",
                           examples=(f"I want to {VERBS[k]} my {NOUNS[k]}", f"{VERBS[k]} {NOUNS[k]} please",
                                     f"can you {VERBS[k]} the {NOUNS[k]}"),
                           goal=Goal(known=(targets[k % len(targets)],))) for k in range(n_intents))
    return CatalogSpec(catalog=f"generated-{seed}", title=f"Generated catalog {seed}", costs=Costs(),
                       elements=tuple(elements), skills=tuple(skills), intents=intents)


def generated_scenario(spec: CatalogSpec, seed: int) -> Scenario:
    """Truths that differ from `spec` in one of each kind, where the plans make the difference observable."""
    rng = random.Random(f"scenario:{seed}")
    planner = Planner.for_spec(spec)
    plans = {i.name: planner.plan(i.goal).steps for i in spec.intents}
    asks = {name: {s.args[0] for s in steps if s.kind == "ask"} for name, steps in plans.items()}
    # The unfillable slot is the one fewest plans ask; the other changes go to skills the remaining plans use.
    counted = sorted({x for a in asks.values() for x in a}, key=lambda x: (sum(x in a for a in asks.values()), x))
    unfillable = counted[:1] if len(counted) > 1 else []
    used = sorted({s.skill for name, steps in plans.items() if not set(unfillable) & asks[name]
                   for s in steps if s.kind == "skill"})
    asked = counted
    rng.shuffle(used)
    truths: dict = {}
    picks = iter(used * 5)

    def mode_of(name: str) -> dict:
        return truths.setdefault(name, {}).setdefault("modes", {}).setdefault("m1", {})

    # An extra input a user may volunteer (a spottable format), so that some calls have it and some do not.
    spottable = [e.name for e in spec.elements if e.askable and kind_of(e.format) == "email"]
    name = next(picks)
    extra = [x for x in spottable if x not in spec.skill(name).modes[0].inputs and x not in unfillable]
    if extra:
        mode_of(name)["inputs"] = [*spec.skill(name).modes[0].inputs, rng.choice(extra)]
    records = [e.name for e in spec.elements if not e.askable]
    name = next(picks)
    given = spec.skill(name).modes[0].outcomes[0].outputs
    mode_of(name).setdefault("outcomes", {})["ok"] = {"outputs": [*given, rng.choice(
        [x for x in records if x not in given])]}
    name = next(picks)
    mode_of(name).setdefault("outcomes", {})["failed"] = {"weight": 0}
    name = next(picks)
    mode_of(name).setdefault("outcomes", {})["blocked"] = {"outputs": [], "weight": 0.1}
    name = next(picks)
    truths.setdefault(name, {})["failure_rate"] = 0.15
    data = {"scenario": f"generated-{seed}", "catalog": spec.catalog,
            "users": {"phrasing": {"volunteer": 0.5}, "cannot": {x: 0.1 for x in asked}, "max_turns": 30},
            "skills": truths, "unfillable": unfillable}
    return parse_scenario(data, spec)

