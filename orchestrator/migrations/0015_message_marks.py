"""A mark on the assistant lines that tell how a turn went ("not understood", "consent refused").

The chat service sets it from the engine's typed reply when it writes a turn; the analytics page counts
marks over a partial index instead of matching reply text over every transcript line. Lines written
before the mark existed are marked here by the text match the page used until now.
"""

from django.db import migrations, models

# The wording the engine used for these replies when the mark was introduced (engine/runtime/dialogue/applying.py).
NOT_UNDERSTOOD = "Sorry, I did not understand that."
CONSENT_REFUSED = "Understood: I will not share "


def mark_old_lines(apps, schema_editor) -> None:
    message = apps.get_model("orchestrator", "Message")
    old = message.objects.filter(role="assistant", kind="text", mark="")
    old.filter(text__startswith=NOT_UNDERSTOOD).update(mark="not_understood")
    old.filter(text__startswith=CONSENT_REFUSED).update(mark="consent_refused")


class Migration(migrations.Migration):

    dependencies = [
        ('orchestrator', '0014_simulation_explore'),
    ]

    operations = [
        migrations.AddField(
            model_name='message',
            name='mark',
            field=models.CharField(blank=True, choices=[('', 'None'), ('not_understood', 'Not understood'),
                                                        ('consent_refused', 'Consent refused')],
                                   default='', max_length=24),
        ),
        migrations.RunPython(mark_old_lines, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='message',
            index=models.Index(condition=models.Q(('mark', ''), _negated=True), fields=['mark', 'session'],
                               name='message_mark_session'),
        ),
    ]
