"""Every estimator's documented defaults (numpydoc ``default=...``) are its
``get_params()``, and every parameter is documented."""

import ast
import re

import numpy as np
import pytest

ESTIMATORS = ["SVMCompare", "SVMCompareCV", "SVMCompareLP", "SVMRank", "SVMRank2",
              "GroupRankSVM", "OrdinalSVM", "HardMarginLP", "HardMarginQP", "OrderedLogit"]


def _documented(doc):
    """{name: default text} of the Parameters section (names joined by commas share one line)."""
    shared = re.search(r"Parameters and attributes are those of :class:`(\w+)`", doc)
    if shared:
        doc = _estimator(shared.group(1)).__doc__
    section = doc.split("Parameters\n", 1)[1]
    section = re.split(r"\n\s*(Attributes|Returns|Notes|Examples|See Also)\n\s*-+\n", section)[0]
    out = {}
    for line in section.splitlines():
        match = re.match(r"^    (\*{0,2}[A-Za-z_][\w, ]*?) :(.*)$", line)
        if not match:
            continue
        names = [n.strip() for n in match.group(1).split(",")]
        default = re.search(r"default[= ]\s*(.+)$", match.group(2))
        for name in names:
            out[name] = None if default is None else default.group(1).strip()
    return out


def _value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _estimator(name):
    for module in ("svmcompare", "svmcompare.ordered_logit"):
        cls = getattr(__import__(module, fromlist=[name]), name, None)
        if cls is not None:
            return cls
    raise AttributeError(name)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_documented_defaults_are_the_defaults(name):
    cls = _estimator(name)
    params = cls().get_params(deep=False)
    documented = _documented(cls.__doc__)
    missing = sorted(set(params) - set(documented))
    assert not missing, f"{name}: parameters without documentation: {missing}"
    wrong = {}
    for key, text in documented.items():
        if key not in params or text is None:
            continue
        expected, actual = _value(text), params[key]
        same = (expected == actual if not isinstance(actual, float)
                else isinstance(expected, (int, float)) and np.isclose(expected, actual))
        if not same:
            wrong[key] = (text, actual)
    assert not wrong, f"{name}: documented default vs get_params(): {wrong}"


def test_the_parser_reads_a_numpydoc_section():
    doc = """x.

    Parameters
    ----------
    C : float, default=1.0
        Text.
    gamma, degree : kernel parameters, as :class:`X`.
    tol, solver :
        As :class:`X`.
    class_weight : None or "auto", default="auto"

    Attributes
    ----------
    coef_ : ndarray, default=3
    """
    assert _documented(doc) == {"C": "1.0", "gamma": None, "degree": None, "tol": None,
                                "solver": None, "class_weight": '"auto"'}
