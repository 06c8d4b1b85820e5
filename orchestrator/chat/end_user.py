"""What the end user of a live assistant is told, kept apart from what the studio is told.

The engine's replies carry, beside their text, the reasons an analyst needs: a give-up names the
planner's verdict in `data.reason` ("no plan reaches the goal: nothing can establish ...").
The reply's text already says it in the user's words ("Sorry, I cannot apply for a loan: I have
no way to get your credit score."); the reason stays in the stored transcript and the trace for
the session inspector, and is left out of what the chat API and the widget get. So are the S3
orchestrator's scores of the skills it weighed (`data.scores`).

A fault of the assistant itself (its catalog cannot be loaded or planned: "the catalog has 1
problem") is the team's to fix, not the user's: the user is told the assistant cannot answer
now, and the log keeps the issues with the assistant and session they belong to.
"""

from __future__ import annotations

from typing import Any

# Keys of a reply's `data` that only the studio sees: the planner's reason, and S3's scores of the
# skills it weighed (how the assistant ranks its own tools is no one else's business).
STUDIO_ONLY = frozenset({"reason", "scores"})
NOT_ANSWERING = "Sorry, this assistant cannot answer right now. Please try again later."


def reply_for_end_user(reply: dict[str, Any]) -> dict[str, Any]:
    """`reply` without the studio's reasons (the stored copy keeps them)."""
    data = reply.get("data")
    if not isinstance(data, dict) or not STUDIO_ONLY & data.keys():
        return reply
    kept = {key: value for key, value in data.items() if key not in STUDIO_ONLY}
    public = {key: value for key, value in reply.items() if key != "data"}
    if kept:
        public["data"] = kept
    return public


def replies_for_end_user(replies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [reply_for_end_user(reply) for reply in replies]
