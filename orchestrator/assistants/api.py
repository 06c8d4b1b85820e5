"""Publishing over the API, under /api/v1/assistants (studio login or basic auth).

    GET   /assistants?catalog=SLUG        the published assistants of the workspace (of one catalog)
    POST  /assistants                     publish: {catalog, key?, version?, orchestrator, allowed_origins, name}
    GET   /assistants/{key}               one assistant
    PATCH /assistants/{key}               {version?, enabled?, allowed_origins?, orchestrator?, name?}
    POST  /assistants/{key}/rotate-key    a new publishable key; pages with the old one stop working

Reads are for every member of the workspace; writes for its admins: the services check the role
(`catalog_app.permissions`), and their refusal is a 403 in the API's error shape. The chat
endpoints under /assistants/{key}/sessions are the widget's (`chat_api`).
"""

from __future__ import annotations

from typing import Literal

from django.db import transaction
from django.http import HttpRequest
from ninja import Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict, Field

from catalog_app.access import api_workspace
from catalog_app.api_base import ErrorOut, at_field, studio_auth
from catalog_app.models import Workspace
from catalog_app.permissions import Actor
from catalog_app.selectors import catalog_get, version_get
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.selectors import assistant_list
from orchestrator.assistants.services import (
    assistant_publish,
    assistant_rotate_key,
    assistant_set_enabled,
    assistant_set_origins,
    assistant_set_version,
    assistant_update,
)
from orchestrator.engine.errors import UnknownName

router = Router(tags=["assistants"], auth=studio_auth())

Orchestrator = Literal["planner", "s3"]


class AssistantOut(Schema):
    key: str
    name: str
    catalog: str
    version: int
    orchestrator: str
    enabled: bool
    allowed_origins: list[str]


class PublishIn(Schema):
    model_config = ConfigDict(extra="forbid")

    catalog: str
    key: str = Field("", description="the publishable key; generated from the name when left out")
    version: int | None = Field(None, description="a promoted version; the latest promoted when left out")
    orchestrator: Orchestrator = "planner"
    allowed_origins: list[str] = Field(default=[], description="sites that may embed the widget")
    name: str = ""


class AssistantPatch(Schema):
    model_config = ConfigDict(extra="forbid")

    version: int | None = None
    enabled: bool | None = None
    allowed_origins: list[str] | None = None
    orchestrator: Orchestrator | None = None
    name: str | None = None


def _out(assistant: Assistant) -> AssistantOut:
    return AssistantOut(key=assistant.key, name=assistant.name, catalog=assistant.catalog_version.catalog.slug,
                        version=assistant.catalog_version.number, orchestrator=assistant.mode,
                        enabled=assistant.enabled, allowed_origins=list(assistant.allowed_origins))


def _assistant(workspace: Workspace, key: str) -> Assistant:
    found = assistant_list(workspace=workspace).filter(key=key, studio_test=False).first()
    if found is None:
        raise HttpError(404, f"unknown assistant '{key}'")
    return found


@router.get("", response=list[AssistantOut], summary="The published assistants of the workspace")
def assistants_read(request: HttpRequest, catalog: str | None = None) -> list[AssistantOut]:
    assistants = assistant_list(workspace=api_workspace(request)).filter(studio_test=False)
    if catalog:
        assistants = assistants.filter(catalog_version__catalog__slug=catalog)
    return [_out(a) for a in assistants]


@router.post("", response={201: AssistantOut, 200: AssistantOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut},
             summary="Publish a catalog's promoted version as an assistant (or update the one with that key)")
def assistant_publish_api(request: HttpRequest, payload: PublishIn) -> Status:
    try:
        catalog = catalog_get(workspace=api_workspace(request), slug=payload.catalog)
    except UnknownName as exc:
        raise HttpError(404, str(exc)) from exc
    with at_field("version"):
        version = version_get(catalog=catalog, number=payload.version) if payload.version is not None else None
    assistant, created = assistant_publish(user=request.auth, catalog=catalog, key=payload.key, version=version,
                                           mode=payload.orchestrator, allowed_origins=payload.allowed_origins,
                                           name=payload.name)
    return Status(201 if created else 200, _out(assistant))


@router.get("/{key}", response={200: AssistantOut, 404: ErrorOut}, summary="One assistant")
def assistant_read(request: HttpRequest, key: str) -> AssistantOut:
    return _out(_assistant(api_workspace(request), key))


@router.patch("/{key}", response={200: AssistantOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut},
              summary="Switch the version, enable or disable, change origins, orchestrator or name")
def assistant_change(request: HttpRequest, key: str, payload: AssistantPatch) -> AssistantOut:
    assistant = _assistant(api_workspace(request), key)
    with transaction.atomic():  # all of the patch or none of it
        _apply(request.auth, assistant, payload)  # type: ignore[attr-defined]
    return _out(assistant)


def _apply(user: Actor, assistant: Assistant, payload: AssistantPatch) -> None:
    if payload.version is not None:
        with at_field("version"):
            version = version_get(catalog=assistant.catalog_version.catalog, number=payload.version)
        assistant_set_version(user=user, assistant=assistant, version=version)
    if payload.allowed_origins is not None:
        assistant_set_origins(user=user, assistant=assistant, allowed_origins=payload.allowed_origins)
    if payload.orchestrator is not None or payload.name is not None:
        assistant_update(user=user, assistant=assistant, mode=payload.orchestrator, name=payload.name)
    if payload.enabled is not None:
        assistant_set_enabled(user=user, assistant=assistant, enabled=payload.enabled)


@router.post("/{key}/rotate-key", response={200: AssistantOut, 403: ErrorOut, 404: ErrorOut},
             summary="Give the assistant a new publishable key (the old one stops working)")
def assistant_rotate(request: HttpRequest, key: str) -> AssistantOut:
    assistant = _assistant(api_workspace(request), key)
    return _out(assistant_rotate_key(user=request.auth, assistant=assistant))  # type: ignore[attr-defined]
