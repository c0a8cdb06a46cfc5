"""A small run of the input fuzzer (benchmarks/fuzz_inputs.py; the full run is
10,000 cases): mutated model files and CSVs end in a result or a clear refusal,
never a traceback, a hang, a memory blow-up or code execution."""

import importlib
from pathlib import Path


def test_a_few_hundred_mutated_inputs_are_handled(capsys, monkeypatch):
    # Importable by name: the fuzzer's worker process imports it again.
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "benchmarks"))
    fuzz = importlib.import_module("fuzz_inputs")
    # A generous time limit: CI machines are slower and run other tests meanwhile.
    code = fuzz.main(["--cases", "200", "--first-seed", "20000", "--timeout", "20"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "0 failures" in out
