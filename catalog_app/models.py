"""Authoring data: workspaces, catalogs and their versions, stored as rows of the catalog spec.

The rows of one version are the spec of `orchestrator.engine.catalog.spec` laid out relationally, with
`position` keeping the authored order so that a version turns back into the very spec it came
from (`catalog_app.selectors.version_spec`). Writes go through `catalog_app.services`.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q

# Mirrors the spec's limits (orchestrator.engine.catalog.spec / validation).
MAX_NAME = 64
MAX_COST = 10_000


class Workspace(models.Model):
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=64, unique=True)

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    ANALYST = "analyst", "Analyst"
    ADMIN = "admin", "Admin"


class Membership(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.ANALYST)

    class Meta:
        constraints = (models.UniqueConstraint(fields=["user", "workspace"], name="membership_unique_user"),)

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"


class Catalog(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="catalogs")
    slug = models.SlugField(max_length=MAX_NAME)
    # The latest import's title and description, for lists; each version keeps its own.
    title = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ("slug",)
        constraints = (models.UniqueConstraint(fields=["workspace", "slug"], name="catalog_unique_slug"),)

    def __str__(self) -> str:
        return self.slug


class VersionStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PROMOTED = "promoted", "Promoted"


class Privacy(models.TextChoices):
    PER_SKILL = "per_skill", "Authorize once per skill"
    PER_ELEMENT = "per_element", "Authorize once per element"


def _cost_field(default: int) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(default=default, validators=[MaxValueValidator(MAX_COST)])


class CatalogVersion(models.Model):
    """One version of a catalog: a draft is editable, a promoted version never changes again."""

    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=VersionStatus.choices, default=VersionStatus.DRAFT)
    # Title and description belong to the version so that a promoted one stays as it was.
    title = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    privacy = models.CharField(max_length=16, choices=Privacy.choices, default=Privacy.PER_SKILL)
    cost_skill = _cost_field(1)
    cost_ask = _cost_field(5)
    cost_authorize = _cost_field(1)
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    promoted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    promoted_at = models.DateTimeField(null=True, blank=True)
    # Set on promotion: the spec as plain data, and the PDDL domain compiled from it.
    frozen_spec = models.JSONField(null=True, blank=True)
    # Counts the content changes of a draft (`services.version_update` is the one way to make
    # them), so a draft's spec can be cached between chat turns under (id, revision).
    revision = models.PositiveIntegerField(default=0, editable=False)
    compiled_domain = models.TextField(blank=True)

    class Meta:
        ordering = ("catalog_id", "number")
        constraints = (models.UniqueConstraint(fields=["catalog", "number"], name="version_unique_number"),)

    def __str__(self) -> str:
        return f"{self.catalog} v{self.number} ({self.status})"

    @property
    def is_draft(self) -> bool:
        return self.status == VersionStatus.DRAFT


class Element(models.Model):
    version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="elements")
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=MAX_NAME)
    description = models.TextField(blank=True)
    # RESTRICT: an element still used as a parent, input or output cannot be deleted on its
    # own, but goes with its whole version.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.RESTRICT, related_name="children"
    )
    sensitive = models.BooleanField(default=False)
    askable = models.BooleanField(default=True)
    format = models.CharField(max_length=1000, blank=True)
    question = models.CharField(max_length=500, blank=True)  # how the assistant asks for it
    label = models.CharField(max_length=200, blank=True)  # how sentences name it

    class Meta:
        ordering = ("version_id", "position")
        constraints = (models.UniqueConstraint(fields=["version", "name"], name="element_unique_name"),)

    def __str__(self) -> str:
        return self.name


class Skill(models.Model):
    version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="skills")
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=MAX_NAME)
    description = models.TextField(blank=True)
    endpoint = models.CharField(max_length=2000, default="sim:")
    max_retries = models.PositiveSmallIntegerField(default=1, validators=[MaxValueValidator(100)])
    cost = models.PositiveIntegerField(null=True, blank=True, validators=[MaxValueValidator(MAX_COST)])
    # Null is "no preview", distinct from an empty one, so that a version reads back exactly.
    preview = models.TextField(null=True, blank=True)  # noqa: DJ001
    # Declared behaviour of a `sim:` skill (the engine's Simulation) as JSON text: jsonb would
    # reorder its keys, and an exported catalog must read as it was authored.
    simulation = models.TextField(blank=True)
    # How an imported HTTP API operation is called (the engine's HttpBinding), as JSON text too.
    http = models.TextField(blank=True)
    effects = models.CharField(max_length=10, default="none")  # "world": changes things, confirmed off-route

    class Meta:
        ordering = ("version_id", "position")
        constraints = (models.UniqueConstraint(fields=["version", "name"], name="skill_unique_name"),)

    def __str__(self) -> str:
        return self.name


class Mode(models.Model):
    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="modes")
    position = models.PositiveIntegerField()
    # Blank: unnamed in the spec (the engine calls it m1, m2, ... by position).
    name = models.CharField(max_length=MAX_NAME, blank=True)
    inputs = models.ManyToManyField(Element, through="ModeInput", related_name="input_of")
    effects = models.CharField(max_length=10, blank=True)  # blank: the skill's

    class Meta:
        ordering = ("skill_id", "position")
        constraints = (
            models.UniqueConstraint(fields=["skill", "name"], condition=~Q(name=""), name="mode_unique_name"),
        )

    def __str__(self) -> str:
        return f"{self.skill}.{self.name or f'm{self.position + 1}'}"


class ModeInput(models.Model):
    mode = models.ForeignKey(Mode, on_delete=models.CASCADE, related_name="input_links")
    element = models.ForeignKey(Element, on_delete=models.RESTRICT, related_name="+")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ("mode_id", "position")
        constraints = (models.UniqueConstraint(fields=["mode", "element"], name="modeinput_unique_element"),)

    def __str__(self) -> str:
        return f"{self.mode} input {self.element_id}"


class Outcome(models.Model):
    mode = models.ForeignKey(Mode, on_delete=models.CASCADE, related_name="outcomes")
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=MAX_NAME)
    outputs = models.ManyToManyField(Element, through="OutcomeOutput", related_name="output_of")

    class Meta:
        ordering = ("mode_id", "position")
        constraints = (models.UniqueConstraint(fields=["mode", "name"], name="outcome_unique_name"),)

    def __str__(self) -> str:
        return self.name


class OutcomeOutput(models.Model):
    outcome = models.ForeignKey(Outcome, on_delete=models.CASCADE, related_name="output_links")
    element = models.ForeignKey(Element, on_delete=models.RESTRICT, related_name="+")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ("outcome_id", "position")
        constraints = (
            models.UniqueConstraint(fields=["outcome", "element"], name="outcomeoutput_unique_element"),
        )

    def __str__(self) -> str:
        return f"{self.outcome} output {self.element_id}"


class Intent(models.Model):
    version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="intents")
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=MAX_NAME)
    description = models.TextField(blank=True)
    examples = models.JSONField(default=list, blank=True)
    # Names, checked against the version by the engine's validation: element names to know,
    # `skill` or `skill.mode` references to have run, and intents offered on completion.
    goal_known = models.JSONField(default=list, blank=True)
    goal_done = models.JSONField(default=list, blank=True)
    extensions = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ("version_id", "position")
        constraints = (models.UniqueConstraint(fields=["version", "name"], name="intent_unique_name"),)

    def __str__(self) -> str:
        return self.name


# --- draft history (undo, redo, what changed meanwhile) -------------------------------------------


class DraftState(models.Model):
    """One state of a draft's spec in its editing history: the undo and redo steps of the editor.

    `seq` orders the states; the current one is the state whose `revision` is the draft's own
    revision (an undo writes an older spec again, under a new revision, and moves that revision
    onto the older state). A form remembers the revision it was built from, so a save on a draft
    changed meanwhile can say what changed since (`history.draft_changes_since`).
    """

    version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="history")
    seq = models.PositiveIntegerField()
    revision = models.PositiveIntegerField(null=True, blank=True)  # None: not current (undone or redone past)
    spec = models.JSONField()
    label = models.CharField(max_length=300, blank=True)  # what the edit that made this state did
    # Revisions this state has been current under: a form built at any of them has seen it.
    revisions = models.JSONField(default=list, blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("version_id", "seq")
        constraints = (models.UniqueConstraint(fields=["version", "seq"], name="draftstate_unique_seq"),)

    def __str__(self) -> str:
        return f"{self.version} state {self.seq}"
