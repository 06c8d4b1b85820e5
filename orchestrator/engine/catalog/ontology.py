"""The type tree of a catalog's elements: `pie_chart` is-a `plot`."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import UnknownName
from .spec import Element


class Ontology:
    """Parent and child links of a validated (acyclic) element list, in document order."""

    def __init__(self, elements: Iterable[Element]):
        self.elements = {e.name: e for e in elements}
        self.parent = {e.name: e.parent for e in self.elements.values()}
        self.children: dict[str, list[str]] = {name: [] for name in self.elements}
        for name, parent in self.parent.items():
            if parent is not None:
                self.children[parent].append(name)
        self._subtrees: dict[str, tuple[str, ...]] = {}

    def roots(self) -> list[str]:
        return [name for name, parent in self.parent.items() if parent is None]

    def subtree(self, name: str) -> tuple[str, ...]:
        """`name` and every element below it, parents before children."""
        if name not in self._subtrees:
            below = [x for child in self.children[name] for x in self.subtree(child)]
            self._subtrees[name] = (name, *below)
        return self._subtrees[name]

    def ancestors(self, name: str) -> list[str]:
        chain = []
        node = self.parent[name]
        while node is not None:
            chain.append(node)
            node = self.parent[node]
        return chain

    def check_elements(self, names: Iterable[str], path: str = "") -> None:
        """Every name an element of the catalog; otherwise UnknownName, at `path[i]` when a path is given."""
        for i, name in enumerate(names):
            if name not in self.elements:
                raise UnknownName("element", name, list(self.elements), path=f"{path}[{i}]" if path else "")
