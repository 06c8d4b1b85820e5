"""The two orchestrators an assistant, a studio test chat or a simulation run can use: vocabulary every
feature of the app shares, so it lives beside them rather than in one of them."""

from django.db import models


class AssistantMode(models.TextChoices):
    PLANNER = "planner", "Planner orchestrator"
    S3 = "s3", "S3 orchestrator (score, select, sequence)"
