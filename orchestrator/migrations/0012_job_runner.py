"""One job runner: every job has a holder, attempts, a heartbeat and the time it was queued; status
values are unchanged (the one vocabulary adds "cancelled" to analyses)."""

import django.utils.timezone
from django.db import migrations, models
from django.db.models import F

JOBS = ("TrajectoryAnalysis", "SimulationRun", "LearningJob")


def existing_jobs_keep_their_history(apps, schema_editor):
    """Rows made before the runner: queued when they were created, one attempt if a worker took them,
    and a finished analysis's figures copied out of its report (lists no longer read the report)."""
    for name in JOBS:
        model = apps.get_model("orchestrator", name)
        model.objects.update(queued_at=F("created_at"))
        model.objects.filter(started_at__isnull=False).update(attempts=1)
    analysis = apps.get_model("orchestrator", "TrajectoryAnalysis")
    rows = analysis.objects.filter(report__isnull=False).only("pk", "report")
    for row in rows.iterator(chunk_size=50):
        figures = {key: value for key, value in row.report.items() if key != "sequences"}
        analysis.objects.filter(pk=row.pk).update(figures=figures)


class Migration(migrations.Migration):

    dependencies = [
        ('orchestrator', '0011_analytics_indexes'),
    ]

    operations = [
        migrations.AddField(
            model_name='learningjob',
            name='attempts',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='learningjob',
            name='done',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='learningjob',
            name='heartbeat_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='learningjob',
            name='holder',
            field=models.CharField(blank=True, max_length=100),
        ),
        migrations.AddField(
            model_name='learningjob',
            name='queued_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddField(
            model_name='simulationrun',
            name='attempts',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='simulationrun',
            name='heartbeat_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='simulationrun',
            name='holder',
            field=models.CharField(blank=True, max_length=100),
        ),
        migrations.AddField(
            model_name='simulationrun',
            name='queued_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddField(
            model_name='trajectoryanalysis',
            name='attempts',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='trajectoryanalysis',
            name='figures',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='trajectoryanalysis',
            name='holder',
            field=models.CharField(blank=True, max_length=100),
        ),
        migrations.AddField(
            model_name='trajectoryanalysis',
            name='queued_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AlterField(
            model_name='trajectoryanalysis',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='queued', max_length=16),
        ),
        migrations.RunPython(existing_jobs_keep_their_history, migrations.RunPython.noop),
    ]
