"""Writes of conversation tests: save one (from a test-chat session or as given), edit, delete, run all
on a version, and the per-catalog setting that makes promotion require them to pass.

A test runs in-process on the same runtime as the studio's test chat (`chat.runtime.runtime_for`
on the version's hidden test assistant, skills simulated from the catalog's declared behaviour),
with a fresh state and no stored session. Simulated skills draw from a seed fixed per turn, so a
test gives the same answer every time on the same version: a failure is a change in the catalog,
never luck.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from catalog_app.models import Catalog, CatalogVersion
from catalog_app.permissions import OPERATOR, Action, Actor, check_allowed
from catalog_app.selectors import version_spec
from orchestrator.assistants.services import studio_test_assistant
from orchestrator.chat.models import ChatSession, MessageRole
from orchestrator.chat.runtime import runtime_for
from orchestrator.chat.services import MAX_MESSAGE_CHARS
from orchestrator.chat.vault import state_open
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.runtime.masking import MASK
from orchestrator.engine.runtime.session import SessionState
from orchestrator.modes import AssistantMode

from .checks import EXPECTATIONS, first_difference, snapshot, turn_observed
from .models import ConversationTest, ConversationTestPolicy, ConversationTestRun
from .selectors import policy_required

MAX_TURNS = 50
TURN_SEED = 7919  # simulated skills' seed of turn i is TURN_SEED + i: the same draws on every run
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


# --- checking what is given ----------------------------------------------------------------------------


def turns_checked(turns: Any) -> list[dict[str, Any]]:
    """`turns` in the stored shape, or a ConcertoError naming the first fault (`turns[1].expect.asked`)."""
    if not isinstance(turns, list) or not turns:
        raise ConcertoError("a test needs at least one user turn", path="turns")
    if len(turns) > MAX_TURNS:
        raise ConcertoError(f"a test has at most {MAX_TURNS} turns", path="turns")
    checked = []
    for index, turn in enumerate(turns):
        at = f"turns[{index}]"
        if not isinstance(turn, dict) or set(turn) - {"user", "expect"}:
            raise ConcertoError("a turn is {user, expect}", path=at)
        text = turn.get("user")
        if not isinstance(text, str) or not text.strip():
            raise ConcertoError("the user's message is empty", path=f"{at}.user")
        if len(text) > MAX_MESSAGE_CHARS:
            raise ConcertoError(f"at most {MAX_MESSAGE_CHARS} characters", path=f"{at}.user")
        expect = turn.get("expect", {})
        if not isinstance(expect, dict):
            raise ConcertoError("expect maps an expectation to names", path=f"{at}.expect")
        for key, names in expect.items():
            if key not in EXPECTATIONS:
                raise ConcertoError(f"unknown expectation '{key}' (one of {', '.join(EXPECTATIONS)})",
                                    path=f"{at}.expect")
            if not isinstance(names, list) or not all(isinstance(n, str) and NAME.match(n) for n in names):
                raise ConcertoError("a list of element, skill or intent names", path=f"{at}.expect.{key}")
        checked.append({"user": text.strip(), "expect": {k: sorted(set(expect[k])) for k in EXPECTATIONS
                                                          if k in expect}})
    return checked


def _name_checked(catalog: Catalog, name: str, test: ConversationTest | None = None) -> str:
    name = name.strip()
    if not name or len(name) > 100:
        raise ConcertoError("a test needs a name of at most 100 characters", path="name")
    taken = ConversationTest.objects.filter(catalog=catalog, name=name)
    if test is not None:
        taken = taken.exclude(pk=test.pk)
    if taken.exists():
        raise ConcertoError(f"the catalog already has a test named '{name}'", path="name")
    return name


def _mode_checked(mode: str) -> str:
    if mode not in AssistantMode.values:
        raise ConcertoError(f"unknown orchestrator '{mode}' (planner or s3)", path="mode")
    return mode


# --- replaying a conversation ----------------------------------------------------------------------------


def conversation_replay(*, version: CatalogVersion, mode: str, texts: list[str]) -> list[dict[str, list[str]]]:
    """What each turn shows when `texts` are said, in order, to `version` from a new conversation."""
    assistant = studio_test_assistant(version=version, mode=mode)
    state = SessionState()
    observed = []
    for index, text in enumerate(texts):
        runtime = runtime_for(assistant, seed=TURN_SEED + index)
        before = snapshot(state)
        log = runtime.bot.turn(state, text)
        observed.append(turn_observed(before, state, log))
    return observed


def conversation_test_verdict(*, test: ConversationTest, version: CatalogVersion) -> dict[str, Any]:
    """One test on `version`: passed, or the first turn that differs and how."""
    verdict: dict[str, Any] = {"test": test.pk, "name": test.name, "passed": True, "turn": None, "difference": ""}
    try:
        observed = conversation_replay(version=version, mode=test.mode, texts=[t["user"] for t in test.turns])
    except ConcertoError as exc:  # the version cannot run at all (it does not compile, say)
        return {**verdict, "passed": False, "difference": f"the version cannot run: {exc}"}
    for index, (turn, seen) in enumerate(zip(test.turns, observed, strict=True)):
        difference = first_difference(turn.get("expect", {}), seen)
        if difference is not None:
            return {**verdict, "passed": False, "turn": index + 1, "user": turn["user"], "difference": difference}
    return verdict


# --- saving and editing ----------------------------------------------------------------------------


def _session_texts(session: ChatSession) -> list[str]:
    """The user's messages of a test-chat session, with the sensitive values the transcript masks
    read back from the session's (sealed) state (`_unmasked`)."""
    texts: list[str] = []
    asked: str | None = None
    state: SessionState | None = None
    for message in session.messages.order_by("position"):
        if message.role == MessageRole.ASSISTANT:
            if message.kind == "question" and message.data.get("element"):
                asked = message.data["element"]
            continue
        text = message.text
        if MASK in text:
            if state is None:  # read afresh: the caller's session object may hold the state before its turns
                stored = ChatSession.objects.values_list("state", flat=True).get(pk=session.pk)
                state = state_open(stored, session_id=session.pk)
            text = _unmasked(text, asked, state, version_spec(version=session.assistant.catalog_version),
                             turn=len(texts) + 1)
        texts.append(text)
        asked = None  # a question is answered by the message right after it, or not at all
    if not texts:
        raise ConcertoError("say something in the test chat first: the conversation is empty", path="session")
    return texts


def _unmasked(text: str, asked: str | None, state: SessionState, spec: CatalogSpec, *, turn: int) -> str:
    """`text` with its masked value written out: the answer to the sensitive question just asked,
    else the one sensitive value the user gave; refused when that is not clear."""
    sensitive = {e.name for e in spec.elements if e.sensitive}
    given = [name for name, kept in state.memory.items() if name in sensitive and kept.source == "user"]
    chosen = asked if asked in sensitive and asked in state.memory else (given[0] if len(given) == 1 else None)
    if chosen is None or text.count(MASK) != 1:
        raise ConcertoError(f"turn {turn} hid a sensitive value that cannot be told apart; save the test by "
                            "the API with the value written out", path="session")
    return text.replace(MASK, state.memory[chosen].value)


def _author(user: Actor) -> AbstractBaseUser | None:
    """Who a stored test or run names as its author: the studio user, or nobody for the operator."""
    return user if isinstance(user, AbstractBaseUser) else None


@transaction.atomic
def conversation_test_from_session(*, session: ChatSession, name: str, user: Actor) -> ConversationTest:
    """A test of the user turns of a test-chat session, expecting what the session's version shows
    on a replay (a test passes on the version it was saved from)."""
    assistant = session.assistant
    catalog = assistant.catalog_version.catalog
    check_allowed(user, catalog.workspace, Action.CONVERSATION_TEST_SAVE)  # before replaying anything
    texts = _session_texts(session)[:MAX_TURNS]
    observed = conversation_replay(version=assistant.catalog_version, mode=assistant.mode, texts=texts)
    turns = [{"user": text, "expect": seen} for text, seen in zip(texts, observed, strict=True)]
    return conversation_test_create(catalog=catalog, name=name, mode=assistant.mode, turns=turns, user=user)


@transaction.atomic
def conversation_test_create(*, catalog: Catalog, name: str, mode: str, turns: Any, user: Actor) -> ConversationTest:
    check_allowed(user, catalog.workspace, Action.CONVERSATION_TEST_SAVE)
    test = ConversationTest(catalog=catalog, name=_name_checked(catalog, name), mode=_mode_checked(mode),
                            turns=turns_checked(turns), created_by=_author(user))
    test.full_clean()
    test.save()
    return test


@transaction.atomic
def conversation_test_update(*, test: ConversationTest, user: Actor, name: str | None = None,
                             mode: str | None = None, turns: Any = None) -> ConversationTest:
    check_allowed(user, test.catalog.workspace, Action.CONVERSATION_TEST_SAVE)
    if name is not None:
        test.name = _name_checked(test.catalog, name, test)
    if mode is not None:
        test.mode = _mode_checked(mode)
    if turns is not None:
        test.turns = turns_checked(turns)
    test.full_clean()
    test.save()
    return test


def conversation_test_delete(*, test: ConversationTest, user: Actor) -> None:
    check_allowed(user, test.catalog.workspace, Action.CONVERSATION_TEST_SAVE)
    test.delete()


# --- running ----------------------------------------------------------------------------


@transaction.atomic
def conversation_tests_run(*, version: CatalogVersion, user: Actor) -> ConversationTestRun:
    """Every test of the version's catalog, run on `version` and stored as one run."""
    check_allowed(user, version.catalog.workspace, Action.CONVERSATION_TEST_RUN)
    tests = ConversationTest.objects.filter(catalog_id=version.catalog_id).order_by("name")
    results = [conversation_test_verdict(test=test, version=version) for test in tests]
    passed = sum(1 for r in results if r["passed"])
    run = ConversationTestRun(version=version, results=results, passed=passed, failed=len(results) - passed,
                              created_by=_author(user))
    run.save()
    return run


# --- the promotion gate ----------------------------------------------------------------------------


@transaction.atomic
def conversation_tests_policy_set(*, catalog: Catalog, required: bool, user: Actor) -> ConversationTestPolicy:
    check_allowed(user, catalog.workspace, Action.CONVERSATION_TEST_GATE)
    policy, _ = ConversationTestPolicy.objects.get_or_create(catalog=catalog)
    policy.required = required
    policy.save(update_fields=["required"])
    return policy


def conversation_tests_gate(version: CatalogVersion, spec: Any) -> list[str]:
    """The gate `catalog_app.promotion_gates` asks: when the catalog requires its tests, all pass on
    `version`, run now (a stored run might be of an older edit of the draft)."""
    if not policy_required(catalog=version.catalog):
        return []
    # The promotion asking has already checked its user (Action.VERSION_PROMOTE); the run is part of it.
    run = conversation_tests_run(version=version, user=OPERATOR)
    if run.ok:
        return []
    first = next(r for r in run.results if not r["passed"])
    where = f" at turn {first['turn']}" if first.get("turn") else ""
    return [f"{run.failed} of {run.passed + run.failed} conversation tests fail on version {version.number} "
            f"(first: '{first['name']}'{where}: {first['difference']})"]


# --- travelling with the catalog file (`catalog_app.catalog_files`) -------------------------------------


def tests_export(catalog: Catalog) -> list[dict[str, Any]]:
    """The catalog's tests as its exported file holds them, under `conversation_tests`."""
    return [{"name": t.name, "mode": t.mode, "turns": t.turns}
            for t in ConversationTest.objects.filter(catalog=catalog).order_by("name")]


def tests_checked(data: Any) -> list[dict[str, Any]]:
    """The `conversation_tests` of an imported file, checked before anything is stored."""
    if not isinstance(data, list):
        raise ConcertoError("a list of tests, each {name, mode, turns}")
    checked, names = [], set()
    for index, test in enumerate(data):
        at = f"[{index}]"
        if not isinstance(test, dict) or set(test) - {"name", "mode", "turns"}:
            raise ConcertoError("a test is {name, mode, turns}", path=at)
        name = test.get("name")
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > 100 or name.strip() in names:
            raise ConcertoError("a name of at most 100 characters, different from the others'", path=f"{at}.name")
        names.add(name.strip())
        try:
            mode = _mode_checked(str(test.get("mode", AssistantMode.PLANNER)))
            turns = turns_checked(test.get("turns"))
        except ConcertoError as exc:
            raise ConcertoError(str(exc), path=f"{at}.{exc.path}") from None
        checked.append({"name": name.strip(), "mode": mode, "turns": turns})
    return checked


def tests_store(catalog: Catalog, tests: list[dict[str, Any]], user: AbstractBaseUser | None) -> None:
    """An imported file's tests: a test of the same name is replaced, the catalog's others are kept."""
    # Saving tests is its own write: the import's check (creating a catalog) does not stand in for it.
    check_allowed(user if user is not None else OPERATOR, catalog.workspace, Action.CONVERSATION_TEST_SAVE)
    for test in tests:
        ConversationTest.objects.update_or_create(catalog=catalog, name=test["name"], defaults={
            "mode": test["mode"], "turns": test["turns"], "created_by": user})
