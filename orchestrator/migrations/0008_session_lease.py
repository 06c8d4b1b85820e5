from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('orchestrator', '0007_session_retention'),
    ]

    operations = [
        migrations.AddField(
            model_name='chatsession',
            name='lease_token',
            field=models.UUIDField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='chatsession',
            name='lease_until',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
    ]
