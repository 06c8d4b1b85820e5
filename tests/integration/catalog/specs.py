"""Specs shared by the catalog tests."""

# Every field of the spec set to a non-default value somewhere, and orders that differ from
# alphabetical and from declaration (a child before its parent, inputs out of name order).
EVERY_FIELD = {
    "catalog": "every-field_1",
    "title": "Every field",
    "description": "A catalog that sets every field of the spec.",
    "privacy": "per_element",
    "costs": {"skill": 2, "ask": 9, "authorize": 3},
    "elements": [
        {"name": "pie_chart", "parent": "plot", "description": "a pie chart"},
        {"name": "plot", "description": "any plot"},
        {"name": "zip_code", "format": "regex:^[0-9]{5}$", "askable": True},
        {"name": "email", "format": "email", "sensitive": True},
        {"name": "tier", "format": "enum:bronze|silver|gold", "question": "Which tier?", "label": "the tier"},
        {"name": "score", "format": "number", "askable": False, "sensitive": True},
        {"name": "report"},
    ],
    "skills": [
        {
            "name": "scorer",
            "description": "Scores a customer",
            "endpoint": "https://skills.example.com/score",
            "max_retries": 0,
            "cost": 7,
            "preview": "I can score customers",
            "effects": "world",
            "modes": [
                {
                    "name": "by_email",
                    "effects": "none",
                    "inputs": ["zip_code", "email"],
                    "outcomes": [
                        {"name": "scored", "outputs": ["tier", "score"]},
                        {"name": "failed"},
                    ],
                },
                {"inputs": ["tier"], "outcomes": [{"name": "scored", "outputs": ["score"]}]},
            ],
            "http": {
                "method": "get",
                "params": [{"element": "zip_code", "name": "zip", "location": "query"}],
                "outputs": [{"element": "score", "field": "result.score"}],
                "statuses": [{"status": "2xx", "outcome": "scored"}, {"status": "404", "outcome": "failed"}],
                "secret": "scoring-key",
                "auth_header": "X-Api-Key",
                "auth_scheme": "",
            },
        },
        {
            "name": "plotter",
            "preview": "",
            "modes": [
                {"inputs": ["score"], "outcomes": [{"name": "ok", "outputs": ["pie_chart", "report"]}]}
            ],
            "simulation": {
                "values": {"report": "r-1", "ok.pie_chart": "pie"},
                "rules": [
                    {"when": {"score": "<10"}, "result": "unfeasible", "element": "score", "message": "too low"},
                    {"when": {"score": "*"}, "outcome": "ok", "values": {"report": "r-2"}},
                ],
                "weights": {"ok": 1.0},
                "explanation": {"score": 1.0},
            },
        },
    ],
    "intents": [
        {
            "name": "get_plot",
            "description": "draw a plot",
            "examples": ["plot my score", "show me a chart"],
            "goal": {"known": ["plot", "report"], "done": ["scorer.by_email", "plotter"]},
            "extensions": ["get_score"],
        },
        {"name": "get_score", "goal": {"known": ["score"]}},
    ],
}
