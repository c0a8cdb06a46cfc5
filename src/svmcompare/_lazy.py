"""Names of a package loaded on first use (PEP 562): importing the package
stays cheap until a name that needs scikit-learn, numba or matplotlib is used."""

from importlib import import_module


def lazy_exports(package, namespace, exports):
    """A module ``__getattr__`` that imports ``exports[name]`` (a relative module
    name) on first access of ``name`` and keeps the value in ``namespace``."""

    def __getattr__(name):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        namespace[name] = value  # later lookups skip this function
        return value

    return __getattr__
