"""What matching costs: one BLAS thread for the matcher's products, and no phrase embedded twice."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from orchestrator.engine.runtime.calibration import other_service_requests, out_of_scope_phrases
from orchestrator.engine.runtime.semantic import SemanticClassifier
from orchestrator.engine.runtime.vector_cache import VectorCache


class CountingEmbedder:
    """Pseudo-random unit vectors per text, through the models' cache, counting what it really encodes."""

    def __init__(self, capacity: int = 4096):
        self.cache = VectorCache(capacity)
        self.encoded = 0

    def _one(self, text: str) -> np.ndarray:
        self.encoded += 1
        vector = np.random.default_rng(abs(hash(text)) % 2**32).normal(size=16).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def __call__(self, texts: list[str]) -> np.ndarray:
        return np.stack(self.cache.vectors(texts, self._one))


class LayeredCountingEmbedder(CountingEmbedder):
    """The same, also giving two inner means (as the int8 MiniLM does): all kept in one entry."""

    def _one(self, text: str) -> np.ndarray:
        vector = super()._one(text)
        return np.stack([vector, vector[::-1], -vector])

    def __call__(self, texts: list[str]) -> np.ndarray:
        return self.with_layer(texts)[0]

    def with_layer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        found = np.stack(self.cache.vectors(texts, self._one))
        return found[:, 0], found[:, 1:]


def _catalog(size: int) -> dict[str, list[str]]:
    return {f"intent_{i}": [f"phrase {i} {j}" for j in range(50)] for i in range(size // 50)}


@pytest.mark.parametrize("embedder_class", [CountingEmbedder, LayeredCountingEmbedder])
def test_an_edit_of_a_large_catalog_embeds_only_the_changed_phrase(embedder_class):
    """7,650 phrases: the old 4,096-phrase cache, oldest out first, re-embedded all of them at every edit."""
    embedder = embedder_class(capacity=4096)
    classifier = SemanticClassifier(embedder)
    examples = _catalog(7650)
    classifier.fit(examples)
    # with layers, the everyday requests whose mean layer-3 vector is taken off, once per embedder; and,
    # once per embedder too, the requests for other services (`SemanticClassifier.other_service`)
    centre = len(out_of_scope_phrases()) if embedder_class is LayeredCountingEmbedder else 0
    centre += len(other_service_requests())
    assert embedder.encoded == 7650 + centre
    examples["intent_0"] = [*examples["intent_0"][1:], "a new way to say it"]
    classifier.fit(examples)
    assert embedder.encoded == 7651 + centre
    classifier.rank("a message new to it")  # its sentence vector and layer from one encoding, then kept
    classifier.rank("a message new to it")
    assert embedder.encoded == 7652 + centre


def test_messages_make_room_for_each_other_but_not_for_the_catalog_being_fitted():
    cache = VectorCache(capacity=3)
    encode = lambda text: np.array([float(len(text))])  # noqa: E731
    cache.vectors(["a", "bb", "ccc", "dddd", "eeeee"], encode)  # a batch larger than the capacity stays whole
    assert len(cache) == 5
    cache.vectors(["x"], encode)  # then back to the capacity, least recently used out first
    assert set(cache._vectors) == {"dddd", "eeeee", "x"}
    cache.vectors(["dddd"], encode)
    cache.vectors(["y"], encode)
    assert set(cache._vectors) == {"x", "dddd", "y"}


def test_the_matchers_products_run_on_one_blas_thread():
    threads: list[int] = []

    class Recording(np.ndarray):
        def __matmul__(self, other):
            # numpy's own BLAS (scipy, once imported, brings another that numpy's products never use)
            threads.extend(lib["num_threads"] for lib in threadpool_info()
                           if lib["user_api"] == "blas" and "numpy" in lib["filepath"])
            return np.asarray(self) @ other

    classifier = SemanticClassifier(CountingEmbedder())
    classifier.fit(_catalog(500))
    classifier.matrix = classifier.matrix.view(Recording)
    classifier.rank("phrase 3 4")
    assert threads and set(threads) == {1}
