"""The chat tests' fixtures (the demo banking assistant, the widget's calls), for conversations to count."""

from tests.integration.chat.conftest import DEMO_KEY, Widget, _fresh_rate_limits, demo, widget  # noqa: F401
