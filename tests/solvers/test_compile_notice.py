"""The one-line notice while numba compiles the solvers for the first time (issue 17)."""

import os
import sys
import time
from types import SimpleNamespace

from svmcompare.solvers import _compile, all_pairs


def _solver():
    return None


def _fake(folder, cached=False, signatures=()):
    """A dispatcher-like object of ``_solver`` whose numba cache lives in
    ``folder``, with its index file there when ``cached``."""
    code = _solver.__code__
    if cached:
        name = (f"test_compile_notice._solver-{code.co_firstlineno}"
                f".py{sys.version_info[0]}{sys.version_info[1]}{sys.abiflags}.nbi")
        (folder / name).write_text("")
    return SimpleNamespace(signatures=list(signatures), py_func=_solver,
                           stats=SimpleNamespace(cache_path=str(folder)))


def test_numba_cache_layout_is_readable_for_the_real_solvers():
    # If numba moves its cache index, the notice falls back to a timer; this
    # says so in CI for every numba version pyproject allows: the index we
    # look for is the one numba itself reads.
    for dispatcher in (all_pairs._pass, all_pairs._sort_all):
        assert _compile._cached(dispatcher) in (True, False)
        assert _compile._cached(dispatcher) == os.path.exists(
            dispatcher._cache._cache_file._index_path)


def test_notice_once_when_the_cache_is_missing(tmp_path, capsys):
    fake = _fake(tmp_path)
    with _compile.compile_notice(fake):
        pass
    assert "compiling its numerical solvers" in capsys.readouterr().err
    with _compile.compile_notice(fake):  # once per process
        pass
    assert capsys.readouterr().err == ""


def test_no_notice_when_cached_or_already_compiled(tmp_path, capsys):
    for fake in (_fake(tmp_path, cached=True), _fake(tmp_path / "none", signatures=["sig"])):
        with _compile.compile_notice(fake):
            pass
    assert capsys.readouterr().err == ""


def test_timer_stands_in_when_the_layout_is_unknown(capsys, monkeypatch):
    monkeypatch.setattr(_compile, "NOTICE_AFTER", 0.05)
    quick, slow = SimpleNamespace(signatures=[]), SimpleNamespace(signatures=[])
    with _compile.compile_notice(quick):
        pass
    assert capsys.readouterr().err == ""
    with _compile.compile_notice(slow):
        time.sleep(0.3)
    assert "compiling its numerical solvers" in capsys.readouterr().err


def test_a_kernel_fit_compiles_nothing_at_run_time():
    # Issue 33: the SMO core and the linear solvers' loops are C extensions
    # built by the install, so a fit in a fresh process calls no numba
    # function (each compiled one has signatures once called); the graded
    # items' solver still does (numba), which shows that the check sees them.
    import subprocess

    code = """
import sys
from numba.core.registry import CPUDispatcher
from svmcompare import SVMCompare
from svmcompare.datasets import make_norm_pairs
X, y = make_norm_pairs(300, "l1", random_state=0)
if sys.argv[1] == "graded":
    import numpy as np
    from svmcompare import GroupRankSVM
    rng = np.random.default_rng(0)
    GroupRankSVM(pairs="all").fit(rng.normal(size=(60, 3)), rng.integers(0, 3, 60),
                                  np.repeat([0, 1], 30))
else:
    SVMCompare(kernel=sys.argv[1]).fit(X, y)
print(sorted(f"{name}.{attr}" for name, module in list(sys.modules.items())
             if name.startswith("svmcompare") for attr, value in vars(module).items()
             if isinstance(value, CPUDispatcher) and value.signatures))
"""
    compiled = {kernel: subprocess.run([sys.executable, "-c", code, kernel], check=True,
                                       capture_output=True, text=True).stdout.strip()
                for kernel in ("rbf", "linear", "graded")}
    assert compiled["rbf"] == "[]"
    assert compiled["linear"] == "[]"
    assert "svmcompare.solvers.all_pairs._pass" in compiled["graded"]


def test_only_the_graded_items_solver_imports_numba():
    # Importing numba costs a process 0.25-0.3 s, and every worker of a
    # search paid it; only the graded items' all-pairs solver needs it.
    import subprocess

    code = """
import sys, warnings
from svmcompare import SVMCompare, SVMCompareCV
from svmcompare.datasets import make_norm_pairs
X, y = make_norm_pairs(200, "l1", random_state=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    if sys.argv[1] == "graded":
        import numpy as np
        from svmcompare import GroupRankSVM
        rng = np.random.default_rng(0)
        GroupRankSVM(pairs="all").fit(rng.normal(size=(60, 3)), rng.integers(0, 3, 60),
                                      np.repeat([0, 1], 30))
    else:
        SVMCompare(kernel="linear").fit(X, y)
        SVMCompare().fit(X, y)
        SVMCompareCV(probability=True, cv=3, param_grid={"kernel": ["linear", "rbf"],
                                                         "C": [0.1, 1.0]}).fit(X, y)
print("numba" in sys.modules)
"""
    imported = {kind: subprocess.run([sys.executable, "-c", code, kind], check=True,
                                     capture_output=True, text=True).stdout.strip()
                for kind in ("fits", "graded")}
    assert imported == {"fits": "False", "graded": "True"}
