# Issue #11: elements carry their question and label; skills and modes whether they change the world.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog_app', '0005_skill_http_binding'),
    ]

    operations = [
        migrations.AddField(model_name='element', name='question', field=models.CharField(blank=True, max_length=500)),
        migrations.AddField(model_name='element', name='label', field=models.CharField(blank=True, max_length=200)),
        migrations.AddField(model_name='skill', name='effects', field=models.CharField(default='none', max_length=10)),
        migrations.AddField(model_name='mode', name='effects', field=models.CharField(blank=True, max_length=10)),
    ]
