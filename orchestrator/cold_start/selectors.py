"""Reads of cold-start campaigns: lists, one campaign with its rounds, and the success plot."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from catalog_app.models import Catalog, Workspace
from orchestrator.charts import Series, bar_chart
from orchestrator.cold_start.models import ColdStartCampaign, ColdStartRound
from orchestrator.engine.errors import UnknownName


def campaign_list(*, workspace: Workspace, catalog: Catalog | None = None) -> QuerySet[ColdStartCampaign]:
    found = ColdStartCampaign.objects.filter(catalog__workspace=workspace).select_related(
        "catalog", "created_by", "start_version", "reference_run__version")
    if catalog is not None:
        found = found.filter(catalog=catalog)
    return found.defer("scenario_data")


def campaign_get(*, workspace: Workspace, pk: int) -> ColdStartCampaign:
    found = campaign_list(workspace=workspace).filter(pk=pk).first()
    if found is None:
        raise UnknownName("cold-start campaign", str(pk))
    return found


def campaign_rounds(*, campaign: ColdStartCampaign) -> list[ColdStartRound]:
    rounds = list(campaign.rounds.select_related("version", "draft").order_by("number"))
    for r in rounds:  # what the page prints: a rate to a tenth of a percent
        r.success_text = f"{r.success_rate:.1%}" if r.success_rate is not None else ""  # type: ignore[attr-defined]
    return rounds


def reference_success_rate(campaign: ColdStartCampaign) -> float | None:
    """The goal success (0..1) of the campaign's reference run, the hand-written catalog on the planner;
    None while it has none."""
    reference = campaign.reference_run
    return float(reference.summary["success_rate"]) if reference is not None and reference.summary else None


def campaign_plot(*, campaign: ColdStartCampaign, rounds: list[ColdStartRound]) -> dict[str, Any]:
    """Goal success per round, and the hand-written reference catalog's planner success beside it."""
    labels = [f"round {r.number}: v{r.version.number} {r.orchestrator}" for r in rounds if r.success_rate is not None]
    values = [round(100 * r.success_rate, 1) for r in rounds if r.success_rate is not None]
    reference, rate = campaign.reference_run, reference_success_rate(campaign)
    if reference is not None and rate is not None:
        labels.append(f"reference {campaign.reference} v{reference.version.number} planner")
        values.append(round(100 * rate, 1))
    caption = "Share of the simulated conversations that reached their goal"
    if campaign.threshold is not None:
        caption += f"; the catalog's promotion threshold is {campaign.threshold:.0%}"
    return bar_chart("Goal success per round", labels, [Series("goal success", values)], unit="%", top=100,
                     caption=caption + ".", chart_id=f"campaign-{campaign.pk}-success",
                     empty="No round has finished its simulation yet.")
