"""Learning services: refinements proposed from simulation runs, live sessions and imported
tool-call trajectories, learned by a Celery job (`LearningJob`) or in the caller's process, decided by admins.

Check, then do: every decision checks the role and that each refinement still fits the base
spec before anything is written; accepted refinements become one new draft (through
`catalog_app.editing.version_edit`, the editor's own path), so nothing reaches a live version
without an admin promoting it afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from catalog_app.editing import version_edit
from catalog_app.models import Catalog, CatalogVersion
from catalog_app.permissions import Action, Actor, check_allowed
from catalog_app.planning import version_planner
from catalog_app.selectors import version_latest, version_spec
from catalog_app.services import version_create_draft
from orchestrator.chat.models import ChatSession
from orchestrator.chat.vault import state_or_empty
from orchestrator.engine.analysis.trajectory_io import DataError, load_samples
from orchestrator.engine.catalog.diff import Change, diff_catalogs
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.learning import learner
from orchestrator.engine.learning.effects import intent_plans, plan_effects
from orchestrator.engine.learning.observations import Conversation, from_trace, from_trajectory
from orchestrator.engine.learning.refinements import Refinement as Proposal
from orchestrator.engine.learning.refinements import apply_refinements
from orchestrator.engine.learning.retarget import scenario_retargeted
from orchestrator.engine.simulation.scenario import parse_scenario
from orchestrator.jobs.models import JobStatus
from orchestrator.jobs.runner import Beat, enqueue_on_commit, heartbeat_interval, job_cancel, job_requeue, job_run
from orchestrator.learning.models import LearningJob, Refinement, RefinementStatus
from orchestrator.learning.sandbox import version_latest_reviewed
from orchestrator.simulation.models import SimulationRun, SimulationScenario
from orchestrator.simulation.services import scenario_save

MAX_SESSIONS = 2000  # live sessions read per learning call, newest first


@dataclass(frozen=True)
class Decision:
    draft: CatalogVersion | None
    accepted: list[Refinement]
    rejected: list[Refinement]
    diff: list[Change]


# --- observations -----------------------------------------------------------------------------------


def run_conversations(*, run: SimulationRun) -> list[Conversation]:
    rows = run.results.order_by("index").values_list("index", "intent", "transcript", "trace", "state")
    return [from_trace(f"run:{run.pk}:{index}", trace, transcript, state, intent)
            for index, intent, transcript, trace, state in rows.iterator(chunk_size=200)]


def session_conversations(*, catalog: Catalog, limit: int = MAX_SESSIONS) -> list[Conversation]:
    sessions = (ChatSession.objects.filter(assistant__catalog_version__catalog=catalog)
                .order_by("-created_at").prefetch_related("messages", "trace")[:limit])
    found = []
    for session in sessions:
        # `mark`: how the turn went, as the engine typed it (the learner reads marks, never the wording)
        transcript = [{"position": m.position, "role": m.role, "kind": m.kind, "text": m.text, "data": m.data,
                       "mark": m.mark} for m in sorted(session.messages.all(), key=lambda m: m.position)]
        trace = [{"position": e.position, "kind": e.kind, "data": e.data}
                 for e in sorted(session.trace.all(), key=lambda e: e.position)]
        state = state_or_empty(session.state).model_dump(mode="json")  # stored encrypted; gone after retention
        found.append(from_trace(f"session:{session.pk}", trace, transcript, state))
    return found


# --- proposing ----------------------------------------------------------------------------------------


def trajectory_conversations(*, spec: CatalogSpec, data: Any) -> list[Conversation]:
    """Imported tool-call sequences (the trajectory analyser's formats) as observations; DataError when unreadable.

    A call names a skill (`lookup_customer`) or a skill's mode (`submit_credit_card.apply`); calls
    to other tools are left out, and a file none of whose calls names a skill of the catalog is refused.
    """
    samples = load_samples(data, path="trajectories")
    if not samples:
        raise DataError("trajectories", "there are no sequences to learn from")
    skills = {s.name: s for s in spec.skills}
    modes = {name: skill.mode_names() for name, skill in skills.items()}
    for i, sample in enumerate(samples):
        for j, call in enumerate(sample.calls):
            name, _, mode = call.name.partition(".")
            if name not in skills:
                continue
            names = modes[name]
            if (mode and mode not in names) or (not mode and len(names) > 1):
                raise DataError(f"trajectories[{i}].output[{j}].name",
                                f"name the mode of skill '{name}' as {name}.MODE with one of: {', '.join(names)}"
                                if not mode else f"skill '{name}' has no mode '{mode}' (modes: {', '.join(names)})")
    sole = {name: names[0] for name, names in modes.items() if len(names) == 1}
    found = [c for c in (from_trajectory(sample, skills, sole) for sample in samples) if c.calls]
    if not found:
        raise DataError("trajectories", f"no call names a skill of catalog '{spec.catalog}' "
                                        f"(its skills: {', '.join(sorted(skills))})")
    return found


def _check_run(catalog: Catalog, run: SimulationRun) -> None:
    if run.version.catalog_id != catalog.pk:
        raise ConcertoError(f"simulation {run.pk} is not a run of catalog '{catalog.slug}'", path="run")
    if run.status != JobStatus.DONE:
        raise ConcertoError(f"simulation {run.pk} is {run.status}: learn from a finished run", path="run")


def _check_sources(catalog: Catalog, run: SimulationRun | None, sessions: bool, trajectories: Any) -> None:
    if run is None and not sessions and trajectories is None:
        raise ConcertoError("learn from a simulation run, live sessions, imported trajectories, or several")
    if run is not None:
        _check_run(catalog, run)


def _base(catalog: Catalog, run: SimulationRun | None) -> CatalogVersion:
    """The version learning starts from: the run's, else the catalog's newest."""
    base = run.version if run is not None else version_latest(catalog=catalog)
    if base is None:
        raise ConcertoError(f"catalog '{catalog.slug}' has no version")
    return base


def refinements_learn(*, catalog: Catalog, run: SimulationRun | None = None, sessions: bool = False,
                      version: CatalogVersion | None = None, trajectories: Any = None,
                      ) -> tuple[CatalogVersion, list[Proposal]]:
    """What the learner proposes from a run, live sessions and/or imported trajectories; nothing is saved."""
    _check_sources(catalog, run, sessions, trajectories)
    base = version or _base(catalog, run)
    spec = version_spec(version=base)
    conversations = trajectory_conversations(spec=spec, data=trajectories) if trajectories is not None else []
    if run is not None:
        conversations += run_conversations(run=run)
    if sessions:
        conversations += session_conversations(catalog=catalog)
    if not conversations:
        raise ConcertoError("there are no conversations to learn from")
    return base, learner.learn(spec, conversations, planner=version_planner(version=base))


@transaction.atomic
def refinements_propose(*, catalog: Catalog, run: SimulationRun | None = None, sessions: bool = False,
                        version: CatalogVersion | None = None, trajectories: Any = None) -> list[Refinement]:
    """Learn, then queue every proposal for review: a pending one with the same key is refreshed, not doubled."""
    base, proposals = refinements_learn(catalog=catalog, run=run, sessions=sessions, version=version,
                                        trajectories=trajectories)
    spec = version_spec(version=base)
    before = intent_plans(spec, version_planner(version=base))
    source = "+".join(s for s, on in (("run", run is not None), ("sessions", sessions),
                                      ("trajectories", trajectories is not None)) if on)
    saved = []
    for proposal in proposals:
        effects = plan_effects(spec, [proposal.change], before)
        row = Refinement.objects.filter(catalog=catalog, key=proposal.key, status=RefinementStatus.PENDING).first()
        row = row or Refinement(catalog=catalog, key=proposal.key)
        row.version, row.run, row.source, row.kind = base, run, source, str(proposal.kind)
        row.subject = _subject(proposal.change)
        row.change, row.summary, row.evidence = proposal.change, proposal.summary, proposal.evidence
        row.confidence, row.edited = proposal.confidence, False
        row.effects = [e.as_dict() for e in effects if "unchanged" not in e.text]
        row.breaks = any(e.breaks for e in effects)
        row.full_clean(exclude=["catalog", "version", "run", "decided_by", "draft"])
        row.save()
        saved.append(row)
    return saved


# --- learning jobs (Celery) ---------------------------------------------------------------------------


@transaction.atomic
def learning_job_create(*, catalog: Catalog, user: AbstractBaseUser | None = None, run: SimulationRun | None = None,
                        sessions: bool = False, trajectories: Any = None, trajectories_name: str = "",
                        enqueue: bool = True) -> LearningJob:
    """Record a learning request, checked first (the run, the trajectories' format); a worker learns once it commits."""
    _check_sources(catalog, run, sessions, trajectories)
    if trajectories is not None:  # a bad file is refused now
        trajectory_conversations(spec=version_spec(version=_base(catalog, run)), data=trajectories)
    job = LearningJob.objects.create(catalog=catalog, run=run, sessions=sessions, trajectories=trajectories,
                                     trajectories_name=trajectories_name[:200], created_by=user)
    if enqueue:
        from orchestrator.learning.tasks import learning_job_run  # the task module imports this one

        enqueue_on_commit(job, learning_job_run)
    return job


def learning_job_execute(*, job_id: int) -> LearningJob:
    """Learn for a job and queue its proposals. Idempotent: a finished job is left as it is, a live one
    (its heartbeat, kept by a thread while the learner works, is recent) is left to its worker, so a
    redelivered message never starts a second learner; one whose worker died (no heartbeat for
    CONCERTO_JOB_STALE_SECONDS) learns again, and proposing refreshes pending refinements, never doubles them."""

    def work(job: LearningJob, beat: Beat) -> dict[str, Any]:
        job = LearningJob.objects.select_related("catalog", "run__version").get(pk=job.pk)
        with transaction.atomic():
            rows = refinements_propose(catalog=job.catalog, run=job.run, sessions=job.sessions,
                                       trajectories=job.trajectories)
            beat.check()  # cancelled or taken over meanwhile: the proposals are not queued
        return {"proposed": len(rows), "done": len(rows)}

    return job_run(LearningJob, job_id, work, failure="the learner failed", beat_every=heartbeat_interval())


def learning_job_cancel(*, job: LearningJob, user: Actor) -> LearningJob:
    """Stop a learning job: one not started never starts; a running learner's proposals are not queued."""
    check_allowed(user, job.catalog.workspace, Action.REFINEMENT_LEARN)  # who may start one may stop it
    return job_cancel(job)


def learning_job_requeue(*, job: LearningJob, user: AbstractBaseUser) -> LearningJob:
    """Put a learning job whose worker died, that no worker took, or that failed back in the queue (admins)."""
    from orchestrator.learning.tasks import learning_job_run  # the task module imports this one

    return job_requeue(job=job, user=user, workspace=job.catalog.workspace, task=learning_job_run,
                       noun="learning job", reset={"proposed": 0, "done": 0})


def _subject(change: dict[str, Any]) -> str:
    return change.get("skill") or change.get("intent") or change.get("element") or "catalog"


# --- deciding -----------------------------------------------------------------------------------------


def _check_admin(user: AbstractBaseUser, catalog: Catalog) -> None:
    check_allowed(user, catalog.workspace, Action.REFINEMENT_DECIDE)


@transaction.atomic
def refinement_edit(*, refinement: Refinement, change: dict[str, Any], user: AbstractBaseUser) -> Refinement:
    """An admin's own version of a pending refinement's change; it must still fit the spec it was learned on."""
    _check_admin(user, refinement.catalog)
    refinement = Refinement.objects.select_for_update().get(pk=refinement.pk)
    if refinement.status != RefinementStatus.PENDING:
        raise ConcertoError(f"refinement {refinement.pk} is already {refinement.status}")
    if change.get("op") != refinement.change.get("op"):
        raise ConcertoError("an edit keeps the kind of change: edit its values, or reject it", path="change.op")
    spec = version_spec(version=refinement.version)
    effects = plan_effects(spec, [change])  # raises ConcertoError when the change does not fit
    refinement.change, refinement.edited = change, True
    refinement.effects = [e.as_dict() for e in effects if "unchanged" not in e.text]
    refinement.breaks = any(e.breaks for e in effects)
    refinement.save()
    return refinement


@transaction.atomic
def refinements_decide(*, catalog: Catalog, user: AbstractBaseUser, accept: Iterable[int] = (),
                       reject: Iterable[int] = (), edits: dict[int, dict[str, Any]] | None = None) -> Decision:
    """Accept and reject pending refinements; the accepted ones, with any edits, form one new draft.

    The draft is a copy of the catalog's latest version with every accepted change made; it is
    checked like any edit, and nothing is written if a change does not fit.
    """
    _check_admin(user, catalog)
    accept, reject = list(dict.fromkeys(accept)), list(dict.fromkeys(reject))
    if set(accept) & set(reject):
        raise ConcertoError("a refinement cannot be both accepted and rejected")
    if not accept and not reject:
        raise ConcertoError("choose at least one refinement to accept or reject")
    rows = {r.pk: r for r in Refinement.objects.select_for_update().filter(catalog=catalog, pk__in=accept + reject)}
    for pk in accept + reject:
        row = rows.get(pk)
        if row is None:
            raise ConcertoError(f"catalog '{catalog.slug}' has no refinement {pk}")
        if row.status != RefinementStatus.PENDING:
            raise ConcertoError(f"refinement {pk} is already {row.status}")
    for pk, change in (edits or {}).items():
        if pk not in accept:
            raise ConcertoError(f"refinement {pk} is edited but not accepted")
        refinement_edit(refinement=rows[pk], change=change, user=user)
        rows[pk].refresh_from_db()
    draft, diff = None, []
    if accept:
        draft, diff = _draft_with(catalog, [rows[pk] for pk in accept], user)
    now = timezone.now()
    for pk in accept:
        rows[pk].status, rows[pk].draft = RefinementStatus.ACCEPTED, draft
    for pk in reject:
        rows[pk].status = RefinementStatus.REJECTED
    for row in rows.values():
        row.decided_by, row.decided_at = user, now
        row.save()
    return Decision(draft=draft, accepted=[rows[pk] for pk in accept], rejected=[rows[pk] for pk in reject],
                    diff=diff)


def _draft_with(catalog: Catalog, accepted: list[Refinement], user: AbstractBaseUser
                ) -> tuple[CatalogVersion, list[Change]]:
    latest = version_latest_reviewed(catalog=catalog)  # never on a sandbox draft: it holds unreviewed changes
    if latest is None:
        raise ConcertoError(f"catalog '{catalog.slug}' has no version")
    keys = ", ".join(r.key for r in accepted)
    draft, old, new = refinements_draft(version=latest, refinements=accepted, user=user,
                                        note=f"refinements accepted from review: {keys}")
    _scenarios_carried_over(catalog, draft, new)
    return draft, diff_catalogs(old, new)


def refinements_draft(*, version: CatalogVersion, refinements: list[Refinement], user: AbstractBaseUser | None,
                      note: str) -> tuple[CatalogVersion, CatalogSpec, CatalogSpec]:
    """A new draft of `version` with the refinements' changes made, through the editor's path, and
    `note`; with the spec before and after. Review and the cold-start sandbox both draft this way."""
    old = version_spec(version=version)
    changes = [r.change for r in refinements]
    apply_refinements(old, changes)  # check before the draft exists: a change that does not fit names itself
    draft = version_create_draft(version=version, user=user)
    draft.note = note[:2000]
    draft.save(update_fields=["note"])

    def change(spec: CatalogSpec) -> CatalogSpec:
        return apply_refinements(spec, changes)

    return draft, old, version_edit(version=draft, change=change)


def _scenarios_carried_over(catalog: Catalog, draft: CatalogVersion, spec: CatalogSpec) -> None:
    """Store `<name>-v<N>` for each stored scenario the draft would refuse only for outcomes it removed."""
    for stored in SimulationScenario.objects.filter(catalog=catalog):
        try:
            parse_scenario(stored.data, spec)
            continue  # still fits the draft as it is
        except ConcertoError:
            pass
        data = scenario_retargeted(stored.data, spec, f"{stored.name}-v{draft.number}")
        try:
            scenario_save(catalog=catalog, data=data, version=draft)
        except ConcertoError:
            continue  # it differs in more than removed outcomes: the analyst writes the new one
