"""Writes of publishing: turn an assistant off and on, rotate its key, change its origins, and
the studio's test assistants that let an analyst talk to a draft without publishing it.

Creating an assistant and moving it to another version (`assistant_create`, `assistant_set_version`)
enforce "published assistants run promoted versions only".

Every write a person asks for takes that `user` and checks it with `catalog_app.permissions`
first (publishing is for the workspace's admins), so the Assistants page, the API and the
commands refuse the same people. `assistant_create` has no user: it is the step that
`assistant_publish` (checked), the studio's own test assistants and the demo loader build on.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from catalog_app.models import Catalog, CatalogVersion, VersionStatus, Workspace
from catalog_app.permissions import Action, Actor, check_allowed
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.promotion import planner_gate
from orchestrator.assistants.selectors import version_promoted_latest
from orchestrator.engine.errors import Issue, SpecError
from orchestrator.modes import AssistantMode

KEY_SUFFIX_BYTES = 6  # 12 hex digits: a rotated key cannot be guessed from the old one


# --- creating and moving ------------------------------------------------------------------------------------


def origin_normal(value: str) -> str:
    """`https://Shop.example.com/` -> `https://shop.example.com`: the form browsers send in `Origin`."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") or parts.query:
        raise SpecError([Issue("allowed_origins", f"'{value}' is not an origin such as https://shop.example.com")])
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname.lower()}{port}"


def _check_runnable(version: CatalogVersion, *, studio_test: bool, mode: str) -> None:
    """Published assistants run promoted versions only: an edit of a draft must never change what
    end users get without a promotion. Drafts run in the studio's test chat. The planner runs only
    what a gated promotion allows."""
    if studio_test:
        return
    if version.status != VersionStatus.PROMOTED:
        raise SpecError([Issue("version", f"version {version.number} of '{version.catalog.slug}' is a draft; "
                                          "promote it before an assistant runs it (try drafts in the studio's "
                                          "test chat)")])
    if mode == AssistantMode.PLANNER:
        planner_gate(version=version)


@transaction.atomic
def assistant_create(*, workspace: Workspace, version: CatalogVersion, key: str, mode: str = AssistantMode.PLANNER,
                     allowed_origins: Iterable[str] = (), name: str = "", studio_test: bool = False) -> Assistant:
    """Publish `version` (a promoted one) as an assistant under the publishable `key`."""
    if version.catalog.workspace_id != workspace.pk:
        raise SpecError([Issue("version", f"catalog '{version.catalog.slug}' is not in workspace '{workspace.slug}'")])
    _check_runnable(version, studio_test=studio_test, mode=mode)
    origins = list(dict.fromkeys(origin_normal(o) for o in allowed_origins))
    assistant = Assistant(workspace=workspace, catalog_version=version, key=key, mode=mode, studio_test=studio_test,
                          allowed_origins=origins, name=name or version.title or version.catalog.slug)
    assistant_clean(assistant)
    assistant.save()
    return assistant


@transaction.atomic
def assistant_set_version(*, user: Actor, assistant: Assistant, version: CatalogVersion) -> Assistant:
    """Point an assistant at another promoted version of its catalog; running sessions go on with it."""
    check_allowed(user, assistant.workspace, Action.ASSISTANT_SWITCH_VERSION)
    return _set_version(assistant, version)


def _set_version(assistant: Assistant, version: CatalogVersion) -> Assistant:
    if version.catalog_id != assistant.catalog_version.catalog_id:
        raise SpecError([Issue("version", f"the assistant runs catalog '{assistant.catalog_version.catalog.slug}', "
                                          f"not '{version.catalog.slug}'")])
    _check_runnable(version, studio_test=assistant.studio_test, mode=assistant.mode)
    assistant.catalog_version = version
    assistant_clean(assistant)
    assistant.save(update_fields=["catalog_version"])
    return assistant


def assistant_clean(assistant: Assistant) -> None:
    try:
        assistant.full_clean(exclude=["workspace", "catalog_version"])
    except ValidationError as exc:
        raise SpecError([Issue(field, message) for field, messages in exc.message_dict.items()
                         for message in messages]) from None


# --- keys, origins, switches ---


def assistant_new_key(*, name: str) -> str:
    """A fresh publishable key: the name made a slug, and a random suffix."""
    base = slugify(name)[:40].strip("-") or "assistant"
    return f"{base}-{secrets.token_hex(KEY_SUFFIX_BYTES)}"


TEST_KEY_PREFIX = "studio-test-"


@transaction.atomic
def assistant_publish(*, user: Actor, catalog: Catalog, key: str = "", version: CatalogVersion | None = None,
                      mode: str = AssistantMode.PLANNER, allowed_origins: Iterable[str] | None = None,
                      name: str = "") -> tuple[Assistant, bool]:
    """Publish `catalog` under `key`: a new assistant, or the one with that key updated.

    `version` defaults to the latest promoted one. An existing assistant moves to the version,
    takes the orchestrator (and the origins and name, when given) and is enabled again. Returns
    the assistant and whether it was created.
    """
    check_allowed(user, catalog.workspace, Action.ASSISTANT_PUBLISH)
    if version is None:
        version = version_promoted_latest(catalog=catalog)
        if version is None:
            raise SpecError([Issue("version", f"catalog '{catalog.slug}' has no promoted version; "
                                              "an admin promotes one on the Versions page")])
    if version.catalog_id != catalog.pk:
        raise SpecError([Issue("version", f"version {version.number} is not a version of '{catalog.slug}'")])
    key = key.strip() or assistant_new_key(name=name or catalog.slug)
    if key.startswith(TEST_KEY_PREFIX):
        raise SpecError([Issue("key", f"keys starting with '{TEST_KEY_PREFIX}' are the studio's own")])
    found = Assistant.objects.select_for_update().select_related("catalog_version__catalog").filter(key=key).first()
    if found is None:
        assistant = assistant_create(workspace=catalog.workspace, version=version, key=key, mode=mode,
                                     allowed_origins=allowed_origins or (), name=name)
        return assistant, True
    if found.studio_test or found.catalog_version.catalog_id != catalog.pk:
        raise SpecError([Issue("key", f"the key '{key}' is taken by another assistant")])
    _set_version(found, version)
    if allowed_origins is not None:
        _set_origins(found, allowed_origins)
    _update(found, name=name or None, mode=mode)
    _set_enabled(found, enabled=True)
    return found, False


@transaction.atomic
def assistant_set_enabled(*, user: Actor, assistant: Assistant, enabled: bool) -> Assistant:
    """A disabled assistant refuses new sessions and messages; nothing of its past is deleted."""
    check_allowed(user, assistant.workspace, Action.ASSISTANT_ENABLE)
    return _set_enabled(assistant, enabled=enabled)


def _set_enabled(assistant: Assistant, *, enabled: bool) -> Assistant:
    assistant.enabled = enabled
    assistant.save(update_fields=["enabled"])
    return assistant


@transaction.atomic
def assistant_rotate_key(*, user: Actor, assistant: Assistant, key: str | None = None) -> Assistant:
    """Give the assistant a new publishable key: pages that carry the old one stop working.

    Sessions already started go on (they are named by their own id, not by the key).
    """
    check_allowed(user, assistant.workspace, Action.ASSISTANT_ROTATE_KEY)
    base = assistant.key.rsplit("-", 1)[0] if "-" in assistant.key else assistant.key
    assistant.key = key or assistant_new_key(name=base)
    assistant_clean(assistant)
    assistant.save(update_fields=["key"])
    return assistant


@transaction.atomic
def assistant_set_origins(*, user: Actor, assistant: Assistant, allowed_origins: Iterable[str]) -> Assistant:
    """The pages that may embed the widget, as browsers send them in `Origin`."""
    check_allowed(user, assistant.workspace, Action.ASSISTANT_ORIGINS)
    return _set_origins(assistant, allowed_origins)


def _set_origins(assistant: Assistant, allowed_origins: Iterable[str]) -> Assistant:
    assistant.allowed_origins = list(dict.fromkeys(origin_normal(o) for o in allowed_origins if o.strip()))
    assistant_clean(assistant)
    assistant.save(update_fields=["allowed_origins"])
    return assistant


@transaction.atomic
def assistant_update(*, user: Actor, assistant: Assistant, name: str | None = None,
                     mode: str | None = None) -> Assistant:
    """Rename the assistant or change its orchestrator (to the planner only through its gate)."""
    check_allowed(user, assistant.workspace, Action.ASSISTANT_UPDATE)
    return _update(assistant, name=name, mode=mode)


def _update(assistant: Assistant, *, name: str | None = None, mode: str | None = None) -> Assistant:
    if name is not None:
        assistant.name = name
    if mode == AssistantMode.PLANNER and assistant.mode != AssistantMode.PLANNER and not assistant.studio_test:
        planner_gate(version=assistant.catalog_version)  # S3 -> planner: only what a gated promotion allows
    if mode is not None:
        assistant.mode = mode
    assistant_clean(assistant)
    assistant.save(update_fields=["name", "mode"])
    return assistant


# --- the studio's test chat --------------------------------------------------------------------------


def studio_test_key(*, version: CatalogVersion, mode: str) -> str:
    return f"{TEST_KEY_PREFIX}{version.pk}-{mode}"


@transaction.atomic
def studio_test_assistant(*, version: CatalogVersion, mode: str = AssistantMode.PLANNER) -> Assistant:
    """The hidden assistant the studio's test chat runs `version` (a draft, usually) with.

    One per version and orchestrator, made on first use: test sessions are stored like live
    ones (same runtime, same tables), marked by their assistant, and never served by the public API.
    """
    key = studio_test_key(version=version, mode=mode)
    found = Assistant.objects.select_for_update().filter(key=key).first()
    if found is not None:
        return found
    return assistant_create(workspace=version.catalog.workspace, version=version, key=key, mode=mode,
                            name=f"Test chat: {version.catalog.slug} v{version.number}", studio_test=True)
