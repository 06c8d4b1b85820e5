"""What the assistant waits for, as typed frames: one model per kind, told apart by `kind`.

Before, one `Pending` record carried seven optional fields, any of which might be unset for the
kind at hand. Each frame now holds exactly what its kind needs. The `kind` names are the old
ones, so a session stored by the old code reads into the new frames (`read_pending`); a stored
record that fits no frame (an "ask" without its element) is dropped, and the next turn plans
again and asks its question afresh.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError


class AskFrame(BaseModel):
    """A question for an element's value."""

    kind: Literal["ask"] = "ask"
    element: str


class ConsentFrame(BaseModel):
    """Permission to share sensitive values with a skill (per skill) or an element (per element)."""

    kind: Literal["consent"] = "consent"
    target: str  # what is authorized: the skill (per skill) or the element (per element)
    skill: str | None = None  # the skill that would receive the values
    elements: list[str] = Field(default_factory=list)  # the sensitive values to share
    readback: dict[str, str] = Field(default_factory=dict)  # element -> value, as read back in the prompt


class ConfirmFrame(BaseModel):
    """Agreement to a world-changing call: one the request did not name, or a read-back before one."""

    kind: Literal["confirm"] = "confirm"
    operation: str
    skill: str | None = None
    elements: list[str] = Field(default_factory=list)  # the call's arguments
    readback: bool = False  # a read-back of the values of a call the request named
    values: dict[str, str] = Field(default_factory=dict)  # readback: element -> value, as read back


class ChoiceFrame(BaseModel):
    """ "Did you mean A or B?" between intents."""

    kind: Literal["choose"] = "choose"
    choices: list[str]


class OfferFrame(BaseModel):
    """ "Would you also like to ...?" after a goal is reached."""

    kind: Literal["extension"] = "extension"
    intent: str


class CheckFrame(BaseModel):
    """A value given with doubt, kept and asked about: "Is your income 92,000.00?" """

    kind: Literal["check"] = "check"
    element: str
    value: str


Frame = Annotated[AskFrame | ConsentFrame | ConfirmFrame | ChoiceFrame | OfferFrame | CheckFrame,
                  Field(discriminator="kind")]
YES_NO = (ConsentFrame, ConfirmFrame, OfferFrame, CheckFrame)  # frames a yes or a no answers

_FRAME: TypeAdapter[Any] = TypeAdapter(Frame)


def read_pending(stored: Any) -> Any:
    """A stored pending record as a frame; None for one that fits no frame (asked again next turn).

    The old `Pending` dumped all seven fields whatever its kind; the fields a frame does not have are
    ignored, and an empty list or None where a frame needs a value means the record is unusable.
    """
    if stored is None or isinstance(stored, BaseModel):
        return stored
    try:
        frame = _FRAME.validate_python(stored)
    except ValidationError:
        return None
    if isinstance(frame, ChoiceFrame) and not frame.choices:
        return None
    return frame
