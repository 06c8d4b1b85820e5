"""The analytics page's reads: every figure is one aggregate query over stored messages and traces.

Nothing here loops over sessions in Python: counts are SQL aggregates (conditional where they split),
and "what came next" is a correlated subquery on a session's indexed lines (the (session, position)
unique index, the partial index of marked lines). Only stored
rows are read, and those are masked before they are stored (`chat.services`); a session's sealed
state is never opened.

What the runtime records, and so what can be shown:
- a goal reached is a reply of kind "result"; a request given up, a text reply with `data.reason`;
- "did you mean" is a question whose reply data holds `choices` (`data.data.choices`: a message's
  data is the whole reply); a pick is a reply marked `started` (its `goal`) among the replies to the
  next user message (two for "both"); a turn starting nothing (or something not offered) is no pick;
- a refused consent is the reply marked `consent_refused` answering the answer to a consent;
- a request not understood is a user message whose reply is marked `not_understood`;
  (the marks are set by the chat service from the engine's typed reply, `Message.mark`, and read over a
  partial index: no reply's wording is matched);
- a skill that failed is an execution trace whose outcome is not the one planned;
- the version and orchestrator are those the session started on (`ChatSession.catalog_version`,
  `mode`, recorded since migration 0010), and latency is `Message.turn_ms` on user messages (also
  since 0010): older sessions count under "not recorded".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import (
    Aggregate,
    Avg,
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    FloatField,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.fields.json import KT
from django.db.models.functions import TruncDate, TruncWeek
from django.utils import timezone

from catalog_app.models import CatalogVersion
from orchestrator.assistants.models import Assistant
from orchestrator.chat.models import ChatSession, Message, MessageMark, MessageRole, TraceEvent, TraceKind
from orchestrator.modes import AssistantMode

TOP = 20  # rows of each table
MAX_DAYS = 45  # a longer range is drawn by week
LATENCY_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("under 0.3 s", 0, 300), ("0.3-1 s", 300, 1000), ("1-3 s", 1000, 3000), ("3-10 s", 3000, 10000),
    ("10 s or more", 10000, None),
)


class Percentile(Aggregate):
    """PostgreSQL's percentile_cont: an ordered-set aggregate Django has no class for."""

    function = "PERCENTILE_CONT"
    template = "%(function)s(%(share)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression: Any, share: float, **extra: Any):
        super().__init__(expression, share=float(share), **extra)


@dataclass(frozen=True)
class Period:
    """Which sessions count: of one assistant, optionally one start version, and a range of start days."""

    assistant: Assistant
    version: CatalogVersion | None = None
    since: date | None = None
    until: date | None = None  # inclusive

    def sessions(self) -> QuerySet[ChatSession]:
        rows = ChatSession.objects.filter(assistant=self.assistant)
        if self.version is not None:
            rows = rows.filter(catalog_version=self.version)
        if self.since is not None:
            rows = rows.filter(created_at__gte=_day_start(self.since))
        if self.until is not None:
            rows = rows.filter(created_at__lt=_day_start(self.until + timedelta(days=1)))
        return rows

    def messages(self) -> QuerySet[Message]:
        """Messages of the period's sessions (a join on the session, filtered as `sessions`)."""
        return Message.objects.filter(session__in=self.sessions().values("pk"))


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def _with(kind: str, **where: Any) -> Q:
    """Sessions with a message of `kind`: one hashed IN over the (kind, session) index, not a subquery per session."""
    return Q(pk__in=Message.objects.filter(kind=kind, **where).values("session_id"))


def _reached() -> Q:
    return _with("result")


# --- conversations and goals ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    opened: int  # sessions started (a widget opened), said something or not
    conversations: int  # sessions where the user said something
    reached: int  # ... and a goal was reached
    gave_up: int  # ... where the assistant said it cannot do a request
    by_mode: dict[str, int]  # conversations per orchestrator started on ("" not recorded)

    @property
    def mode_unrecorded(self) -> int:
        return self.by_mode.get("", 0)

    @property
    def success_rate(self) -> float | None:
        return self.reached / self.conversations if self.conversations else None


def analytics_summary(*, period: Period) -> Summary:
    gave_up = _with("text", data__has_key="reason")
    talked = Q(message_count__gt=1)
    modes = {mode: Count("pk", filter=talked & Q(mode=mode)) for mode in (*AssistantMode.values, "")}
    row = period.sessions().aggregate(
        opened=Count("pk"), conversations=Count("pk", filter=talked),
        reached=Count("pk", filter=talked & _reached()), gave_up=Count("pk", filter=talked & gave_up),
        **{f"mode_{mode or 'none'}": count for mode, count in modes.items()},
    )
    by_mode = {mode: row[f"mode_{mode or 'none'}"] for mode in modes}
    return Summary(opened=row["opened"], conversations=row["conversations"], reached=row["reached"],
                   gave_up=row["gave_up"], by_mode=by_mode)


@dataclass(frozen=True)
class Bucket:
    start: date
    conversations: int
    reached: int
    planner: int
    s3: int


def analytics_timeline(*, period: Period) -> tuple[str, list[Bucket]]:
    """Conversations, goals reached and orchestrators per day (per week over a long range)."""
    rows = period.sessions().filter(message_count__gt=1)
    span = rows.aggregate(lo=Min("created_at"), hi=Max("created_at"))
    if span["lo"] is None:
        return "day", []
    first = period.since or timezone.localtime(span["lo"]).date()
    last = period.until or timezone.localtime(span["hi"]).date()
    unit = "week" if (last - first).days > MAX_DAYS else "day"
    trunc = TruncWeek("created_at") if unit == "week" else TruncDate("created_at")
    grouped = (rows.annotate(bucket=trunc).values("bucket")
               .annotate(conversations=Count("pk"), reached=Count("pk", filter=_reached()),
                         planner=Count("pk", filter=Q(mode=AssistantMode.PLANNER)),
                         s3=Count("pk", filter=Q(mode=AssistantMode.S3)))
               .order_by("bucket"))
    return unit, [Bucket(start=_as_date(g["bucket"]), conversations=g["conversations"], reached=g["reached"],
                         planner=g["planner"], s3=g["s3"]) for g in grouped]


def _as_date(value: date | datetime) -> date:
    return timezone.localtime(value).date() if isinstance(value, datetime) else value


@dataclass(frozen=True)
class Unfinished:
    """Conversations that reached no goal, by where they stopped."""

    total: int
    last_question: list[tuple[str, int]]  # the element last asked for ("a choice of requests", "none asked")
    failed_skill: list[tuple[str, int]]  # the last skill whose outcome was not the planned one ("none")


def analytics_unfinished(*, period: Period) -> Unfinished:
    unfinished = period.sessions().filter(message_count__gt=1).exclude(_reached())
    total = unfinished.count()
    # The last question of each unfinished session (DISTINCT ON), then counted by what it asked.
    last = (Message.objects.filter(kind="question", session__in=unfinished.values("pk"))
            .order_by("session_id", "-position").distinct("session_id")
            .values(asked=KT("data__element"),
                    choosing=ExpressionWrapper(Q(data__data__has_key="choices"), output_field=BooleanField())))
    by_question: dict[str, int] = {}
    for asked, choosing, n in _counted(last, "asked", "choosing"):  # one row per element asked: a handful
        label = "a choice of requests" if choosing else asked or "another question"
        by_question[label] = by_question.get(label, 0) + n
    if total > sum(by_question.values()):
        by_question["nothing asked"] = total - sum(by_question.values())
    failed = (TraceEvent.objects.filter(kind=TraceKind.EXECUTION, session__in=unfinished.values("pk"))
              .annotate(got=KT("data__outcome"), planned=KT("data__planned_outcome")).exclude(got=F("planned"))
              .order_by("session_id", "-position").distinct("session_id").values(skill=KT("data__skill")))
    skills = sorted(_counted(failed, "skill"), key=lambda row: (-row[1], row[0] or ""))
    by_skill = [(skill or "?", n) for skill, n in skills[:TOP]]
    failing = sum(n for _, n in by_skill)
    if total > failing:
        by_skill.append(("no skill failed", total - failing))
    return Unfinished(
        total=total,
        last_question=sorted(by_question.items(), key=lambda p: (-p[1], p[0]))[:TOP],
        failed_skill=sorted(by_skill, key=lambda p: (-p[1], p[0])),
    )


def _counted(rows: QuerySet[Any], *columns: str) -> list[tuple[Any, ...]]:
    """`rows` (a DISTINCT ON query, which Django cannot aggregate) counted by `columns`, in one query.

    The inner query is Django's own; grouping over it directly, rather than looking each of its rows up
    again by id, spares a nested loop of tens of thousands of index lookups at 100,000 sessions.
    """
    sql, params = rows.query.sql_with_params()
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {names}, COUNT(*) FROM ({sql}) AS picked GROUP BY {names}", params)
        return cursor.fetchall()


# --- understanding ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unread:
    total: int
    top: list[tuple[str, int]]  # the user's words (masked as stored), how often


def analytics_not_understood(*, period: Period) -> Unread:
    """User messages whose reply is marked "not understood", most frequent first.

    Read from the replies (few) back to the message before each, not from every user message forward.
    """
    said = Message.objects.filter(session=OuterRef("session"), position=OuterRef("position") - 1,
                                  role=MessageRole.USER)
    replies = period.messages().filter(mark=MessageMark.NOT_UNDERSTOOD)
    # A marked reply always answers a user line (the engine marks only a turn's reply); no filter on
    # `said` here, which PostgreSQL would evaluate as a second subquery per row.
    top = (replies.annotate(said=Subquery(said.values("text")[:1]))
           .values("said").annotate(n=Count("pk")).order_by("-n", "said"))
    rows = [r for r in top[:TOP + 1] if r["said"] is not None][:TOP]
    total = replies.count() if len(rows) == TOP else sum(r["n"] for r in rows)
    return Unread(total=total, top=[(r["said"], r["n"]) for r in rows])


@dataclass(frozen=True)
class Choice:
    offered: tuple[str, ...]  # the intents "did you mean" named
    times: int
    picked: dict[str, int] = field(default_factory=dict)  # intent -> times picked
    none: int = 0  # answered otherwise (no, another request, nothing)


def analytics_choices(*, period: Period) -> list[Choice]:
    """Each "did you mean A or B?" offered, and what the next user message picked.

    A pick is a line marked `started` after the user's answer (at the offer's position + 1) with no user
    line between: a reply of the answer's turn, wherever in the turn it comes (a value refused may be
    said before it). "Both" starts two: the first two such lines are read, each counted if it was
    offered. The marked lines of a session are few (the partial mark index).
    """
    user_between = Message.objects.filter(session=OuterRef("session"), role=MessageRole.USER,
                                          position__gt=OuterRef(OuterRef("position")) + 1,
                                          position__lt=OuterRef("position"))
    started = (Message.objects.filter(session=OuterRef("session"), mark=MessageMark.STARTED,
                                      position__gt=OuterRef("position") + 1)
               .exclude(Exists(user_between)).order_by("position").values(goal=KT("data__goal")))
    rows = (period.messages().filter(kind="question", data__data__has_key="choices")
            .annotate(offered=F("data__data__choices"), picked=Subquery(started[:1]), also=Subquery(started[1:2]))
            .values("offered", "picked", "also").annotate(n=Count("pk")))
    tally: dict[tuple[str, ...], tuple[int, dict[str, int], int]] = {}
    for row in rows:  # one row per (offer, picks): a handful, not one per session
        offered, n = tuple(row["offered"] or ()), row["n"]
        times, picks, none = tally.get(offered, (0, {}, 0))
        chosen = [goal for goal in dict.fromkeys((row["picked"], row["also"])) if goal in offered]
        for goal in chosen:
            picks[goal] = picks.get(goal, 0) + n
        none += 0 if chosen else n
        tally[offered] = (times + n, picks, none)
    choices = [Choice(offered, times, picks, none) for offered, (times, picks, none) in tally.items()]
    return sorted(choices, key=lambda c: (-c.times, c.offered))[:TOP]


# --- consents, latency ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Consents:
    skill: str
    asked: int  # conversations asked for this skill's consent
    refused: int  # conversations where the user said no


def analytics_consents(*, period: Period) -> list[Consents]:
    """Per skill, the conversations asked for its consent and those that refused it.

    Refusals are read from the marked replies (few, over the partial index) back to the consent asked two
    lines before, rather than a look forward from every consent asked.
    """
    asked = (period.messages().filter(kind="consent").values(skill=KT("data__skill"))
             .annotate(asked=Count("session", distinct=True)))
    prompt = Message.objects.filter(session=OuterRef("session"), position=OuterRef("position") - 2, kind="consent")
    refused = (period.messages().filter(mark=MessageMark.CONSENT_REFUSED)
               .annotate(skill=Subquery(prompt.values(skill=KT("data__skill"))[:1]))
               .values("skill").annotate(refused=Count("session", distinct=True)))
    refusals = {r["skill"]: r["refused"] for r in refused}  # one row per skill: a handful
    rows = [Consents(skill=r["skill"] or "?", asked=r["asked"], refused=refusals.get(r["skill"], 0)) for r in asked]
    return sorted(rows, key=lambda c: (-c.refused, -c.asked, c.skill))[:TOP]


@dataclass(frozen=True)
class Latency:
    turns: int  # turns with a recorded time
    mean_ms: float | None
    p50_ms: float | None
    p95_ms: float | None
    max_ms: int | None
    buckets: list[tuple[str, int]]


def analytics_latency(*, period: Period) -> Latency:
    timed = period.messages().filter(role=MessageRole.USER, turn_ms__isnull=False)
    counts = {label: Count("pk", filter=Q(turn_ms__gte=lo) & (Q(turn_ms__lt=hi) if hi is not None else Q()))
              for label, lo, hi in LATENCY_BUCKETS}
    row = timed.aggregate(turns=Count("pk"), mean=Avg("turn_ms"), p50=Percentile("turn_ms", 0.5),
                          p95=Percentile("turn_ms", 0.95), top=Max("turn_ms"),
                          **{f"b{i}": c for i, c in enumerate(counts.values())})
    return Latency(turns=row["turns"], mean_ms=row["mean"], p50_ms=row["p50"], p95_ms=row["p95"],
                   max_ms=row["top"], buckets=[(label, row[f"b{i}"]) for i, label in enumerate(counts)])


# --- the page -----------------------------------------------------------------------------------------------


def analytics_versions(*, assistant: Assistant) -> list[CatalogVersion]:
    """The versions the assistant's sessions started on, newest first (the filter's choices)."""
    used = (ChatSession.objects.filter(assistant=assistant, catalog_version__isnull=False)
            .values("catalog_version").distinct())
    return list(CatalogVersion.objects.filter(pk__in=used).order_by("-number"))


@dataclass(frozen=True)
class Report:
    period: Period
    summary: Summary
    unit: str
    timeline: list[Bucket]
    unfinished: Unfinished
    not_understood: Unread
    choices: list[Choice]
    consents: list[Consents]
    latency: Latency


def analytics_report(*, period: Period) -> Report:
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # These aggregates are costed above PostgreSQL's JIT threshold at 100,000 sessions, and compiling
            # them takes 50-70 ms a query, more than it saves on queries of a few hundred ms.
            # The "last question of each session" sorts tens of thousands of rows: in memory, not on disk.
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL jit = off")
                cursor.execute("SET LOCAL work_mem = '32MB'")
        return _report(period)


def _report(period: Period) -> Report:
    unit, timeline = analytics_timeline(period=period)
    return Report(period=period, summary=analytics_summary(period=period), unit=unit, timeline=timeline,
                  unfinished=analytics_unfinished(period=period),
                  not_understood=analytics_not_understood(period=period), choices=analytics_choices(period=period),
                  consents=analytics_consents(period=period), latency=analytics_latency(period=period))
