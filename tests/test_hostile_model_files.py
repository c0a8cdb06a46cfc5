"""Hostile model files: no node of a file can run code, at any entry point that
reads models; bombs, devices, FIFOs and malformed parts are refused in one line.

The gadgets are edits of a real model file's ``schema.json``, each planted as
an extra attribute of the model (or in place of a part).  A gadget that got
through would call ``os.system`` (leaving a marker file) or one of our own
functions (replaced here by a recorder), so each test fails if any is ever
called, whatever the refusal says.
"""

import copy
import io
import json
import os
import threading
import time
import zipfile

import numpy as np
import pandas as pd
import pytest

import svmcompare
import svmcompare._lazy
import svmcompare.cli
from svmcompare import SVMCompare, load_model, save_model
from svmcompare.cli import main
from svmcompare.datasets import make_norm_pairs
from svmcompare.persistence import load_predictor

# A version of this minor release other than this one (the scoring part must match to the patch).
_SAME_MINOR = ".".join(svmcompare.__version__.split(".")[:2]) + ".99"
_STR = {"__class__": "str", "__module__": "builtins", "__loader__": "TypeNode"}


def _json(value, node_id=None):
    node = {"__class__": "str", "__module__": "builtins", "__loader__": "JsonNode",
            "content": json.dumps(value), "is_json": True}
    if node_id is not None:
        node["__id__"] = node_id
    return node


def _list(items, loader="ListNode", cls="list"):
    return {"__class__": cls, "__module__": "builtins", "__loader__": loader,
            "content": items}


def _dict(content, key_types=None, module="builtins", cls="dict"):
    return {"__class__": cls, "__module__": module, "__loader__": "DictNode",
            "content": content, "key_types": key_types or _list([_STR] * len(content))}


def _os_system(marker):
    """import_module("os") by a reduce call, .system by a MethodNode, called as a
    dict's key type on the command: the chain that ran code on earlier releases."""
    os_module = {"__class__": "import_module", "__module__": "svmcompare._lazy",
                 "__loader__": "ConstructorFromReduceNode",
                 "content": _list([_json("os")], "TupleNode", "tuple")}
    system = {"__class__": "import_module", "__module__": "svmcompare._lazy",
              "__loader__": "MethodNode", "content": {"func": "system", "obj": os_module}}
    return _dict({f"touch {marker}": _json(1)}, _list([system]))


def _function(module, name):
    return {"__class__": name, "__module__": module, "__loader__": "FunctionNode"}


GADGETS = {
    "method chain to os.system as a dict key type": lambda m: _os_system(m),
    "our function as a dict's own class": lambda m: _dict({}, module="svmcompare.cli",
                                                          cls="main"),
    "our function as a dict key type": lambda m: _dict(
        {"x": _json(1)}, _list([{**_STR, "__module__": "svmcompare.cli", "__class__": "main"}])),
    "our function as an array's scalar type": lambda m: {
        "__class__": "main", "__module__": "svmcompare.cli", "__loader__": "NdArrayNode",
        "type": "json", "content": [], "shape": _list([_json(0)], "TupleNode", "tuple")},
    "a reduce call": lambda m: {
        "__class__": "main", "__module__": "svmcompare.cli",
        "__loader__": "ConstructorFromReduceNode",
        "content": _list([_list([_json("--help")])], "TupleNode", "tuple")},
    "a function node": lambda m: _function("svmcompare.cli", "main"),
    "a function node of os": lambda m: _function("os", "system"),
    "a partial": lambda m: {
        "__class__": "partial", "__module__": "functools", "__loader__": "PartialNode",
        "content": {"func": _function("os", "system"),
                    "args": _list([_json(f"touch {m}")], "TupleNode", "tuple"),
                    "kwds": _dict({}), "namespace": _dict({})}},
    "a type as a value": lambda m: {"__class__": "main", "__module__": "svmcompare.cli",
                                    "__loader__": "TypeNode"},
    "an object of a function 'class'": lambda m: {
        "__class__": "main", "__module__": "svmcompare.cli", "__loader__": "ObjectNode"},
    "a dotted class path": lambda m: {
        "__class__": "cli.main", "__module__": "svmcompare", "__loader__": "ObjectNode"},
    "a scikit-learn estimator skops trusts": lambda m: {
        "__class__": "LogisticRegression", "__module__": "sklearn.linear_model._logistic",
        "__loader__": "ObjectNode"},
    "an operator": lambda m: {"__class__": "attrgetter", "__module__": "operator",
                              "__loader__": "OperatorFuncNode",
                              "content": {"attr": "system"}},
    "bytes": lambda m: {"__class__": "bytes", "__module__": "builtins",
                        "__loader__": "BytesNode", "file": "x.bin"},
    "a cached node": lambda m: {"__class__": "dict", "__module__": "builtins",
                                "__loader__": "CachedNode", "__id__": 1},
}


@pytest.fixture(scope="module")
def fitted():
    X, y = make_norm_pairs(80, "l1", random_state=0)
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                          "b_v": X[:, 1, 1], "y": y})
    return SVMCompare(kernel="linear").fit(frame.drop(columns="y"), y), frame


@pytest.fixture
def files(fitted, tmp_path):
    model, frame = fitted
    save_model(model, tmp_path / "model.skops")
    frame.to_csv(tmp_path / "pairs.csv", index=False)
    pd.DataFrame({"id": ["a", "b"], "u": [0.1, 0.2], "v": [0.3, 0.4]}).to_csv(
        tmp_path / "items.csv", index=False)
    return tmp_path


def _members(path):
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def edit_schema(path, edit, *, keep_predictor=False):
    """Rewrite ``path``'s schema with ``edit(schema)`` (and, by default, without
    its scoring part, so that predict reads the schema too)."""
    members = _members(path)
    schema = json.loads(members["schema.json"])
    edit(schema)
    members["schema.json"] = json.dumps(schema).encode()
    if not keep_predictor:
        members = {k: v for k, v in members.items() if not k.startswith("svmcompare-predictor")}
    _write(path, members)


def plant(schema, node):
    attributes = schema["content"]["model"]["content"]
    attributes["content"]["evil"] = node
    attributes["key_types"]["content"].append(dict(_STR))


def _entry_points(folder):
    model = str(folder / "model.skops")
    return {
        "load_model": lambda: load_model(model),
        "predict": lambda: main(["predict", model, str(folder / "pairs.csv"),
                                 "-o", str(folder / "out.csv")]),
        "evaluate": lambda: main(["evaluate", model, str(folder / "pairs.csv")]),
        "rank": lambda: main(["rank", model, str(folder / "items.csv"),
                              "-o", str(folder / "ranks.csv")]),
    }


@pytest.fixture
def recorder(monkeypatch):
    """Our functions a file could name, replaced by one that records calls."""
    calls = []

    def record(*args, **kwargs):
        calls.append(args)
        return {}

    for module, name in ((svmcompare.cli, "main"), (svmcompare._lazy, "import_module")):
        monkeypatch.setattr(module, name, record)
    return calls


@pytest.mark.parametrize("gadget", sorted(GADGETS))
def test_no_gadget_runs_code_at_any_entry_point(files, gadget, recorder, capsys):
    marker = files / "marker"
    edit_schema(files / "model.skops", lambda s: plant(s, GADGETS[gadget](marker)))
    for name, call in _entry_points(files).items():
        if name == "load_model":
            with pytest.raises(ValueError, match="refusing to load it: at root.model.evil"):
                call()
        else:
            assert call() == 2, name
            err = capsys.readouterr().err
            assert "refusing to load it: at root.model.evil" in err, (name, err)
            assert "Traceback" not in err and err.count("\n") == 1
        assert not marker.exists() and recorder == [], (gadget, name)


def test_the_os_system_chain_is_refused_in_place_of_any_part(files, recorder):
    """The same chain planted deep inside the model's parts, not only at its top."""
    marker = files / "marker"
    clean = json.loads(_members(files / "model.skops")["schema.json"])
    places = []

    def objects(node, path):
        if isinstance(node, dict):
            if node.get("__loader__") == "ObjectNode":
                places.append(path)
            for key, value in node.items():
                objects(value, [*path, key])
        elif isinstance(node, list):
            for k, value in enumerate(node):
                objects(value, [*path, k])

    objects(clean, [])
    assert len(places) >= 4  # the model, its ranking function, scaler, kernel
    for path in places:
        schema = copy.deepcopy(clean)
        target = schema
        for key in path:
            target = target[key]
        target["content"]["content"]["evil"] = _os_system(marker)
        target["content"]["key_types"]["content"].append(dict(_STR))
        members = _members(files / "model.skops")
        members["schema.json"] = json.dumps(schema).encode()
        _write(files / "edited.skops", members)
        with pytest.raises(ValueError, match="refusing to load it"):
            load_model(files / "edited.skops")
        assert not marker.exists() and recorder == []


def test_a_node_id_cannot_stand_in_for_a_key_type(files):
    """skops reuses the first node built under an id; a dict key type that
    repeats an object's id would be that object, called on the key."""
    def edit(schema):
        kernel = schema["content"]["model"]["content"]["content"]["kernel_"]
        plant(schema, _dict({"x": _json(1)}, _list([{**_STR, "__id__": kernel["__id__"]}])))

    edit_schema(files / "model.skops", edit)
    with pytest.raises(ValueError, match="node id .* names two different nodes"):
        load_model(files / "model.skops")


def test_the_version_is_checked_before_the_contents(files, recorder):
    def edit(schema):
        schema["content"]["version"] = _json("0.0.1")
        plant(schema, _os_system(files / "marker"))

    edit_schema(files / "model.skops", edit)
    with pytest.raises(ValueError, match="written by svmcompare 0.0.1"):
        load_model(files / "model.skops")
    assert not (files / "marker").exists()


def test_deep_nesting_is_refused_without_recursion_errors(files):
    node = _json(1)
    for _ in range(200):
        node = _list([node])
    edit_schema(files / "model.skops", lambda s: plant(s, node))
    with pytest.raises(ValueError, match="nested deeper than"):
        load_model(files / "model.skops")
    # Deeper than the JSON parser goes: a clear error too.
    members = _members(files / "model.skops")
    members["schema.json"] = b"[" * 200_000 + b"]" * 200_000
    _write(files / "model.skops", members)
    with pytest.raises(ValueError, match="schema.json' is not valid JSON"):
        load_model(files / "model.skops")


def _bomb(path, member, size):
    """``path`` with ``member`` replaced by ``size`` bytes of spaces, deflated."""
    members = _members(path)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            if name == member:
                archive.writestr(zipfile.ZipInfo(name), b" " * size,
                                 compress_type=zipfile.ZIP_DEFLATED)
            else:
                archive.writestr(name, data)


@pytest.mark.parametrize("member", ["svmcompare-predictor.json", "schema.json", "npy"])
def test_zip_bombs_are_refused_from_the_directory(files, member):
    import resource

    path = files / "model.skops"
    if member == "npy":
        member = next(n for n in _members(path) if n.endswith(".npy") and "/" not in n)
    _bomb(path, member, 512 * 2**20)  # 512 MiB of spaces, about 0.5 MB deflated
    assert path.stat().st_size < 2**20
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for call in (lambda: load_model(path), lambda: load_predictor(path)):
        start = time.perf_counter()
        with pytest.raises(ValueError, match="is compressed .* expand to 536,870,912"):
            call()
        assert time.perf_counter() - start < 1.0
    # ru_maxrss is in KiB on Linux: no inflated copy was ever held.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024


def test_an_array_header_claiming_a_huge_shape_is_refused(files):
    path = files / "model.skops"
    members = _members(path)
    name = next(n for n in members if n.endswith(".npy") and "/" not in n)
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f8", "fortran_order": False, "shape": (10**12, 10**6)})
    members[name] = buffer.getvalue() + b"\0" * 64
    _write(path, members)
    with pytest.raises(ValueError, match=r"claims shape \(1000000000000, 1000000\)"):
        load_model(path)


@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "folder"])
def test_devices_fifos_and_folders_are_refused_at_once(tmp_path, special, capsys):
    if special == "fifo":
        path = tmp_path / "fifo.skops"
        os.mkfifo(path)
    elif special == "folder":
        path = tmp_path
    else:
        path = special
        if not os.path.exists(path):
            pytest.skip("no /dev/zero here")
    outcome = {}

    def run():
        outcome["code"] = main(["predict", str(path), str(tmp_path / "p.csv"),
                                "-o", str(tmp_path / "out.csv")])

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(5.0)
    assert not worker.is_alive(), "predict hung on a special file"
    assert outcome["code"] == 2
    err = capsys.readouterr().err
    assert "is not a regular file" in err and "Traceback" not in err


@pytest.fixture(scope="module")
def probability_model():
    X, y = make_norm_pairs(120, "l1", random_state=0)
    # Degenerate (the tie threshold is fitted, an array in the file): its checks differ.
    return SVMCompare(kernel="linear", class_weight="balanced", probability=True,
                      random_state=0).fit(X, y)


def _edit_predictor(path, edit_meta=None, edit_arrays=None, raw_json=None):
    members = _members(path)
    meta = json.loads(members["svmcompare-predictor.json"])
    if edit_meta:
        edit_meta(meta)
    members["svmcompare-predictor.json"] = raw_json or json.dumps(meta).encode()
    if edit_arrays:
        prefix = "svmcompare-predictor/"
        arrays = {n[len(prefix):-4]: np.load(io.BytesIO(d)) for n, d in members.items()
                  if n.startswith(prefix)}
        edit_arrays(arrays)
        members = {n: d for n, d in members.items() if not n.startswith(prefix)}
        for name, value in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, value)
            members[f"{prefix}{name}.npy"] = buffer.getvalue()
    _write(path, members)


def _set(key, value, inner=None):
    def edit(meta):
        (meta[inner] if inner else meta)[key] = value
    return edit


def _poke(name, value=np.nan, index=0):
    def edit(arrays):
        arrays[name] = arrays[name].copy()
        arrays[name][index] = value
    return edit


PREDICTOR_EDITS = {
    "NaN threshold": ({"edit_meta": _set("threshold", float("nan"))}, "threshold is nan"),
    "infinite gamma": ({"edit_meta": _set("gamma", float("inf"))}, "gamma is inf"),
    "NaN weight": ({"edit_arrays": _poke("weights")}, "'weights' holds NaN"),
    "NaN scale": ({"edit_arrays": _poke("scale")}, "'scale' holds NaN"),
    "zero scale": ({"edit_arrays": _poke("scale", 0.0)}, "'scale' has a value <= 0"),
    "NaN link": ({"edit_arrays": _poke("link_coef")}, "'link_coef' holds NaN"),
    "NaN link scale": ({"edit_meta": _set("scale", float("nan"), "calibrator")},
                       "scale is nan"),
    "unknown link": ({"edit_meta": _set("link", "logit", "calibrator")},
                     "unknown probability link 'logit'"),
    "unknown tie band": ({"edit_meta": _set("tie_band", "wide", "calibrator")},
                         "unknown tie band 'wide'"),
    "unknown kernel": ({"edit_meta": _set("kernel", "sigmoid")}, "unknown kernel 'sigmoid'"),
    "extra field": ({"edit_meta": _set("evil", 1)}, "fields are not those"),
    "weights of the wrong length": (
        {"edit_arrays": lambda a: a.update(weights=np.ones(5))}, "'weights' has shape"),
    "weights as integers": (
        {"edit_arrays": lambda a: a.update(weights=a["weights"].astype(np.int64))},
        "'weights' is not of type float64"),
    "an array missing": ({"edit_arrays": lambda a: a.pop("mean")}, "arrays .* are not"),
    "another version": ({"edit_meta": _set("version", _SAME_MINOR)}, f"says version {_SAME_MINOR}"),
    "another minor version": ({"edit_meta": _set("version", "0.9.0")},
                              "written by svmcompare 0.9.0"),
    "malformed JSON": ({"raw_json": b'{"version": '}, "is not valid JSON"),
    "a JSON list": ({"raw_json": b"[1, 2]"}, "fields are not those"),
    "context names for a model without context": (
        {"edit_meta": _set("context_names", ["home"])}, "context_names is not a list of 0"),
    "context names that are not text": (
        {"edit_meta": _set("context_names", [1])}, "context_names is not a list"),
    "a probability vector that is not one": (
        {"edit_arrays": _poke("class_prior", 2.0)}, "class_prior is not a probability"),
    # Found by a review of stop 56: both orders of a pair said "x better".
    "a negative threshold": ({"edit_meta": _set("threshold", -5.0)},
                             "threshold -5.0 is negative"),
    # Integers past float's range: an OverflowError or numpy's TypeError escaped.
    "a huge integer gamma": ({"edit_meta": _set("gamma", 10**400)}, "gamma is 1000.* not a"),
    "a huge integer threshold": ({"edit_meta": _set("threshold", 10**400)},
                                 "threshold is 1000.* not a"),
    "a huge integer cost": ({"edit_meta": _set("cost", [[0, 10**400, 1], [1, 0, 1],
                                                        [1, 1, 0]])},
                            "cost matrix is malformed .*too large"),
}


@pytest.mark.parametrize("edit", sorted(PREDICTOR_EDITS))
def test_a_malformed_scoring_part_is_refused_not_skipped(probability_model, tmp_path, edit,
                                                         capsys):
    changes, message = PREDICTOR_EDITS[edit]
    path = tmp_path / "model.skops"
    save_model(probability_model, path)
    _edit_predictor(path, **changes)
    with pytest.raises(ValueError, match=message):
        load_predictor(path)
    X, y = make_norm_pairs(20, "l1", random_state=3)
    pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                  "b_v": X[:, 1, 1]}).to_csv(tmp_path / "pairs.csv", index=False)
    code = main(["predict", str(path), str(tmp_path / "pairs.csv"), "--proba",
                 "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 2 and not (tmp_path / "out.csv").exists()
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("attribute,value,message", [
    ("threshold_", "NaN", "threshold is nan"),
    ("threshold_", '"wide"', "fitted state is incomplete .*'wide'"),
    ("score_scale_", "-1.0", "score_scale -1.0 is not positive"),
])
def test_load_model_checks_the_estimator_s_scoring_state(probability_model, tmp_path,
                                                          attribute, value, message):
    path = tmp_path / "model.skops"
    save_model(probability_model, path)

    def edit(schema):
        schema["content"]["model"]["content"]["content"][attribute]["content"] = value

    edit_schema(path, edit)
    with pytest.raises(ValueError, match=message):
        load_model(path)


def test_a_file_whose_scoring_part_was_deleted_is_refused(probability_model, tmp_path):
    # save_model writes a scoring part for every model that has one; deleting
    # it let an edited class load (an attack, stop 70: an SVMCompare file
    # read as SVMRank).
    path = tmp_path / "model.skops"
    save_model(probability_model, path)
    edit_schema(path, lambda schema: None)  # drops the scoring part
    assert load_predictor(path) is None  # predict falls back to load_model, which refuses
    with pytest.raises(ValueError, match="lacks the scoring part its model has"):
        load_model(path)

    def as_svmrank(schema):
        from svmcompare import SVMRank

        schema["content"]["model"]["__class__"] = SVMRank.__name__
        schema["content"]["model"]["__module__"] = SVMRank.__module__

    save_model(probability_model, path)
    edit_schema(path, as_svmrank)
    with pytest.raises(ValueError, match="edited or mixed"):
        load_model(path)


@pytest.mark.parametrize("kernel, name, value, message", [
    ("linear", "C", float("inf"), "parameters are not ones it can be fitted with"),
    ("linear", "C", "abc", "parameters are not ones it can be fitted with"),
    ("rbf", "gamma", float("nan"), "parameters are not ones it can be fitted with"),
    ("linear", "kernel", "rbf", "kernel parameter \\(rbf\\) is not its fitted kernel's"),
])
def test_edited_parameters_are_refused(tmp_path, kernel, name, value, message):
    # An attack (stop 70): C = inf, a text C, gamma = NaN and another kernel
    # each loaded from a re-zipped file and failed only on a refit.
    X, y = make_norm_pairs(60, "l1", random_state=0)
    model = SVMCompare(kernel=kernel, solver="exact").fit(X, y)
    path = tmp_path / "model.skops"
    save_model(model, path)

    def edit(schema):
        params = schema["content"]["model"]["content"]["content"]
        params[name] = {"__class__": "str", "__module__": "builtins",
                        "__loader__": "JsonNode", "content": json.dumps(value),
                        "is_json": True, "__id__": 7}

    edit_schema(path, edit, keep_predictor=True)
    with pytest.raises(ValueError, match=message):
        load_model(path)


def test_nested_and_approximate_models_are_checked_too(tmp_path):
    from svmcompare import GroupRankSVM, OrdinalSVM
    from svmcompare.datasets import make_graded_blocks

    X, y, groups, _ = make_graded_blocks(random_state=0)
    graded = GroupRankSVM().fit(X, y, groups)
    graded.pair_model_.ranking_.weights[0] = np.nan
    ordinal = OrdinalSVM().fit(X, y)
    ordinal.thresholds_[0] = np.inf
    Xp, yp = make_norm_pairs(100, "l1", random_state=0)
    nystroem = SVMCompare(solver="nystroem", n_components=10, random_state=0).fit(Xp, yp)
    nystroem.ranking_.feature_map.projection_[0, 0] = np.nan
    for name, model, message in (("graded", graded, "'weights' holds NaN"),
                                 ("ordinal", ordinal, "thresholds_ holds NaN, infinity"),
                                 ("nystroem", nystroem, "Nystroem projection holds NaN")):
        save_model(model, tmp_path / f"{name}.skops")
        with pytest.raises(ValueError, match=message):
            load_model(tmp_path / f"{name}.skops")


# -- an independent attack's findings (each ran or corrupted memory before) ----

def _array_node(member, cls="ndarray", node_id=None):
    node = {"__class__": cls, "__module__": "numpy", "__loader__": "NdArrayNode",
            "type": "numpy", "file": member}
    if node_id is not None:
        node["__id__"] = node_id
    return node


def _npy_bytes(array):
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def test_no_object_can_carry_a_numpy_protocol_attribute(files):
    """An allowed object with an ``__array_interface__`` attribute is, for
    NumPy, an array over raw memory at an address the file picks (a crash,
    or a leak of process memory through predictions)."""
    interface = _dict({"shape": _list([_json(2)], "TupleNode", "tuple"),
                       "typestr": _json("<f8"),
                       "data": _list([_json(16), _json(True)], "TupleNode", "tuple")})
    splitter = {"__class__": "KFold", "__module__": "sklearn.model_selection._split",
                "__loader__": "ObjectNode", "content": _dict({"__array_interface__": interface})}
    edit_schema(files / "model.skops", lambda s: plant(s, splitter))
    with pytest.raises(ValueError, match="attribute name '__array_interface__' is not one"):
        load_model(files / "model.skops")


def test_a_recurring_id_must_repeat_its_node(files):
    """skops builds the first node with an id wherever the id recurs: a
    stub standing for an earlier dict with an integer key, or a chain of
    lists each naming the last twice (2^k nodes built from k)."""
    def chain(schema):
        levels = [_list([_json(0), _json(0)])]
        levels[0]["__id__"] = 5000
        for k in range(1, 20):
            stub = _list([])
            stub["__id__"] = 5000 + k - 1
            level = _list([stub, dict(stub)])
            level["__id__"] = 5000 + k
            levels.append(level)
        plant(schema, _list(levels))

    edit_schema(files / "model.skops", chain)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="node id 5000 names two different nodes"):
        load_model(files / "model.skops")
    assert time.perf_counter() - start < 5



def test_a_deep_tree_where_a_value_belongs_is_refused_in_one_line(files, capsys):
    """A value node whose content is 900 nested lists (1.8 KB): the id check
    copied every node's tree recursively before its checks, a RecursionError
    and a traceback at every loader."""
    def deep(schema):
        node = _json(0, node_id=6000)
        node["content"] = "@@DEEP@@"
        plant(schema, node)

    edit_schema(files / "model.skops", deep)
    members = _members(files / "model.skops")
    members["schema.json"] = members["schema.json"].replace(b'"@@DEEP@@"',
                                                            b"[" * 900 + b"]" * 900)
    _write(files / "model.skops", members)
    with pytest.raises(ValueError, match="evil: a value is not a JSON number"):
        load_model(files / "model.skops")
    assert main(["rank", str(files / "model.skops"), "-o", "-"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_nested_recurring_nodes_cost_the_check_no_copies(files):
    """Levels of lists each with an id, the whole repeated: the check kept a
    serialized copy of every id'd node's tree (a 30 MB file: 2.1 GB and 27 s).
    It now compares a recurring id's node with the first, each pair once."""
    import tracemalloc

    from svmcompare._trusted import check_schema

    def nested():
        node = _list([_json("x" * 8) for _ in range(2000)])
        for level in range(40):
            node = _list([node])
            node["__id__"] = 7000 + level
        return node

    def plant_twice(schema):
        first = nested()
        plant(schema, _list([first, copy.deepcopy(first)]))

    from svmcompare._archive import Archive, read_regular_file

    original = (files / "model.skops").read_bytes()
    edit_schema(files / "model.skops", plant_twice)
    archive = Archive(read_regular_file(files / "model.skops"), "model.skops")
    text = archive.read("schema.json")
    schema = json.loads(text)
    arrays = {name: header for name, header in archive.arrays.items() if "/" not in name}
    tracemalloc.start()
    try:
        check_schema(schema, arrays, "model.skops", lambda version: None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < len(text)  # a serialized copy per level: 40x the file
    # And the repeat must still be a repeat.
    def changed(schema):
        first = nested()
        second = copy.deepcopy(first)
        second["content"][0]["content"][0]["content"][0]["content"] = json.dumps("y")
        plant(schema, _list([first, second]))

    (files / "model.skops").write_bytes(original)
    edit_schema(files / "model.skops", changed)
    with pytest.raises(ValueError, match="names two different nodes"):
        load_model(files / "model.skops")

def test_an_array_member_is_read_once_and_scalars_are_scalars(files):
    path = files / "model.skops"
    members = _members(path)
    members["77.npy"] = _npy_bytes(np.zeros(100_000, dtype=np.int8))
    _write(path, members)
    edit_schema(path, lambda s: plant(s, _list([_array_node("77.npy"), _array_node("77.npy")])))
    with pytest.raises(ValueError, match="array member '77.npy' is read by two nodes"):
        load_model(path)
    edit_schema(path, lambda s: s["content"]["model"]["content"]["content"].update(
        evil=_array_node("77.npy", "float64")), keep_predictor=True)
    with pytest.raises(ValueError, match=r"a numpy.float64 scalar whose data is an array of "
                                         r"shape \(100000,\)"):
        load_model(path)


@pytest.mark.parametrize("flag", [0x20, 0x40])
def test_zip_features_no_model_file_uses_are_refused(files, flag):
    path = files / "model.skops"
    data = bytearray(path.read_bytes())
    # Set the flag in every central-directory record (signature PK\1\2, flags at +8).
    start = 0
    while (start := data.find(b"PK\x01\x02", start)) >= 0:
        data[start + 8] |= flag
        start += 4
    path.write_bytes(bytes(data))
    for reader in (load_model, load_predictor):
        with pytest.raises(ValueError, match="uses zip features"):
            reader(path)


def _edit_model(files, edit):
    """The fitted probability model's file with ``edit(model)`` applied before saving."""
    X, y = make_norm_pairs(80, "l1", random_state=0)
    model = SVMCompare(C=1.0, gamma=0.5, probability=True, random_state=0).fit(X, y)
    edit(model)
    save_model(model, files / "edited.skops")
    return files / "edited.skops"


@pytest.mark.parametrize("edit,message", [
    (lambda m: setattr(m, "scaler_", __import__("copy").deepcopy(m.scaler_)),
     "scaler_ or kernel_ is not its ranking function's own"),
    (lambda m: setattr(m, "n_features_in_", 3_000_000), "n_features_in_ \\(3000000\\) differs"),
    (lambda m: setattr(m.calibrator_, "symmetric", False) or m.calibrator_.link_.coef_.fill(
        np.nan), "link coefficients holds NaN"),
    (lambda m: setattr(m, "score_scale_", 0.0), "score_scale 0.0 is not positive"),
    (lambda m: setattr(m.calibrator_, "symmetric", False) or setattr(m, "score_scale_", 0.0),
     "score_scale_ is 0.0"),
    (lambda m: setattr(m.calibrator_.link_, "classes_", np.array([5, 6, 7])),
     "outcomes or cut points are inconsistent"),
    (lambda m: setattr(m, "class_prior_", np.array([np.nan, -5.0, np.inf])), "class_prior"),
    (lambda m: setattr(m, "best_estimator_", None) or m.calibrator_.link_.coef_.fill(np.nan),
     "holds NaN"),
    # A reversed link (every probability swapped, most pairs ties) or one of the
    # wrong width (an error only at predict time): accepted where no scoring
    # part is written (an asymmetric link).
    (lambda m: setattr(m.calibrator_, "symmetric", False) or m.calibrator_.link_.coef_.fill(-3.0),
     "the score's >= 0"),
    (lambda m: setattr(m.calibrator_, "symmetric", False)
     or setattr(m.calibrator_.link_, "coef_", np.array([1.0, 2.0, 3.0])),
     "one for the score and one per context column \\(1\\)"),
    (lambda m: setattr(m.calibrator_, "symmetric", False) or setattr(m, "threshold_", -5.0),
     "threshold_ -5.0 is negative"),
])
def test_a_loaded_model_is_a_consistent_fitted_model(files, edit, message):
    """What load_model builds is what scoring uses, and it is consistent."""
    path = _edit_model(files, edit)
    with pytest.raises(ValueError, match=message):
        load_model(path)


def test_scores_that_overflow_are_an_error_not_nan(files):
    def extreme(model):
        model.ranking_.coef[:] = 1e308
    path = _edit_model(files, extreme)
    model = load_model(path)  # every number is finite ...
    X, _ = make_norm_pairs(20, "l1", random_state=3)
    with pytest.raises(ValueError, match="overflow to NaN or infinity"):
        model.predict(X)  # ... but their sums are not
    assert main(["predict", str(path), str(files / "pairs.csv"), "-o",
                 str(files / "out.csv")]) == 2


def test_an_ordinal_model_ranks_items_on_the_command_line(tmp_path):
    from svmcompare import OrdinalSVM
    from svmcompare.datasets import make_graded_blocks

    X, y, _, _ = make_graded_blocks(random_state=0)
    model = OrdinalSVM().fit(X, y)
    save_model(model, tmp_path / "o.skops")
    pd.DataFrame({"id": np.arange(X.shape[0]), **{f"f{k + 1}": X[:, k] for k in
                                                  range(X.shape[1])}}).to_csv(
        tmp_path / "items.csv", index=False)
    assert main(["rank", str(tmp_path / "o.skops"), str(tmp_path / "items.csv"),
                 "-o", str(tmp_path / "r.csv")]) == 0
    np.testing.assert_allclose(pd.read_csv(tmp_path / "r.csv")["rank"],
                               model.pair_model_.rank(X))


def test_a_file_without_a_parameter_is_refused_with_refit(probability_model, tmp_path):
    # A file from before a parameter existed (or one that dropped it) cannot
    # say its value: get_params() would fail long after loading.
    path = tmp_path / "model.skops"
    save_model(probability_model, path)

    def edit(schema):
        state = schema["content"]["model"]["content"]
        position = list(state["content"]).index("scale_indicators")
        del state["content"]["scale_indicators"]
        del state["key_types"]["content"][position]  # one key type per key

    edit_schema(path, edit)
    with pytest.raises(ValueError, match=r"lacks the parameter\(s\) scale_indicators.*refit"):
        load_model(path)


# -- a second attack review's findings: loaded, then scored wrong or crashed ---

def _object_nodes(node, cls):
    """Every ObjectNode of class ``cls`` in a schema (each occurrence)."""
    if isinstance(node, dict):
        if node.get("__loader__") == "ObjectNode" and node.get("__class__") == cls:
            yield node
        for value in node.values():
            yield from _object_nodes(value, cls)
    elif isinstance(node, list):
        for value in node:
            yield from _object_nodes(value, cls)


def _attributes(node):
    """The attribute nodes of an ObjectNode, by name."""
    return node["content"]["content"]


def _without_node_ids(node):
    if isinstance(node, dict):
        return {k: _without_node_ids(v) for k, v in node.items() if k != "__id__"}
    if isinstance(node, list):
        return [_without_node_ids(v) for v in node]
    return node


def _model_path(model, tmp_path, name="model.skops"):
    path = tmp_path / name
    save_model(model, path)
    return path


def _edit_member(path, member, edit):
    """Rewrite the array ``member`` of ``path`` as ``edit(array)``."""
    members = _members(path)
    members[member] = _npy_bytes(edit(np.load(io.BytesIO(members[member]))))
    _write(path, members)


@pytest.fixture(scope="module")
def rbf_probability_model():
    X, y = make_norm_pairs(80, "l1", random_state=0)
    return SVMCompare(probability=True, random_state=0).fit(X, y), X


@pytest.mark.parametrize("code", [1, 0, 99, "3", 3.0, True])
def test_a_kernel_s_code_must_be_its_name_s(rbf_probability_model, tmp_path, code):
    """Scoring follows a kernel's code, not its name: an rbf model edited to
    code 1 scored as a linear kernel (other numbers than the scoring part's),
    codes 0 or 99 failed at predict."""
    model, X = rbf_probability_model
    path = _model_path(model, tmp_path)
    assert load_model(path).predict(X[:5]).shape == (5,)  # the untouched file loads

    def edit(schema):
        kernels = list(_object_nodes(schema, "KernelSpec"))
        assert len(kernels) == 2  # kernel_ and ranking_.kernel: one object, two nodes
        for kernel in kernels:
            _attributes(kernel)["code"] = _json(code)

    edit_schema(path, edit, keep_predictor=True)
    with pytest.raises(ValueError, match=rf"kernel at \S+ has code {code!r}, not rbf's code 3"):
        load_model(path)
    # The scoring part names its kernel (no code): predict scores as the fit did.
    np.testing.assert_array_equal(load_predictor(path).decision_function(X[:5]),
                                  model.decision_function(X[:5]))


@pytest.mark.parametrize("part,name", [
    ("model", "_has_probabilities"), ("model", "predict"), ("model", "_checked_context"),
    ("model", "problem_kind"), ("ranking_", "rank_standardized"), ("ranking_", "n_features_in"),
])
def test_an_attribute_cannot_hide_a_method_of_its_class(rbf_probability_model, tmp_path,
                                                        part, name):
    """An extra attribute named as a method (``_has_probabilities: null``)
    loaded, and predict raised "'NoneType' object is not callable"."""
    model, X = rbf_probability_model
    path = _model_path(model, tmp_path)

    def edit(schema):
        target = schema["content"]["model"]
        if part != "model":
            target = _attributes(target)[part]
        _attributes(target)[name] = _json(None)
        target["content"]["key_types"]["content"].append(dict(_STR))

    edit_schema(path, edit, keep_predictor=True)
    with pytest.raises(ValueError, match=rf"has an attribute '{name}' that would hide its "
                                         r"class's (method|property|class attribute)"):
        load_model(path)


def test_a_dataclass_part_holds_exactly_its_fields(rbf_probability_model, tmp_path):
    model, _ = rbf_probability_model
    path = _model_path(model, tmp_path)

    def edit(schema):
        for kernel in _object_nodes(schema, "KernelSpec"):
            _attributes(kernel)["block"] = _json(None)
            kernel["content"]["key_types"]["content"].append(dict(_STR))

    edit_schema(path, edit)
    with pytest.raises(ValueError, match=r"KernelSpec at \S+ has attributes .* not its fields"):
        load_model(path)


@pytest.fixture(scope="module")
def nystroem_model():
    X, y = make_norm_pairs(100, "l1", random_state=0)
    return SVMCompare(solver="nystroem", n_components=10, random_state=0).fit(X, y), X


def _map_kernel(field, value):
    """The Nystroem map's own kernel (a node of its own) with ``field`` set."""
    def edit(schema):
        (feature_map,) = _object_nodes(schema, "NystroemMap")
        kernel = _without_node_ids(_attributes(feature_map)["kernel"])
        kernel["__id__"] = 987654321
        _attributes(kernel)[field] = _json(value)
        _attributes(feature_map)["kernel"] = kernel
    return edit


def _map_array(name, edit_array):
    def edit(path):
        schema = json.loads(_members(path)["schema.json"])
        (feature_map,) = _object_nodes(schema, "NystroemMap")
        _edit_member(path, _attributes(feature_map)[name]["file"], edit_array)
    return edit


NYSTROEM_EDITS = {
    "map gamma -50": (_map_kernel("gamma", -50.0), r"feature_map.kernel has gamma -50.0, not "
                                                   "positive"),
    "map func os.system": (_map_kernel("func", "os.system"),
                           r"feature_map.kernel has a func \(str\)"),
    "map code 2": (_map_kernel("code", 2), r"feature_map.kernel has code 2, not rbf's code 3"),
    "map gamma 1e-300": (_map_kernel("gamma", 1e-300),
                         r"Nystroem map's kernel \(rbf, gamma 1e-300\) is not the model's"),
    "map name linear": (_map_kernel("name", "linear"),
                        r"feature_map.kernel has code 3, not linear's code 1"),
    "landmarks of one feature": (_map_array("landmarks_", lambda a: a[:, :1].copy()),
                                 r"Nystroem landmarks have shape \(10, 1\), not \(landmarks, "
                                 "2 features\\)"),
    "projection of 3 rows": (_map_array("projection_", lambda a: a[:3].copy()),
                             "Nystroem projection has 3 rows, not one per landmark \\(10\\)"),
    "projection of 2 columns": (_map_array("projection_", lambda a: a[:, :2].copy()),
                                r"weights have \d+ values, not one per feature of its Nystroem "
                                r"map \(2\)"),
    "landmarks as integers": (_map_array("landmarks_", lambda a: a.astype(np.int64)),
                              "Nystroem landmarks is not a 2-d array of float64"),
}


@pytest.mark.parametrize("edit", sorted(NYSTROEM_EDITS))
def test_a_nystroem_map_is_the_model_s_own_and_consistent(nystroem_model, tmp_path, edit):
    """The map's kernel and arrays were never checked: gamma -50 scored
    around 1e269, a func string failed at predict, mismatched shapes failed
    with raw matmul errors."""
    model, X = nystroem_model
    path = _model_path(model, tmp_path)
    np.testing.assert_array_equal(load_model(path).decision_function(X[:5]),
                                  model.decision_function(X[:5]))  # untouched: loads
    change, message = NYSTROEM_EDITS[edit]
    if edit.startswith("map "):
        edit_schema(path, change)
    else:
        change(path)
    with pytest.raises(ValueError, match=message):
        load_model(path)
    assert load_predictor(path) is None  # a Nystroem model's file has no scoring part


@pytest.fixture(scope="module")
def bootstrap_model():
    from svmcompare import BootstrapCompare

    X, y = make_norm_pairs(80, "l1", random_state=0)
    model = BootstrapCompare(SVMCompare(kernel="linear"), n_resamples=5, random_state=0,
                             progress=False).fit(X, y)
    return model, X


@pytest.mark.parametrize("name,edit_array,message", [
    ("scales_", lambda a: -1e300 * a, r"bootstrap scales_ has a negative value \(-\d"),
    ("scales_", lambda a: a[:3].copy(), "bootstrap scales_ is not one finite number per "
                                        "replicate"),
    ("offsets_", lambda a: np.full_like(a, np.inf), "bootstrap offsets_ is not one finite "
                                                    "number per replicate"),
    ("offsets_", lambda a: np.append(a, 0.0), "bootstrap offsets_ is not one finite number"),
])
def test_a_bootstrap_s_replicate_scales_are_a_fit_s(bootstrap_model, tmp_path, name,
                                                    edit_array, message):
    """scales_ times -1e300 loaded and rank_interval gave bounds of +-4e300."""
    model, X = bootstrap_model
    path = _model_path(model, tmp_path)
    lower, upper = load_model(path).rank_interval(X[:3, 0])  # untouched: loads
    np.testing.assert_array_equal(lower, model.rank_interval(X[:3, 0])[0])
    schema = json.loads(_members(path)["schema.json"])
    _edit_member(path, _attributes(schema["content"]["model"])[name]["file"], edit_array)
    with pytest.raises(ValueError, match=message):
        load_model(path)
    # The scoring part (the point model's) does not hold the replicates' map.
    np.testing.assert_array_equal(load_predictor(path).predict(X[:5]), model.predict(X[:5]))


@pytest.fixture(scope="module")
def calibrated_bootstrap():
    from svmcompare import BootstrapCompare

    X, y = make_norm_pairs(150, "l1", equality_fraction=0.3, random_state=0)
    model = BootstrapCompare(SVMCompare(kernel="linear", probability=True,
                                        loss="squared_hinge"), n_resamples=8,
                             random_state=0, progress=False).fit(X, y)
    assert model.proba_coverage_ is not None and model.score_coverage_ is not None
    return model, X


@pytest.mark.parametrize("name,edit_array,message", [
    ("proba_levels_", lambda a: a[::-1].copy(), "proba_levels_ are not the levels a fit"),
    ("proba_levels_", lambda a: a * 1e-300, "proba_levels_ are not the levels a fit"),
    ("proba_levels_", lambda a: a[:4].copy(), "differ in length"),
    ("proba_coverage_", lambda a: np.full_like(a, np.nan), "proba_coverage_ is not an array "
                                                           "of at least two finite"),
    ("proba_coverage_", lambda a: a[::-1] - 2.0, "proba_coverage_ is not a non-decreasing"),
    ("score_levels_", lambda a: a[::-1].copy(), "score_levels_ are not the levels a fit"),
    ("score_levels_", lambda a: a[:4].copy(), "differ in length"),
    ("score_coverage_", lambda a: np.full_like(a, np.inf), "score_coverage_ is not an array "
                                                           "of at least two finite"),
    ("score_coverage_", lambda a: a + 1.5, "score_coverage_ is not a non-decreasing"),
])
def test_a_calibrated_bootstrap_s_levels_are_a_fit_s(calibrated_bootstrap, tmp_path, name,
                                                     edit_array, message):
    """The levels pick quantiles of the replicates: reversed or past 1 they
    gave intervals from garbage quantiles (or a crash in numpy)."""
    model, X = calibrated_bootstrap
    path = _model_path(model, tmp_path)
    lower, _ = load_model(path).predict_proba_interval(X[:3])  # untouched: loads
    np.testing.assert_array_equal(lower, model.predict_proba_interval(X[:3])[0])
    lower, _ = load_model(path).rank_interval(X[:3, 0])
    np.testing.assert_array_equal(lower, model.rank_interval(X[:3, 0])[0])
    schema = json.loads(_members(path)["schema.json"])
    _edit_member(path, _attributes(schema["content"]["model"])[name]["file"], edit_array)
    with pytest.raises(ValueError, match=message):
        load_model(path)


def test_a_bootstrap_s_interval_method_is_one_it_knows(calibrated_bootstrap, tmp_path):
    model, X = calibrated_bootstrap
    edited = copy.deepcopy(model)
    edited.proba_interval = "no such method"
    path = _model_path(edited, tmp_path)
    with pytest.raises(ValueError, match="proba_interval is 'no such method'"):
        load_model(path)


def test_an_ordinal_model_s_grades_are_distinct_and_in_order(tmp_path):
    """Repeated grades (thresholds between them) predicted one grade for
    everything, silently; an ordered Categorical's grades load in their
    declared order, whatever it is."""
    from svmcompare import OrdinalSVM

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = np.digitize(X @ [1.0, -1.0, 0.5], [-1.0, 0.0, 1.0])
    for classes in ([0, 0, 2, 3], [0.5, np.nan, 7.0, 2.0], np.array([1, 1, 2, 3], np.uint8)):
        model = OrdinalSVM(kernel="linear").fit(X, y)
        model.classes_ = np.asarray(classes)
        save_model(model, tmp_path / "ordinal.skops")
        with pytest.raises(ValueError, match="classes_ are not distinct grades"):
            load_model(tmp_path / "ordinal.skops")
    # An ordered Categorical's grades keep their declared (not alphabetical) order.
    names = np.array(["low", "medium", "high", "top"])[y]
    grades = pd.Categorical(names, categories=["low", "medium", "high", "top"], ordered=True)
    model = OrdinalSVM(kernel="linear").fit(X, grades)
    save_model(model, tmp_path / "named.skops")
    loaded = load_model(tmp_path / "named.skops")
    assert list(loaded.classes_) == ["low", "medium", "high", "top"]
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    # Places, 1 the best: numbers in a declared decreasing order (a review found
    # them refused by a first version of this check).
    places = pd.Categorical(4 - y, categories=[4, 3, 2, 1], ordered=True)
    model = OrdinalSVM(kernel="linear").fit(X, places)
    save_model(model, tmp_path / "places.skops")
    assert list(load_model(tmp_path / "places.skops").classes_) == [4, 3, 2, 1]


def test_feature_names_are_distinct(tmp_path):
    """Two columns of one name (ids renamed in both parts of a file): commands
    failed later with pandas' 'cannot reindex on an axis with duplicate
    labels' or a TypeError."""
    X, y = make_norm_pairs(80, "l1", random_state=0)
    model = SVMCompare(kernel="linear").fit(X, y)
    model.feature_names_in_ = np.asarray(["is_T01"] * X.shape[2], dtype=object)
    save_model(model, tmp_path / "ids.skops")
    for reader in (load_model, load_predictor):
        with pytest.raises(ValueError, match="feature_names repeat a name \\('is_T01'\\)"):
            reader(tmp_path / "ids.skops")


def test_the_scoring_part_must_be_the_model_s_own(probability_model, tmp_path, capsys):
    """Weights negated in the scoring part alone: predict (which reads it)
    reversed every label while evaluate (the full model) scored 3.5% error."""
    path = tmp_path / "model.skops"
    save_model(probability_model, path)
    _edit_predictor(path, edit_arrays=lambda a: a.update(weights=-a["weights"]))
    with pytest.raises(ValueError, match="scoring part and the model disagree on weights"):
        load_model(path)
    save_model(probability_model, path)
    _edit_predictor(path, edit_meta=_set("threshold", 0.5))
    with pytest.raises(ValueError, match="disagree on threshold"):
        load_model(path)
    save_model(probability_model, path)
    assert load_model(path).threshold_ == probability_model.threshold_  # as written: agree


def test_repeated_column_names_are_refused_at_fit_not_at_load():
    """A context or item table with one name twice fitted and saved, then
    could not be loaded (a review of the load-time check)."""
    from svmcompare import GroupRankSVM

    X, y = make_norm_pairs(80, "l1", random_state=0)
    context = pd.DataFrame(np.ones((80, 2)), columns=["home", "home"])
    with pytest.raises(ValueError, match="the context repeats the column name 'home'"):
        SVMCompare(kernel="linear").fit(X, y, context=context)
    rng = np.random.default_rng(0)
    items = pd.DataFrame(rng.normal(size=(40, 3)), columns=["x", "x", "z"])
    with pytest.raises(ValueError, match="X repeats the column name 'x'"):
        GroupRankSVM(kernel="linear").fit(items, rng.integers(0, 3, 40),
                                          groups=np.repeat([0, 1], 20))
