"""A mark on the reply that takes up an intent ("started"), and marks in stored simulated transcripts.

The learner labels a request by the intent the user's next message started, and the analytics page
counts a pick from "did you mean" by the reply that started it: both read the mark, never the reply's
wording. Lines written before the mark existed are marked here by the wording the engine used for them
until now, as 0015 did for the other marks:
- live lines (`Message`): the assistant's text replies naming a goal that read "Sure, let's ...";
- simulated transcripts (`SimulatedConversation.transcript`, JSON lines that had no mark at all): every
  line gets the `mark` key the simulation driver now writes, set by the same wording for the three marks.
The S3 orchestrator's reply now holds the skills it selected (`data.selected`), which the learner reads
instead of parsing "I will use a, then b."; its old replies, live and simulated, get it here from that
wording ("Sorry, none of my skills ..." selected none).
"""

from django.db import migrations, models

# The wording the engine used for these replies when the marks were introduced (engine/runtime/dialogue/).
STARTED = "Sure, let's "
NOT_UNDERSTOOD = "Sorry, I did not understand that."
CONSENT_REFUSED = "Understood: I will not share "
S3_USES = "I will use "
S3_NONE = "Sorry, none of my skills"
BATCH = 200


def s3_selection(reply: dict, text: str) -> dict | None:
    """An old S3 reply (the whole reply, as a line's `data`; `text`, the line's) with `selected` added, or
    None if it is not one."""
    inner = reply.get("data") or {}
    if "selected" in inner:
        return None
    if "scores" in inner and text.startswith(S3_USES):
        names = text.removeprefix(S3_USES).rstrip(".").split(", then ")
        return {**reply, "data": {**inner, "selected": [n.strip().replace(" ", "_") for n in names if n.strip()]}}
    if text.startswith(S3_NONE):
        return {**reply, "data": {**inner, "selected": []}}
    return None


def mark_old_lines(apps, schema_editor) -> None:
    message = apps.get_model("orchestrator", "Message")
    (message.objects.filter(role="assistant", kind="text", mark="", data__has_key="goal", text__startswith=STARTED)
     .update(mark="started"))


def _rewrite(model, rows, field: str, change) -> None:
    """Store `change(row)` in `field` of every row it does not return None for, a batch at a time."""
    changed = []
    for row in rows.iterator(chunk_size=BATCH):
        value = change(row)
        if value is None:
            continue
        setattr(row, field, value)
        changed.append(row)
        if len(changed) >= BATCH:
            model.objects.bulk_update(changed, [field])
            changed = []
    if changed:
        model.objects.bulk_update(changed, [field])


def select_old_s3_lines(apps, schema_editor) -> None:
    message = apps.get_model("orchestrator", "Message")
    old = message.objects.filter(role="assistant", kind="text").filter(
        models.Q(text__startswith=S3_USES, data__data__has_key="scores") | models.Q(text__startswith=S3_NONE))
    _rewrite(message, old.only("pk", "data", "text"), "data", lambda row: s3_selection(row.data or {}, row.text))


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


def _line(line: dict) -> dict:
    if "mark" not in line:
        line = {**line, "mark": line_mark(line)}
    if (line.get("role") == "assistant" and line.get("kind") == "text"
            and (selected := s3_selection(line.get("data") or {}, line.get("text") or "")) is not None):
        line = {**line, "data": selected}
    return line


def _transcript(row) -> list | None:
    lines = row.transcript or []
    updated = [_line(line) for line in lines]
    return None if updated == lines else updated


def mark_simulated_transcripts(apps, schema_editor) -> None:
    conversation = apps.get_model("orchestrator", "SimulatedConversation")
    _rewrite(conversation, conversation.objects.only("pk", "transcript"), "transcript", _transcript)


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
        migrations.RunPython(select_old_s3_lines, migrations.RunPython.noop),
    ]
