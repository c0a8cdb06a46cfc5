"""What a model file may hold: an explicit allow-list, checked node by node.

skops describes the saved object as a tree of nodes in ``schema.json``; on
load it imports and calls whatever type, function or method a node names if
that name is trusted.  Trusting names by prefix (``svmcompare.``) trusted
every attribute of every module of the package (``svmcompare.cli.main``,
``importlib.import_module`` re-exported by a module, ...), and a node can
call a "type" in several places (a dict's key types, a dict's own class, an
array's scalar class).  So before skops builds anything, the schema is walked
here with a strict grammar:

- only the node kinds plain data needs (dicts with string or integer keys,
  lists, tuples, JSON scalars, NumPy arrays, objects); no functions,
  methods, partials, operators, reduce calls, types as values, bytes or sets;
- every object is of a class named in :data:`OBJECT_TYPES` (exact module and
  class name), every array of a NumPy type named in :data:`ARRAY_TYPES`,
  every dict a ``builtins.dict`` whose key types are ``str`` or ``int``;
- the root is ``{"format", "version", "model"}`` with the model one of
  :data:`ESTIMATOR_TYPES`, and the version is checked here, before any
  object exists;
- a node that repeats an earlier node's id (skops then reuses the earlier
  node) must repeat it exactly, so no node can stand in for another and the
  built tree is no larger than the file's text;
- attribute names are plain identifiers, never dunder protocol names
  (NumPy reads ``__array_interface__`` off an instance), and each array
  member is read by one node (a NumPy scalar node by a 0-d array of its type).

Anything else is refused with one line naming the node's path in the file.
"""

from __future__ import annotations

import json

FORMAT = "svmcompare-model"  # the content tag of a model file

# Estimators a model file may hold at its root.
ESTIMATOR_TYPES = frozenset({
    "svmcompare.compare.SVMCompare",
    "svmcompare.compare_lp.SVMCompareLP",
    "svmcompare.baselines.SVMRank",
    "svmcompare.baselines.SVMRank2",
    "svmcompare.graded.GroupRankSVM",
    "svmcompare.graded.OrdinalSVM",
    "svmcompare.hard_margin.HardMarginLP",
    "svmcompare.hard_margin.HardMarginQP",
    "svmcompare.model_selection.SVMCompareCV",
    "svmcompare.bootstrap.BootstrapCompare",
})

# Classes whose instances may appear anywhere in a model: the estimators, their
# fitted parts, and scikit-learn's cross-validation splitters (SVMCompareCV's cv).
OBJECT_TYPES = ESTIMATOR_TYPES | frozenset({
    "svmcompare._problem.Standardizer",
    "svmcompare.kernels.KernelSpec",
    "svmcompare.kernels.NystroemMap",
    "svmcompare.ranking_function.RankingFunction",
    "svmcompare.calibration.links.PairTieCalibrator",
    "svmcompare.calibration.links.ScoreCalibrator",
    "svmcompare.ordered_logit.OrderedLogit",
    *(f"sklearn.model_selection._split.{name}" for name in (
        "KFold", "StratifiedKFold", "GroupKFold", "StratifiedGroupKFold", "RepeatedKFold",
        "RepeatedStratifiedKFold", "ShuffleSplit", "StratifiedShuffleSplit",
        "GroupShuffleSplit", "TimeSeriesSplit", "LeaveOneGroupOut", "LeavePGroupsOut",
        "PredefinedSplit")),
})

# NumPy arrays and scalars (skops stores a scalar as an array and converts it
# by calling its type on it).
ARRAY_TYPES = frozenset({"numpy.ndarray"} | {
    f"numpy.{name}" for name in ("float64", "float32", "int64", "int32", "int16", "int8",
                                 "uint64", "uint32", "uint16", "uint8", "bool_", "bool")})

_KEY_TYPES = frozenset({"builtins.str", "builtins.int"})
_JSON_CLASSES = frozenset({"builtins." + name for name in
                           ("str", "int", "float", "bool", "NoneType")})
_MAX_DEPTH = 64
_NODE_FIELDS = {"__class__", "__module__", "__loader__", "__id__"}
_FIELDS = {
    "JsonNode": {"content", "is_json"},
    "DictNode": {"content", "key_types"},
    "ListNode": {"content"},
    "TupleNode": {"content"},
    "ObjectNode": {"content"},
    "NdArrayNode": {"content", "type", "file", "shape"},
    "TypeNode": set(),
}
_CONTAINER_CLASS = {"DictNode": "builtins.dict", "ListNode": "builtins.list",
                    "TupleNode": "builtins.tuple"}


class UntrustedFileError(ValueError):
    """A model file holding something svmcompare does not load."""


def check_schema(schema, arrays, source, expected_version):
    """Check a parsed ``schema.json`` against the allow-list; return the class
    names it uses (to pass to skops as the trusted types).

    Parameters
    ----------
    schema : object
        The parsed JSON.
    arrays : dict
        The archive's ``.npy`` members (checked already) to their (shape,
        dtype); array nodes must name one, each its own.
    source : str or Path
        For messages.
    expected_version : callable
        Called with the file's svmcompare version string before any object is
        built; raises when the file cannot be used with this version.
    """
    walker = _Walker(arrays, source)
    if not isinstance(schema, dict):
        walker.refuse("schema", "the schema is not a JSON object")
    from skops.io._protocol import PROTOCOL

    protocol = schema.get("protocol")
    if protocol != PROTOCOL:
        walker.refuse("schema", f"skops protocol {protocol!r} is not this installation's "
                                f"({PROTOCOL}); refit the model here")
    root = {k: v for k, v in schema.items() if k not in ("protocol", "_skops_version")}
    content = root.get("content")
    if not isinstance(content, dict) or set(content) != {"format", "version", "model"}:
        raise UntrustedFileError(f"{source} is a skops file but not an svmcompare model file.")
    if _json_value(content["format"]) != FORMAT:
        raise UntrustedFileError(f"{source} is a skops file but not an svmcompare model file.")
    version = _json_value(content["version"])
    if not isinstance(version, str):
        walker.refuse("root.version", "the version is not a string")
    # A stale file is the common case: say so before judging its contents.
    expected_version(version)
    walker.node(root, "root", 0, kind="DictNode")
    model = content["model"]
    if model.get("__loader__") != "ObjectNode" or _name(model) not in ESTIMATOR_TYPES:
        raise UntrustedFileError(
            f"{source} holds a {str(model.get('__class__'))[:100]}, not a fitted svmcompare "
            "estimator; write "
            "model files with 'svmcompare fit' or save_model.")
    return sorted(walker.used)


def _name(node):
    return f"{node.get('__module__')}.{node.get('__class__')}"


def _same_without_ids(first, second, equal):
    """Whether two parsed JSON trees are equal up to their ``__id__`` keys:
    without recursion (a file's nesting is not checked yet where this runs)
    and stopping at the first difference.  ``equal`` (a set of pairs of
    object ids) holds the pairs of nodes known equal; the pairs met on the
    way are added, so that a recurrence inside a recurrence is not compared
    again (a tree whose every level recurs would otherwise cost its depth
    times its size)."""
    stack = [(first, second)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, dict):
            if (id(a), id(b)) in equal:
                continue
            if not isinstance(b, dict) or a.keys() - {"__id__"} != b.keys() - {"__id__"}:
                return False
            equal.add((id(a), id(b)))
            stack.extend((a[k], b[k]) for k in a if k != "__id__")
        elif isinstance(a, list):
            if not isinstance(b, list) or len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif type(a) is not type(b) or a != b:
            return False
    return True


def _scalar_dtype(name):
    import numpy as np

    return np.dtype(getattr(np, name.split(".", 1)[1]))


def _json_value(node):
    try:
        return json.loads(node["content"])
    except (TypeError, ValueError, KeyError, RecursionError):
        return None


class _Walker:
    def __init__(self, arrays, source):
        self.arrays = arrays
        self.source = source
        self.used = set()
        self.seen = {}  # __id__ -> the first node of that id
        self.equal = set()  # (id(first), id(later)) of nodes compared equal
        self.files = {}  # array member -> the id of the node that reads it

    def refuse(self, path, why):
        raise UntrustedFileError(f"{self.source}: refusing to load it: at {path}: {why}.")

    def node(self, node, path, depth, kind=None):
        if depth > _MAX_DEPTH:
            self.refuse(path, f"objects nested deeper than {_MAX_DEPTH} levels")
        if not isinstance(node, dict):
            self.refuse(path, f"expected a node, found a JSON {type(node).__name__}")
        loader = node.get("__loader__")
        if loader not in _FIELDS or loader == "TypeNode" or (kind and loader != kind):
            self.refuse(path, f"node kind {str(loader)[:60]!r} ({_name(node)[:100]}) is not "
                              "allowed in model files")
        extra = set(node) - _NODE_FIELDS - _FIELDS[loader]
        if extra or not {"__class__", "__module__"} <= set(node):
            self.refuse(path, f"unexpected fields {sorted(extra)[:5]} in a {loader}")
        if not all(isinstance(node[k], str) for k in ("__class__", "__module__")):
            self.refuse(path, "a type name is not a string")
        self._register(node, path)
        getattr(self, "_" + loader)(node, path, depth)

    def _register(self, node, path):
        """Remember the node under its id.  skops
        builds the first node with an id and reuses it wherever the id recurs,
        ignoring what the later node says; so a recurring id must repeat its
        node exactly (up to the ids inside, which a save draws afresh for
        temporary objects): then what was checked here is what is built here,
        and a file cannot make the built tree larger than its text.  The
        first node is kept as parsed and compared only where its id recurs
        (serializing every node's subtree cost time and memory of its depth
        times its size: a 30 MB file of nested lists took 27 s and 2.1 GB,
        and a deep one exhausted the recursion)."""
        key = node.get("__id__")
        if key is None:
            return
        if not isinstance(key, int) or isinstance(key, bool):
            self.refuse(path, "a node id is not an integer")
        first = self.seen.setdefault(key, node)
        if first is not node and not _same_without_ids(first, node, self.equal):
            self.refuse(path, f"node id {key} names two different nodes (a {node['__loader__']}"
                              f" of {_name(node)[:80]} here)")

    def _class(self, node, path, allowed):
        name = _name(node)
        if name not in allowed:
            self.refuse(path, f"type {name[:120]!r} is not one svmcompare loads")
        return name

    def _JsonNode(self, node, path, depth):
        self._class(node, path, _JSON_CLASSES)
        value = _json_value(node)
        if not isinstance(node.get("content"), str) or not (
                value is None and node["content"].strip() == "null"
                or isinstance(value, str | int | float | bool)):
            self.refuse(path, "a value is not a JSON number, string, boolean or null")

    def _DictNode(self, node, path, depth):
        self._class(node, path, {"builtins.dict"})
        content, key_types = node.get("content"), node.get("key_types")
        if not isinstance(content, dict):
            self.refuse(path, "a dict without content")
        if not (isinstance(key_types, dict) and key_types.get("__loader__") == "ListNode"
                and _name(key_types) == "builtins.list"
                and isinstance(key_types.get("content"), list)
                and len(key_types["content"]) == len(content)
                and set(key_types) <= _NODE_FIELDS | {"content"}):
            self.refuse(path, "a dict's key types are not a list of one type per key")
        self._register(key_types, f"{path}[key types]")
        for k, key_type in enumerate(key_types["content"]):
            if not (isinstance(key_type, dict) and key_type.get("__loader__") == "TypeNode"
                    and set(key_type) <= _NODE_FIELDS and _name(key_type) in _KEY_TYPES):
                self.refuse(f"{path}[key {k}]", "a dict key type other than str or int")
            self._register(key_type, f"{path}[key {k}]")
        for key, value in content.items():
            self.node(value, f"{path}.{key[:60]}", depth + 1)

    def _sequence(self, node, path, depth):
        self._class(node, path, {_CONTAINER_CLASS[node["__loader__"]]})
        if not isinstance(node.get("content"), list):
            self.refuse(path, "a list without content")
        for k, value in enumerate(node["content"]):
            self.node(value, f"{path}[{k}]", depth + 1)

    _ListNode = _TupleNode = _sequence

    def _ObjectNode(self, node, path, depth):
        self.used.add(self._class(node, path, OBJECT_TYPES))
        if "content" in node:
            self.node(node["content"], path, depth + 1, kind="DictNode")
            if any(_name(t) != "builtins.str" for t in node["content"]["key_types"]["content"]):
                self.refuse(path, "an object's attribute names are not strings")
            for name in node["content"]["content"]:
                # Dunder names are protocols (NumPy reads __array_interface__
                # off an instance: raw memory at an address a file would pick).
                if not name.isidentifier() or name.startswith("__"):
                    self.refuse(path, f"attribute name {name[:60]!r} is not one an object "
                                      "of a model file has")

    def _NdArrayNode(self, node, path, depth):
        kind = node.get("type")
        if kind == "numpy":
            name = self._class(node, path, ARRAY_TYPES)
            self.used.add(name)
            member = node.get("file")
            if member not in self.arrays or set(node) & {"content", "shape"}:
                self.refuse(path, "an array whose data is not one of the file's arrays")
            # One node reads each array member (skops loads a member once per
            # node: shared members would multiply the memory a file costs).
            reader = node.get("__id__", path)
            if self.files.setdefault(member, reader) != reader:
                self.refuse(path, f"array member {member!r} is read by two nodes")
            shape, dtype = self.arrays[member]
            if name != "numpy.ndarray" and (shape != () or dtype != _scalar_dtype(name)):
                self.refuse(path, f"a {name} scalar whose data is an array of shape {shape} "
                                  f"and dtype {dtype}")
        elif kind == "json":  # object arrays: feature names
            self._class(node, path, {"numpy.ndarray"})
            items, shape = node.get("content"), node.get("shape")
            if not isinstance(items, list) or "file" in node:
                self.refuse(path, "an object array without items")
            for k, item in enumerate(items):
                self.node(item, f"{path}[{k}]", depth + 1, kind="JsonNode")
            self.node(shape, f"{path}.shape", depth + 1)
            if shape["__loader__"] != "TupleNode" or not all(
                    t.get("__loader__") == "JsonNode" for t in shape["content"]):
                self.refuse(path, "an object array's shape is not a tuple of integers")
        else:
            self.refuse(path, f"an array of storage type {str(kind)[:40]!r}")
