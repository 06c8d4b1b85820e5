"""Who may do which write: one table from action to the least role that may do it, and one check.

Every write of the studio names its `Action` here. The services that write call `check_allowed`
with the user who asked, so the page, the API and the management commands cannot disagree (issue
24: the Assistants page let an analyst disable, re-key and publish what the API refused). A refusal
is `NotAllowed`, a `PermissionDenied`: pages answer Django's 403 page, the API its 403 JSON error,
the commands exit with its message. It is deliberately not a `ConcertoError`, so that a view's
`except ConcertoError` (which turns catalog problems into form errors) can never swallow it.

Roles rank analyst < admin: analysts author catalogs and try them (simulations, test chat,
analyses); admins also decide what end users get (promotion, publishing, review decisions).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied

from .models import Role, Workspace
from .selectors import workspace_role


class Action(StrEnum):
    """A write, worded to complete "only an admin of the workspace can ..."."""

    CATALOG_CREATE = "create or import a catalog"
    CATALOG_EDIT = "edit a catalog"
    SCENARIO_SAVE = "save a scenario"
    SIMULATION_RUN = "start or cancel a simulation"
    REFINEMENT_LEARN = "learn refinements or cancel a learning job"
    ANALYSIS_RUN = "analyse trajectories or cancel an analysis"
    TEST_CHAT = "talk to a version in the test chat"
    CONVERSATION_TEST_SAVE = "save, edit or delete a conversation test"
    CONVERSATION_TEST_RUN = "run conversation tests"
    ANALYTICS_EXAMPLE = "queue a request the assistant did not understand as an intent example"
    VERSION_PROMOTE = "promote a version"
    PROMOTION_THRESHOLD = "set the promotion threshold"
    PLANNER_SWITCH = "switch an assistant to the planner"
    CONVERSATION_TEST_GATE = "require conversation tests to pass for promotion"
    REFINEMENT_DECIDE = "decide on refinements"
    JOB_REQUEUE = "re-queue a background job (an analysis, a simulation, a learning job)"
    ASSISTANT_PUBLISH = "publish assistants"
    ASSISTANT_SWITCH_VERSION = "switch an assistant's version"
    ASSISTANT_ENABLE = "disable or enable an assistant"
    ASSISTANT_ROTATE_KEY = "rotate an assistant's key"
    ASSISTANT_ORIGINS = "change where an assistant may be embedded"
    ASSISTANT_UPDATE = "rename an assistant or change its orchestrator"
    COLD_START_RUN = "start, continue or cancel a cold-start campaign"
    COLD_START_SANDBOX = "run a cold-start campaign that auto-accepts refinements in a simulation-only sandbox"


RANK: Final = {Role.ANALYST: 1, Role.ADMIN: 2}

MINIMUM_ROLE: Final[dict[Action, Role]] = {
    Action.CATALOG_CREATE: Role.ANALYST,
    Action.CATALOG_EDIT: Role.ANALYST,
    Action.SCENARIO_SAVE: Role.ANALYST,
    Action.SIMULATION_RUN: Role.ANALYST,
    Action.REFINEMENT_LEARN: Role.ANALYST,
    Action.ANALYSIS_RUN: Role.ANALYST,
    Action.TEST_CHAT: Role.ANALYST,
    Action.CONVERSATION_TEST_SAVE: Role.ANALYST,
    Action.CONVERSATION_TEST_RUN: Role.ANALYST,
    Action.ANALYTICS_EXAMPLE: Role.ANALYST,  # a proposal only: an admin decides on it in the review queue
    Action.VERSION_PROMOTE: Role.ADMIN,
    Action.PROMOTION_THRESHOLD: Role.ADMIN,
    Action.PLANNER_SWITCH: Role.ADMIN,
    Action.CONVERSATION_TEST_GATE: Role.ADMIN,  # it decides what may be promoted, as the threshold does
    Action.REFINEMENT_DECIDE: Role.ADMIN,
    Action.JOB_REQUEUE: Role.ADMIN,
    Action.ASSISTANT_PUBLISH: Role.ADMIN,
    Action.ASSISTANT_SWITCH_VERSION: Role.ADMIN,
    Action.ASSISTANT_ENABLE: Role.ADMIN,
    Action.ASSISTANT_ROTATE_KEY: Role.ADMIN,
    Action.ASSISTANT_ORIGINS: Role.ADMIN,
    Action.ASSISTANT_UPDATE: Role.ADMIN,
    # Rounds of simulation and learning; its proposals wait in the review queue for an admin.
    Action.COLD_START_RUN: Role.ANALYST,
    # Accepting refinements, even into drafts the promotion gate keeps from users, is an admin's choice.
    Action.COLD_START_SANDBOX: Role.ADMIN,
}


class Operator:
    """The person at the server's command line (`manage.py publish`, `load_demo`).

    They hold the database credentials, so no role check could stop them; naming them keeps
    "which user asked" a required argument of every write, and the commands that act for a studio
    user (`review --user`, `promote_planner --user`) pass that user instead.
    """

    def __repr__(self) -> str:
        return "OPERATOR"


OPERATOR: Final = Operator()

# Who asks for a write: a studio user (request.user, request.auth, a command's --user) or the operator.
Actor = AbstractBaseUser | AnonymousUser | Operator


class NotAllowed(PermissionDenied):
    """The user's role in the workspace does not allow the action; the message says which role would."""

    def __init__(self, action: Action, *, member: bool = True):
        self.action = action
        if member:
            super().__init__(f"only {_article(MINIMUM_ROLE[action])} of the workspace can {action.value}")
        else:
            super().__init__(f"you are not a member of this workspace, so you cannot {action.value}")


def _article(role: Role) -> str:
    return f"an {role.label.lower()}" if role.label[0] in "AEIOU" else f"a {role.label.lower()}"


def is_allowed(user: Actor, workspace: Workspace, action: Action) -> bool:
    """Whether `user` may do `action` in `workspace` (what a page asks to show or hide a button)."""
    if user is OPERATOR:
        return True
    role = workspace_role(user=user, workspace=workspace) if getattr(user, "is_authenticated", False) else None
    return role is not None and RANK[Role(role)] >= RANK[MINIMUM_ROLE[action]]


def check_allowed(user: Actor, workspace: Workspace, action: Action) -> None:
    """NotAllowed unless `user` may do `action` in `workspace`; the one check of every write."""
    if is_allowed(user, workspace, action):
        return
    member = getattr(user, "is_authenticated", False) and workspace_role(user=user, workspace=workspace) is not None
    raise NotAllowed(action, member=bool(member))
