"""A classifier whose ranking is given, for tests of what the matcher decides on top of a ranking."""

from __future__ import annotations

from orchestrator.engine.runtime.calibration import Calibration
from orchestrator.engine.runtime.nlu import IntentGuess


class GivenRanking:
    """The ranking given per message (the best first), else `otherwise`; the thresholds given too."""

    def __init__(self, rankings: dict[str, list[IntentGuess]], otherwise: list[IntentGuess],
                 calibration: Calibration):
        self.rankings = rankings
        self.otherwise = otherwise
        self.calibration = calibration

    def fit(self, examples, context=None) -> None:
        pass

    def rank(self, text: str) -> list[IntentGuess]:
        return self.rankings.get(text, self.otherwise)

    def calibrate(self) -> Calibration:
        return self.calibration
