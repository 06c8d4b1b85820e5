"""A mark on the reply that takes up an intent ("started"), and marks in stored simulated transcripts.

The learner labels a request by the intent the user's next message started, and the analytics page
counts a pick from "did you mean" by the reply that started it: both read the mark, never the reply's
wording. Lines written before the mark existed are marked here by the wording the engine used for them
until now, as 0015 did for the other marks:
- live lines (`Message`): the assistant's text replies naming a goal that read "Sure, let's ...";
- simulated transcripts (`SimulatedConversation.transcript`, JSON lines that had no mark at all): every
  line gets the `mark` key the simulation driver now writes, set by the same wording for the three marks.
"""

from django.db import migrations, models

# The wording the engine used for these replies when the marks were introduced (engine/runtime/dialogue/).
STARTED = "Sure, let's "
NOT_UNDERSTOOD = "Sorry, I did not understand that."
CONSENT_REFUSED = "Understood: I will not share "
BATCH = 200


def mark_old_lines(apps, schema_editor) -> None:
    message = apps.get_model("orchestrator", "Message")
    (message.objects.filter(role="assistant", kind="text", mark="", data__has_key="goal", text__startswith=STARTED)
     .update(mark="started"))


def line_mark(line: dict) -> str:
    """The mark of one stored simulated line, read from the wording the engine used before marks."""
    text = line.get("text") or ""
    if line.get("role") != "assistant" or line.get("kind") != "text":
        return ""
    if text.startswith(STARTED) and (line.get("data") or {}).get("goal"):
        return "started"
    if text.startswith(NOT_UNDERSTOOD):
        return "not_understood"
    if text.startswith(CONSENT_REFUSED):
        return "consent_refused"
    return ""


def mark_simulated_transcripts(apps, schema_editor) -> None:
    conversation = apps.get_model("orchestrator", "SimulatedConversation")
    changed = []
    for row in conversation.objects.only("pk", "transcript").iterator(chunk_size=BATCH):
        lines = row.transcript or []
        if all("mark" in line for line in lines):
            continue
        row.transcript = [line if "mark" in line else {**line, "mark": line_mark(line)} for line in lines]
        changed.append(row)
        if len(changed) >= BATCH:
            conversation.objects.bulk_update(changed, ["transcript"])
            changed = []
    if changed:
        conversation.objects.bulk_update(changed, ["transcript"])


class Migration(migrations.Migration):

    dependencies = [
        ('orchestrator', '0015_message_marks'),
    ]

    operations = [
        migrations.AlterField(
            model_name='message',
            name='mark',
            field=models.CharField(blank=True, choices=[('', 'None'), ('not_understood', 'Not understood'),
                                                        ('consent_refused', 'Consent refused'),
                                                        ('started', 'Intent started')],
                                   default='', max_length=24),
        ),
        migrations.RunPython(mark_old_lines, migrations.RunPython.noop),
        migrations.RunPython(mark_simulated_transcripts, migrations.RunPython.noop),
    ]
