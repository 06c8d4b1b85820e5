"""Generated catalogs of our shape, of any size, for benchmarks and property tests.

Elements sit in layers: a skill reads elements of lower layers and writes higher ones, so chains
of skills form as in real catalogs. Some elements form a type tree, some are sensitive, and the
derived ones cannot be asked for, so plans have to go through skills.
"""

from __future__ import annotations

import random

from .spec import CatalogSpec, Costs, Element, Goal, Intent, Mode, Outcome, Skill


def synthetic_catalog(skills: int, seed: int = 0, intents: int = 8) -> CatalogSpec:
    rng = random.Random(seed)
    n_elements = 2 * skills + 10
    names = [f"e{i}" for i in range(n_elements)]
    elements = []
    for i, name in enumerate(names):
        # A few subtypes of earlier, user-facing elements: a `document` with its kinds.
        parent = names[rng.randrange(0, max(1, i // 4))] if i > 8 and rng.random() < 0.1 else None
        derived = i > n_elements // 4
        elements.append(
            Element(
                name=name,
                parent=parent,
                sensitive=rng.random() < 0.1,
                askable=not derived or rng.random() < 0.1,
            )
        )
    skill_specs = []
    for s in range(skills):
        modes = []
        for _ in range(rng.choice((1, 1, 2))):
            cut = rng.randrange(4, n_elements - 3)
            inputs = rng.sample(names[max(0, cut - 12):cut], k=min(rng.randint(1, 3), cut))
            outputs = rng.sample(names[cut:min(n_elements, cut + 8)], k=rng.randint(1, 3))
            modes.append(
                Mode(
                    inputs=tuple(inputs),
                    outcomes=(Outcome(name="ok", outputs=tuple(outputs)), Outcome(name="failed")),
                )
            )
        skill_specs.append(Skill(name=f"s{s}", max_retries=rng.randint(1, 2), modes=tuple(modes)))
    # Goals among the highest-layer derived elements that some chain of skills can reach.
    reachable = _establishable(elements, skill_specs)
    targets = [e.name for e in elements if e.name in reachable and not e.askable][-max(intents * 3, 2):]
    intent_specs = [
        Intent(name=f"i{k}", examples=(f"please get e{k}",), goal=Goal(known=tuple(rng.sample(targets, k=2))))
        for k in range(intents)
    ]
    return CatalogSpec(
        catalog=f"synthetic-{skills}-{seed}",
        title=f"Synthetic catalog, {skills} skills",
        costs=Costs(skill=1, ask=5, authorize=1),
        elements=tuple(elements),
        skills=tuple(skill_specs),
        intents=tuple(intent_specs),
    )


def _establishable(elements: list[Element], skills: list[Skill]) -> set[str]:
    """Elements some plan can establish: askable ones, then skill outputs, to a fixpoint."""
    parent = {e.name: e.parent for e in elements}
    # Every type a known element answers for (itself and its ancestors: a known subtype answers
    # for its type), kept as elements become known, so an input is checked in one lookup
    # rather than against every known element (minutes at 4,000 skills).
    covered: set[str] = set()

    def learn(names: set[str]) -> None:
        for name in names:
            node: str | None = name
            while node is not None and node not in covered:
                covered.add(node)
                node = parent[node]

    known = {e.name for e in elements if e.askable}
    learn(known)
    grew = True
    while grew:
        grew = False
        for skill in skills:
            for mode in skill.modes:
                if all(x in covered for x in mode.inputs):
                    new = set(mode.outcomes[0].outputs) - known
                    if new:
                        known |= new
                        learn(new)
                        grew = True
    return known
