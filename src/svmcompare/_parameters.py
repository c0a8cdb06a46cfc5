"""The kernel comparison estimators' hyper-parameters, each declared once.

:data:`CHECKS` holds what a value must be, for every parameter of
:class:`~svmcompare.SVMCompare`, :class:`~svmcompare.SVMRank`,
:class:`~svmcompare.SVMRank2` and :class:`~svmcompare.SVMCompareLP` (the
defaults are in their ``__init__``, scikit-learn's convention, and a test
holds their docstrings to them).  :func:`check_parameters` runs the checks of
an estimator's own parameters at the start of ``fit``, then the checks that
tie two of them together.  :data:`ABSENT` says what an estimator without a
parameter behaves as (SVMCompareLP has no probabilities, the RankSVMs no
class weights), and :func:`setting` reads a parameter with it: one place for
each such fallback.
"""

from __future__ import annotations

from ._problem import label_weights
from ._validation import LINKS, TIE_BANDS, check_bool, check_C, check_positive
from .kernels import LINEAR, resolve_kernel
from .ranking_function import check_cost
from .solvers.linear import check_loss
from .solvers.threads import thread_count

SOLVERS = ("auto", "exact", "linear", "nystroem")
CALIBRATIONS = ("auto", "cv", "loo")  # where probability=True's held-out rank gaps come from
ON_DEGENERATE = ("fallback", "raise")


def one_of(name, options):
    """A check that the value of parameter ``name`` is one of ``options`` (text)."""
    def check(value):
        if not isinstance(value, str) or value not in options:
            raise ValueError(f"{name} must be one of {options}; got {value!r}.")
    return check


def _anything(value):
    """Parameters whose every value has a meaning (``verbose``: any truth
    value; ``random_state``: what scikit-learn's check_random_state takes;
    ``kernel``, ``gamma``, ``degree`` and ``coef0``: checked together by
    :func:`svmcompare.kernels.resolve_kernel`)."""


CHECKS = {
    "C": check_C,
    "kernel": _anything,
    "gamma": _anything,
    "degree": _anything,
    "coef0": _anything,
    "class_weight": lambda value: label_weights(value, 1.0, 1.0),
    "scale_indicators": lambda value: check_bool(value, "scale_indicators"),
    "on_degenerate": one_of("on_degenerate", ON_DEGENERATE),
    "loss": check_loss,
    "tol": lambda value: check_positive(value, "tol"),
    "max_iter": lambda value: check_positive(value, "max_iter", integer=True,
                                             allow_none=True),
    "cache_size": lambda value: check_positive(value, "cache_size"),
    "shrinking": lambda value: check_bool(value, "shrinking"),
    "solver": one_of("solver", SOLVERS),
    "n_components": lambda value: check_positive(value, "n_components", integer=True),
    "probability": lambda value: check_bool(value, "probability"),
    "calibration": one_of("calibration", CALIBRATIONS),
    "tie_band": one_of("tie_band", TIE_BANDS),
    "link": one_of("link", LINKS),
    "cost": check_cost,
    "n_jobs": thread_count,  # a bad value fails before any work
    "random_state": _anything,
    "verbose": _anything,
}

ABSENT = {
    "probability": False,
    "calibration": "cv",
    "tie_band": "constant",
    "link": "ordered",
    "class_weight": None,
    "scale_indicators": True,
    "cost": None,
    "n_jobs": None,
    "verbose": False,
    "loss": "hinge",
    "solver": "auto",
}


def setting(model, name):
    """``model``'s value of parameter ``name``, or what a model without it
    behaves as (:data:`ABSENT`)."""
    params = model.get_params(deep=False)
    return params[name] if name in params else ABSENT[name]


def check_parameters(model):
    """Check every parameter of a kernel comparison estimator before any work;
    returns its kernel."""
    for name, value in model.get_params(deep=False).items():
        CHECKS.get(name, _anything)(value)  # a subclass's own parameters are its own
    kernel = resolve_kernel(model.kernel, model.gamma, model.degree, model.coef0)
    solver, loss = setting(model, "solver"), setting(model, "loss")
    if solver == "linear" and kernel.code != LINEAR:
        raise ValueError(
            "solver='linear' needs kernel='linear'; use solver='nystroem' to approximate "
            f"the {kernel.name} kernel with explicit features, or solver='exact'."
        )
    if loss == "squared_hinge" and (
            solver == "exact" or (kernel.code != LINEAR and solver != "nystroem")):
        raise ValueError(
            "loss='squared_hinge' is solved in the primal: it needs kernel='linear' "
            f"(solver 'auto' or 'linear') or solver='nystroem'; got kernel={kernel.name!r}, "
            f"solver={solver!r}.")
    return kernel
