"""The paper's experiments: each returns tidy DataFrames; plotting is separate.

Research code, apart from the product: it needs the ``experiments`` extra
(matplotlib), and nothing outside this package imports it except the
``svmcompare reproduce`` and ``demo`` commands.  Names load on first use.
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "Figure3Result": ".figure3",
    "run_figure3": ".figure3",
    "FigureResult": ".figure4",
    "run_figure4": ".figure4",
    "run_figure5": ".figure5",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, globals(), _EXPORTS)
