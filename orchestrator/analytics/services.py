"""The analytics page's one write: a request the assistant did not understand, queued as an intent example.

It becomes a pending refinement in the catalog's review queue (the learner's own kind, `intent_example`),
so an admin decides on it there like on any learned one; nothing reaches a version without that.
"""

from __future__ import annotations

from django.db import transaction

from catalog_app.permissions import Action, Actor, check_allowed
from catalog_app.planning import version_planner
from catalog_app.selectors import version_spec
from orchestrator.assistants.models import Assistant
from orchestrator.engine.errors import ConcertoError, UnknownName
from orchestrator.engine.learning.effects import intent_plans, plan_effects
from orchestrator.engine.learning.refinements import Kind, Op
from orchestrator.engine.runtime.masking import MASK
from orchestrator.learning.models import Refinement, RefinementStatus

MAX_EXAMPLE_CHARS = 200  # as the learner: a longer message is a story, not an example


@transaction.atomic
def example_propose(*, assistant: Assistant, intent: str, text: str, user: Actor) -> Refinement:
    """Queue `text` as an example of `intent` for review; a pending one with the same key is kept, not doubled."""
    check_allowed(user, assistant.workspace, Action.ANALYTICS_EXAMPLE)
    text = " ".join(text.split())
    if not text:
        raise ConcertoError("the example is empty", path="text")
    if MASK in text or len(text) > MAX_EXAMPLE_CHARS:
        raise ConcertoError("a message with a hidden value, or longer than "
                            f"{MAX_EXAMPLE_CHARS} characters, cannot be an example", path="text")
    version = assistant.catalog_version
    spec = version_spec(version=version)
    if intent not in {i.name for i in spec.intents}:
        raise UnknownName("intent", intent, path="intent")
    catalog = version.catalog
    key = f"intent_example {intent} {text}"
    pending = Refinement.objects.filter(catalog=catalog, key=key, status=RefinementStatus.PENDING).first()
    if pending is not None:
        return pending
    change = {"op": Op.ADD_EXAMPLE.value, "intent": intent, "value": text}
    effects = plan_effects(spec, [change], intent_plans(spec, version_planner(version=version)))
    row = Refinement(catalog=catalog, version=version, source="analytics", kind=str(Kind.INTENT_EXAMPLE), key=key,
                     subject=intent, change=change, confidence=1.0,
                     summary=f"'{text}' was not understood by assistant '{assistant.key}'; an analyst marked it "
                             f"as a request to {intent}",
                     evidence={"assistant": assistant.key},
                     effects=[e.as_dict() for e in effects if "unchanged" not in e.text],
                     breaks=any(e.breaks for e in effects))
    row.full_clean(exclude=["catalog", "version", "run", "decided_by", "draft"])
    row.save()
    return row
