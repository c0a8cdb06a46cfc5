"""A small run of the input fuzzer (benchmarks/fuzz_inputs.py; the full run is
10,000 cases): mutated model files and CSVs end in a result or a clear refusal,
never a traceback, a hang, a memory blow-up or code execution."""

import importlib.util
from pathlib import Path


def test_a_few_hundred_mutated_inputs_are_handled(capsys):
    path = Path(__file__).parents[1] / "benchmarks" / "fuzz_inputs.py"
    spec = importlib.util.spec_from_file_location("fuzz_inputs", path)
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    # A generous time limit: CI machines are slower and run other tests meanwhile.
    code = fuzz.main(["--cases", "300", "--first-seed", "20000", "--timeout", "20"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "0 failures" in out
