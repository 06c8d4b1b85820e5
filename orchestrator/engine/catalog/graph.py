"""A picture of a catalog: skills, the elements that flow between them, and the intents they serve.

`catalog_graph` turns a spec into a plain description (nodes and edges, with the plan of one
intent highlighted if asked); `to_dot` writes it in Graphviz's language and `render_svg` has
Graphviz's `dot` lay it out. Drawing is the only I/O here, and it is explicit: call `render_svg`.

Read left to right: what the user gives, the skills that use it, what they produce, the intents
at the end. Sensitive elements are red with a double border, so the mark does not rest on colour.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, Protocol

import graphviz

from ..errors import ConcertoError
from .spec import CatalogSpec, done_ref

NodeKind = Literal["element", "skill", "intent"]
EdgeKind = Literal["input", "output", "is_a", "goal"]
MAX_NODES = 400  # beyond this `dot` takes long and the picture is unreadable anyway


class GraphUnavailable(ConcertoError):
    """The graph cannot be drawn: Graphviz is missing, or the catalog is too big to draw."""


@dataclass(frozen=True)
class Node:
    id: str
    name: str
    kind: NodeKind
    sensitive: bool = False
    askable: bool = False
    highlighted: bool = False
    step: int | None = None  # the first plan step that runs this skill or asks for this element


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: EdgeKind
    label: str = ""
    highlighted: bool = False


@dataclass(frozen=True)
class Highlight:
    """The part of the graph one plan uses."""

    skills: frozenset[str] = frozenset()
    elements: frozenset[str] = frozenset()
    flows: frozenset[tuple[str, str]] = frozenset()  # (element, skill) inputs and (skill, element) outputs
    intent: str | None = None
    steps: dict[str, int] = field(default_factory=dict)  # skill or asked element -> first step number


@dataclass(frozen=True)
class CatalogGraph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    highlighted: bool = False


class PlanStep(Protocol):
    """The part of a planned step a picture needs (the planner's `Step` fits; the catalog layer cannot import it)."""

    kind: str
    skill: str
    args: tuple[str, ...]
    outputs: tuple[str, ...]


def node_id(kind: NodeKind, name: str) -> str:
    return f"{kind}-{name}"


def plan_highlight(steps: Iterable[PlanStep], intent: str | None = None) -> Highlight:
    """What a plan touches: its skills, the elements they take and give, and those asked for."""
    skills: set[str] = set()
    elements: set[str] = set()
    flows: set[tuple[str, str]] = set()
    numbers: dict[str, int] = {}
    for number, step in enumerate(steps, start=1):
        if step.kind == "skill":
            skills.add(step.skill)
            numbers.setdefault(step.skill, number)
            elements.update(step.args)
            elements.update(step.outputs)
            flows.update((x, step.skill) for x in step.args)
            flows.update((step.skill, x) for x in step.outputs)
        elif step.kind == "ask":
            elements.update(step.args)
            for x in step.args:
                numbers.setdefault(x, number)
    return Highlight(frozenset(skills), frozenset(elements), frozenset(flows), intent, numbers)


def catalog_graph(spec: CatalogSpec, highlight: Highlight | None = None) -> CatalogGraph:
    lit = highlight or Highlight()
    nodes = [
        Node(node_id("element", e.name), e.name, "element", e.sensitive, e.askable,
             e.name in lit.elements, lit.steps.get(e.name))
        for e in spec.elements
    ]
    nodes += [
        Node(node_id("skill", s.name), s.name, "skill", highlighted=s.name in lit.skills, step=lit.steps.get(s.name))
        for s in spec.skills
    ]
    nodes += [Node(node_id("intent", i.name), i.name, "intent", highlighted=i.name == lit.intent) for i in spec.intents]
    edges = [
        Edge(node_id("element", e.name), node_id("element", e.parent), "is_a", "is a")
        for e in spec.elements
        if e.parent
    ]
    edges += _skill_edges(spec, lit)
    edges += _intent_edges(spec, lit)
    return CatalogGraph(tuple(nodes), tuple(edges), highlight is not None)


def graph_part(graph: CatalogGraph, keep: Iterable[str]) -> CatalogGraph:
    """The nodes named by `keep` (ids) and the edges between them."""
    kept = set(keep)
    nodes = tuple(n for n in graph.nodes if n.id in kept)
    edges = tuple(e for e in graph.edges if e.source in kept and e.target in kept)
    return CatalogGraph(nodes, edges, graph.highlighted)


def neighbourhood(graph: CatalogGraph, centre: str, limit: int = MAX_NODES) -> CatalogGraph:
    """A node and what it is directly connected to, then the next ring while it fits in `limit` nodes.

    How a large catalog is drawn: all of it is too big to read, one skill with what it takes and
    gives (and who else takes or gives those) is not.
    """
    around: dict[str, set[str]] = {}
    for edge in graph.edges:
        around.setdefault(edge.source, set()).add(edge.target)
        around.setdefault(edge.target, set()).add(edge.source)
    kept, ring = {centre}, {centre}
    while ring:
        following = {n for node in ring for n in around.get(node, ())} - kept
        if len(kept) + len(following) > limit:
            break
        kept |= following
        ring = following
        if len(kept) > limit // 4:  # two or three rings are enough to see a node's place
            break
    return graph_part(graph, kept)


def plan_part(graph: CatalogGraph) -> CatalogGraph:
    """Only what the highlighted plan touches, and its intent."""
    return graph_part(graph, (n.id for n in graph.nodes if n.highlighted))


def _skill_edges(spec: CatalogSpec, lit: Highlight) -> list[Edge]:
    edges = []
    for skill in spec.skills:
        sid = node_id("skill", skill.name)
        inputs = dict.fromkeys(x for mode in skill.modes for x in mode.inputs)
        edges += [
            Edge(node_id("element", x), sid, "input", highlighted=(x, skill.name) in lit.flows) for x in inputs
        ]
        # One arrow per output element, labelled with the outcomes that give it when not all do.
        outcomes = [o for mode in skill.modes for o in mode.outcomes]
        givers: dict[str, list[str]] = {}
        for outcome in outcomes:
            for x in outcome.outputs:
                givers.setdefault(x, []).append(outcome.name)
        for x, names in givers.items():
            label = "" if len(names) == len(outcomes) else " / ".join(dict.fromkeys(names))
            edges.append(Edge(sid, node_id("element", x), "output", label, (skill.name, x) in lit.flows))
    return edges


def _intent_edges(spec: CatalogSpec, lit: Highlight) -> list[Edge]:
    edges = []
    for intent in spec.intents:
        iid = node_id("intent", intent.name)
        on = intent.name == lit.intent
        edges += [Edge(node_id("element", x), iid, "goal", "goal", on) for x in intent.goal.known]
        skills = dict.fromkeys(done_ref(ref)[0] for ref in intent.goal.done)
        edges += [Edge(node_id("skill", s), iid, "goal", "goal", on) for s in skills]
    return edges


# --- drawing --------------------------------------------------------------------------------------

FONT = "DejaVu Sans"
INK, MUTED, FADED = "#1b1f24", "#4f5966", "#aab2bd"
ACCENT, HIGHLIGHT, BAD = "#0b5cad", "#c7410b", "#a40e26"


def _node_attrs(node: Node, dimmed: bool) -> dict[str, str]:
    step = f"<BR/><FONT POINT-SIZE=\"10\">step {node.step}</FONT>" if node.step else ""
    if node.kind == "skill":
        attrs = {"shape": "box", "style": "filled,rounded", "fillcolor": ACCENT, "fontcolor": "white",
                 "color": ACCENT, "label": f"<<B>{node.name}</B>{step}>"}
    elif node.kind == "intent":
        attrs = {"shape": "cds", "style": "filled", "fillcolor": "#e6f4ea", "color": "#116329",
                 "fontcolor": INK, "label": f"<<FONT POINT-SIZE=\"10\">intent</FONT><BR/>{node.name}>"}
    else:
        note = "<BR/><FONT POINT-SIZE=\"10\">sensitive</FONT>" if node.sensitive else ""
        attrs = {"shape": "box", "style": "rounded,filled", "fillcolor": "#fdeef0" if node.sensitive else "white",
                 "color": BAD if node.sensitive else MUTED, "fontcolor": BAD if node.sensitive else INK,
                 "peripheries": "2" if node.sensitive else "1", "label": f"<{node.name}{note}{step}>"}
    attrs["id"] = node.id
    attrs["tooltip"] = _tooltip(node)
    if node.highlighted:
        attrs.update(color=HIGHLIGHT, penwidth="3")
    elif dimmed:
        attrs.update(color=FADED, fontcolor=MUTED if node.kind != "skill" else "white")
        if node.kind == "skill":
            attrs["fillcolor"] = "#7d8a99"
    return attrs


def _tooltip(node: Node) -> str:
    if node.kind == "skill":
        return f"skill {node.name}"
    if node.kind == "intent":
        return f"intent {node.name}"
    facts = ["sensitive"] if node.sensitive else []
    facts.append("the user can give it" if node.askable else "the user cannot give it")
    return f"element {node.name} ({', '.join(facts)})"


def _edge_attrs(edge: Edge, dimmed: bool) -> dict[str, str]:
    attrs = {"color": MUTED, "fontcolor": MUTED, "fontsize": "10"}
    if edge.label and edge.kind != "goal":  # the intent's own shape already says "goal"
        # An external label leaves the layout alone: a plain label widens its whole rank.
        attrs["xlabel"] = edge.label
    if edge.kind == "is_a":
        attrs.update(style="dashed", arrowhead="empty")
    elif edge.kind == "goal":
        attrs.update(style="dotted", color="#116329")
    if edge.highlighted:
        attrs.update(color=HIGHLIGHT, penwidth="2.5", fontcolor=HIGHLIGHT)
    elif dimmed:
        attrs.update(color=FADED)
    return attrs


def to_dot(graph: CatalogGraph, title: str = "catalog") -> str:
    """Graphviz source for `graph`; the plan's nodes and edges stand out when one is highlighted."""
    dot = graphviz.Digraph(title)
    dot.attr(rankdir="LR", bgcolor="transparent", nodesep="0.2", ranksep="0.5", fontname=FONT, forcelabels="true")
    dot.attr("node", fontname=FONT, fontsize="12", margin="0.12,0.06")
    dot.attr("edge", fontname=FONT, arrowsize="0.7")
    for node in graph.nodes:
        dot.node(node.id, **_node_attrs(node, graph.highlighted))
    for edge in graph.edges:
        dot.edge(edge.source, edge.target, **_edge_attrs(edge, graph.highlighted))
    return dot.source


def render_svg(graph: CatalogGraph, title: str = "catalog") -> str:
    """The graph as an inline SVG element (no XML prolog), laid out by Graphviz's `dot`."""
    if len(graph.nodes) > MAX_NODES:
        raise GraphUnavailable(f"the catalog has {len(graph.nodes)} skills, elements and intents; "
                               f"the graph is drawn for at most {MAX_NODES}")
    source = graphviz.Source(to_dot(graph, title))
    try:
        svg = source.pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        raise GraphUnavailable("Graphviz is not installed on the server (the `dot` program is missing)") from None
    # Graphviz writes `-` in ids as `&#45;`; the plain character is valid XML and easier to target.
    return svg[svg.index("<svg"):].replace("&#45;", "-")
