"""Which values need the user's consent before a skill receives them.

An element marked `sensitive` needs consent before any skill receives it.

A value that a skill *computes* from a sensitive one carries what it was made from: a chart drawn
from a salary table shows the salaries, a summary of medical notes tells the diagnosis. Such a
derived value needs consent before a skill that changes the world (`effects: world`: publishes,
submits, sends) receives it, since that is where it leaves the conversation. Without this,
publishing the chart of a table shared under consent would ask nothing.

What counts as derived, decided from the catalog's structure alone:
- an output of a mode that changes nothing (`effects: none`) and takes an input that may be
  sensitive (a sensitive element, one below its type, or a value derived in turn);
- not an output of a world-changing mode: an order number or a ticket reference is the receipt of
  an act, not a copy of its inputs (otherwise every id issued after an identity check would ask);
- not an element the catalog already marks sensitive (it needs consent everywhere already).

Only the consent follows derived values: masking still hides what is marked sensitive.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .ontology import Ontology
from .spec import CatalogSpec


@dataclass(frozen=True)
class Sensitivity:
    declared: frozenset[str]
    # a derived element -> the sensitive elements it may have been computed from, in catalog order
    derived: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def needs_consent(self, element: str, world: bool) -> bool:
        """Must the user agree before a skill (a world-changing one if `world`) receives `element`?"""
        return element in self.declared or (world and element in self.derived)

    def sources(self, element: str) -> tuple[str, ...]:
        return self.derived.get(element, ())


def _carried(onto: Ontology, inputs: tuple[str, ...], declared: frozenset[str],
             derived: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The sensitive elements a mode's inputs may carry (an input's whole type subtree counts)."""
    found: dict[str, None] = {}
    for name in inputs:
        for x in onto.subtree(name):
            if x in declared:
                found[x] = None
            found.update(dict.fromkeys(derived.get(x, ())))
    return tuple(found)


def sensitivity(spec: CatalogSpec, onto: Ontology | None = None) -> Sensitivity:
    """The declared and derived sensitive elements of a validated spec (a fixed point over its modes)."""
    onto = onto or Ontology(spec.elements)
    declared = frozenset(e.name for e in spec.elements if e.sensitive)
    derived: dict[str, tuple[str, ...]] = {}
    computing = [(mode.inputs, [x for o in mode.outcomes for x in o.outputs])
                 for skill in spec.skills
                 for mode, name in zip(skill.modes, skill.mode_names(), strict=True)
                 if not skill.changes_world(name)]
    changed = True
    while changed:  # a chain (table -> chart -> thumbnail) takes one round per link
        changed = False
        for inputs, outputs in computing:
            carried = _carried(onto, inputs, declared, derived)
            if not carried:
                continue
            for out in outputs:
                before = derived.get(out, ())
                merged = tuple(dict.fromkeys((*before, *carried)))
                if out not in declared and merged != before:
                    derived[out] = merged
                    changed = True
    order = list(onto.elements)
    return Sensitivity(declared, {x: derived[x] for x in order if x in derived})
