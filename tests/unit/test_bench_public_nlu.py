"""The public NLU benchmarks read their files from $CONCERTO_BENCH_DATA and skip cleanly without them."""

from __future__ import annotations

import json

from bench import nlu_public


def test_each_missing_benchmark_is_skipped_with_a_line_saying_so(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv(nlu_public.ENV, raising=False)
    nlu_public.run(shots=(5,))
    out = capsys.readouterr().out
    for name in ("banking77", "clinc150", "hwu64"):
        assert f"{name}: skipped, CONCERTO_BENCH_DATA is not set" in out

    monkeypatch.setenv(nlu_public.ENV, str(tmp_path))
    nlu_public.run(["clinc150"], shots=(5,))
    assert "clinc150: skipped, CONCERTO_BENCH_DATA has no clinc150/data_full.json" in capsys.readouterr().out


def _write_files(root):
    (root / "banking77").mkdir()
    rows = "text,category\n" + "".join(f"where is card {n},card_arrival\nmy card is broken {n},card_not_working\n"
                                       for n in range(12))
    (root / "banking77" / "train.csv").write_text(rows)
    (root / "banking77" / "test.csv").write_text("text,category\nhas my card been sent,card_arrival\n")
    (root / "clinc150").mkdir()
    data = {"train": [["what's the time", "time"], ["set an alarm", "alarm"]] * 6,
            "val": [["time please", "time"]], "oos_val": [["tell me a joke", "oos"]],
            "test": [["what time is it", "time"]], "oos_test": [["who won the cup", "oos"]]}
    (root / "clinc150" / "data_full.json").write_text(json.dumps(data))
    for split in ("train", "test"):
        (root / "hwu64" / split).mkdir(parents=True)
        (root / "hwu64" / split / "alarm_set.csv").write_text(
            'answerid;scenario;intent;answer_annotation;answer_from_anno;answer_from_user\n'
            '1;alarm;set;"wake me at [time : six]";"wake me at six";"Wake me at six"\n')


def test_the_files_are_read_as_their_repositories_lay_them_out(tmp_path):
    _write_files(tmp_path)
    banking = nlu_public.load_banking77(tmp_path)
    assert sorted(banking.train) == ["card_arrival", "card_not_working"] and len(banking.train["card_arrival"]) == 12
    assert banking.test == [("has my card been sent", "card_arrival")]
    clinc = nlu_public.load_clinc150(tmp_path)
    assert clinc.test == [("what time is it", "time"), ("who won the cup", None)]  # out of scope: no intent
    assert clinc.validation[-1] == ("tell me a joke", None)
    hwu = nlu_public.load_hwu64(tmp_path)
    assert hwu.train == {"alarm_set": ["wake me at six"]}


def test_k_examples_per_intent_come_from_the_train_split_only(tmp_path):
    _write_files(tmp_path)
    banking = nlu_public.load_banking77(tmp_path)
    chosen, rest = nlu_public.sample(banking, 5)
    assert {k: len(v) for k, v in chosen.items()} == {"card_arrival": 5, "card_not_working": 5}
    assert len(rest) == 14 and not set(chosen["card_arrival"]) & {t for t, _ in rest}
    assert nlu_public.sample(banking, 5) == (chosen, rest)  # the same draw every run


class _NoTestSplit(list):
    """A test split that fails the run if anything reads it."""

    def __iter__(self):
        raise AssertionError("the readout sweep read the test split")

    def __len__(self):
        raise AssertionError("the readout sweep read the test split")


def _hash_embedder(texts: list[str]):
    import numpy as np

    rows = []
    for text in texts:
        vector = np.zeros(16, np.float32)
        for word in text.split():
            vector[hash(word) % 16] += 1.0
        vector[15] += 0.1
        rows.append(vector / np.linalg.norm(vector))
    return np.array(rows, np.float32)


def test_the_readout_sweep_compares_on_validation_messages_never_on_test(monkeypatch, tmp_path, capsys):
    from bench import nlu_readout

    _write_files(tmp_path)
    monkeypatch.setenv(nlu_public.ENV, str(tmp_path))
    real = nlu_public.load_banking77

    def guarded(root):
        benchmark = real(root)
        benchmark.test = _NoTestSplit(benchmark.test)
        return benchmark

    monkeypatch.setitem(nlu_public.LOADERS, "banking77", (guarded, nlu_public.LOADERS["banking77"][1]))
    nlu_readout.sweep("banking77", 5, 100, embedder=_hash_embedder)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| banking77 |")]
    assert len(rows) == len(nlu_readout.CANDIDATES)
    assert all("| 14 |" in row for row in rows)  # the 14 train messages outside the 5 per intent
