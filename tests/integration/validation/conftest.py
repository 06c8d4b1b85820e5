"""Fixtures of the validation tests (the shared ones are in tests/integration/conftest.py)."""

from __future__ import annotations

# Recorded calls against the banking catalog's skills: one clean, one with a wrong reference,
# one with a made-up tool.
BANKING_SAMPLES = [
    {"sample_id": "clean", "output": [
        {"name": "lookup_customer", "arguments": {"email": "ada@example.com"}, "label": "var1"},
        {"name": "submit_credit_card", "label": "var2", "arguments": {
            "name": "$var1.name$", "address": "$var1.address$", "income": "$var1.income$", "card_type": "gold"}},
    ]},
    {"sample_id": "wrong-field", "output": [
        {"name": "lookup_customer", "arguments": {"email": "ada@example.com"}, "label": "var1"},
        {"name": "submit_credit_card", "label": "var2", "arguments": {
            "name": "$var1.full_name$", "address": "$var1.address$", "income": "$var1.income$", "card_type": "gold"}},
    ]},
    {"sample_id": "made-up", "output": [
        {"name": "fetch_weather", "arguments": {"city": "Paris"}, "label": "var1"},
    ]},
]
