"""The one-line notice while numba compiles the solvers for the first time (issue 17)."""

import time
from types import SimpleNamespace

from svmcompare.solvers import _compile, linear, smo_loop


def _fake(index_path, signatures=()):
    cache_file = SimpleNamespace(_index_path=str(index_path))
    return SimpleNamespace(signatures=list(signatures),
                           _cache=SimpleNamespace(_cache_file=cache_file))


def test_numba_cache_layout_is_readable_for_the_real_solvers():
    # If numba moves its cache index, the notice falls back to a timer; this
    # says so in CI for every numba version pyproject allows.
    for dispatcher in (smo_loop.smo_steps, linear._loss_sum):
        assert _compile._cached(dispatcher) in (True, False)


def test_notice_once_when_the_cache_is_missing(tmp_path, capsys):
    fake = _fake(tmp_path / "missing.nbi")
    with _compile.compile_notice(fake):
        pass
    assert "compiling its numerical solvers" in capsys.readouterr().err
    with _compile.compile_notice(fake):  # once per process
        pass
    assert capsys.readouterr().err == ""


def test_no_notice_when_cached_or_already_compiled(tmp_path, capsys):
    (tmp_path / "present.nbi").write_text("")
    for fake in (_fake(tmp_path / "present.nbi"), _fake(tmp_path / "x.nbi", ["sig"])):
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
