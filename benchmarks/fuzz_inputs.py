"""Fuzz the readers of model files and CSV inputs (issue 31).

Each case mutates a real model file (bytes, zip structure, schema nodes, the
scoring part) or a real pairs / items CSV, then reads it the way users do:
``load_model``, ``load_predictor`` and the ``predict`` / ``evaluate`` /
``rank`` / ``fit`` commands.  A case passes when it ends normally or with a
``ValueError`` / ``TypeError`` / ``FileNotFoundError`` (the CLI: exit 0 or 2
with one line on stderr).  It fails on any other exception (a traceback), on
running longer than ``--timeout`` seconds, on the worker's memory growing by
more than ``--memory`` MB, or on code execution: schema mutations draw class
and function names from a list of gadgets (``os.system``, ``svmcompare.cli.main``,
...) and the worker replaces our own functions by recorders and watches for a
marker file.

Cases run in a worker process (one case at a time, regenerated from its seed),
watched by this process, which kills and restarts the worker on a hang or a
memory blow-up.

    python benchmarks/fuzz_inputs.py --cases 10000
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

KINDS = ("model bytes", "model zip", "schema nodes", "scoring part", "pairs csv",
         "items csv")

GADGET_NAMES = [("svmcompare.cli", "main"), ("svmcompare._lazy", "import_module"),
                ("os", "system"), ("builtins", "eval"), ("subprocess", "Popen"),
                ("svmcompare", "cli.main"), ("numpy", "load"), ("builtins", "getattr"),
                ("sklearn.linear_model._logistic", "LogisticRegression"),
                ("svmcompare.compare", "SVMCompare"), ("numpy", "float64"),
                ("builtins", "str"), ("builtins", "dict")]
LOADERS = ["DictNode", "ListNode", "TupleNode", "JsonNode", "ObjectNode", "NdArrayNode",
           "TypeNode", "MethodNode", "FunctionNode", "ConstructorFromReduceNode",
           "PartialNode", "OperatorFuncNode", "CachedNode", "BytesNode", "SetNode"]
ODD_CELLS = ["", " ", "nan", "NaN", "inf", "-inf", "1e400", "0x10", "True", "1,5", '"',
             "\u00e9\u00e8", "\x00", "-0", "1" * 400, "H", "None", "=1+1", "\t", "01"]


# -- the worker ----------------------------------------------------------------

def _base_files(folder):
    import numpy as np
    import pandas as pd

    from svmcompare import SVMCompare, save_model
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(60, "l1", random_state=0)
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                          "b_v": X[:, 1, 1], "y": y})
    frame.to_csv(folder / "pairs.csv", index=False)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, 60)
    ids = pd.DataFrame({"item_a": [f"t{k}" for k in a],
                        "item_b": [f"t{k}" for k in (a + rng.integers(1, 6, 60)) % 6],
                        "y": rng.choice([-1, 0, 1], 60)})
    ids.to_csv(folder / "ids.csv", index=False)
    pd.DataFrame({"id": [f"t{k}" for k in range(6)], "u": rng.normal(size=6),
                  "v": rng.normal(size=6)}).to_csv(folder / "items.csv", index=False)
    models = {
        "linear": SVMCompare(kernel="linear", probability=True, random_state=0).fit(
            frame.drop(columns="y"), y),
        "rbf": SVMCompare(C=1.0, gamma=0.5).fit(frame.drop(columns="y"), y),
    }
    for name, model in models.items():
        save_model(model, folder / f"{name}.skops")
    # Warm up (compiled code loaded from numba's cache) so that no case pays it.
    import contextlib
    import io

    from svmcompare.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        for args in (["fit", "ids.csv", "--items", "items.csv", "--kernel", "linear"],
                     ["fit", "pairs.csv", "--kernel", "linear"]):
            main([*args, "--model", str(folder / "warm.skops")])
        main(["evaluate", str(folder / "linear.skops"), "pairs.csv"])
        main(["rank", str(folder / "warm.skops"), "items.csv", "-o", "r.csv"])
    return {name: (folder / f"{name}.skops").read_bytes() for name in models}


def _zip_members(data):
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info.filename) for info in archive.infolist()}


def _zip(members, rng):
    import io
    import zipfile

    buffer = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if rng.random() < 0.1 else zipfile.ZIP_STORED
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _mutate_bytes(data, rng):
    data = bytearray(data)
    for _ in range(int(rng.integers(1, 20))):
        choice = rng.random()
        k = int(rng.integers(0, max(len(data), 1)))
        if choice < 0.5 and data:
            data[k] = int(rng.integers(0, 256))
        elif choice < 0.7:
            data[k:k] = bytes(rng.integers(0, 256, int(rng.integers(1, 64))).astype("uint8"))
        elif choice < 0.85:
            del data[k:k + int(rng.integers(1, 64))]
        else:
            data = data[:k]
    return bytes(data)


def _random_json(rng, depth=0):
    kind = int(rng.integers(0, 8 if depth < 3 else 6))
    if kind == 6:
        return [_random_json(rng, depth + 1) for _ in range(int(rng.integers(0, 3)))]
    if kind == 7:
        return {str(k): _random_json(rng, depth + 1) for k in range(int(rng.integers(0, 3)))}
    return [None, True, float(rng.normal()) * 10.0 ** int(rng.integers(-5, 300)),
            int(rng.integers(-10**9, 10**9)), "x" * int(rng.integers(0, 5)),
            float("nan")][kind]


def _nodes(value, out):
    if isinstance(value, dict):
        out.append(value)
        for child in value.values():
            _nodes(child, out)
    elif isinstance(value, list):
        for child in value:
            _nodes(child, out)
    return out


def _mutate_schema(schema, rng):
    nodes = _nodes(schema, [])
    for _ in range(int(rng.integers(1, 6))):
        node = nodes[int(rng.integers(0, len(nodes)))]
        choice = rng.random()
        if choice < 0.25:
            node["__module__"], node["__class__"] = GADGET_NAMES[
                int(rng.integers(0, len(GADGET_NAMES)))]
        elif choice < 0.45:
            node["__loader__"] = LOADERS[int(rng.integers(0, len(LOADERS)))]
        elif choice < 0.6 and node:
            key = list(node)[int(rng.integers(0, len(node)))]
            del node[key]
        elif choice < 0.8 and node:
            key = list(node)[int(rng.integers(0, len(node)))]
            node[key] = _random_json(rng)
        elif choice < 0.9:
            other = nodes[int(rng.integers(0, len(nodes)))]
            if "__id__" in other:
                node["__id__"] = other["__id__"]
        else:
            module, name = GADGET_NAMES[int(rng.integers(0, len(GADGET_NAMES)))]
            node["func"] = "system"
            node["key_types"] = {"__class__": "list", "__module__": "builtins",
                                 "__loader__": "ListNode",
                                 "content": [{"__class__": name, "__module__": module,
                                              "__loader__": "TypeNode"}]}
    return schema


def _mutate_scoring_part(members, rng):
    import io

    import numpy as np

    meta = json.loads(members["svmcompare-predictor.json"])
    nodes = _nodes(meta, [])
    for _ in range(int(rng.integers(1, 4))):
        node = nodes[int(rng.integers(0, len(nodes)))]
        if node:
            key = list(node)[int(rng.integers(0, len(node)))]
            node[key] = _random_json(rng)
    members["svmcompare-predictor.json"] = json.dumps(meta).encode()
    arrays = [n for n in members if n.startswith("svmcompare-predictor/")]
    if arrays and rng.random() < 0.6:
        name = arrays[int(rng.integers(0, len(arrays)))]
        value = np.load(io.BytesIO(members[name]))
        choice = rng.random()
        if choice < 0.4 and value.size:
            value = value.astype(float)
            value.flat[int(rng.integers(0, value.size))] = [np.nan, np.inf, -1e308, 0][
                int(rng.integers(0, 4))]
        elif choice < 0.7:
            value = np.resize(value, int(rng.integers(0, 5)))
        else:
            value = value.astype(["int8", "float32", "<U3", "complex128"][int(rng.integers(0, 4))])
        buffer = io.BytesIO()
        np.save(buffer, value)
        members[name] = buffer.getvalue()
    return members


def _mutate_csv(text, rng):
    import csv
    import io

    rows = list(csv.reader(io.StringIO(text)))
    for _ in range(int(rng.integers(1, 6))):
        choice = rng.random()
        r = int(rng.integers(0, len(rows)))
        if choice < 0.6 and rows[r]:
            rows[r][int(rng.integers(0, len(rows[r])))] = ODD_CELLS[
                int(rng.integers(0, len(ODD_CELLS)))]
        elif choice < 0.7:
            rows[r] = rows[r][:int(rng.integers(0, len(rows[r]) + 1))]
        elif choice < 0.8:
            rows.insert(r, [ODD_CELLS[int(rng.integers(0, len(ODD_CELLS)))]])
        elif choice < 0.9 and len(rows[0]) > 1:
            rows[0][int(rng.integers(0, len(rows[0])))] = rows[0][0]  # repeated name
        else:
            rows = rows[:max(1, r)]
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    text = out.getvalue()
    if rng.random() < 0.1:
        text = "\ufeff" + text.replace(",", ";")
    return text


def _run_case(seed, folder, base, main):
    """Build case ``seed`` and run it with the command line's ``main``;
    returns (kind, outcome) or raises."""
    import numpy as np

    from svmcompare import load_model
    from svmcompare.persistence import load_predictor

    rng = np.random.default_rng(seed)
    kind = KINDS[seed % len(KINDS)]
    model = folder / "case.skops"
    original = base["linear" if rng.random() < 0.7 else "rbf"]
    if kind == "model bytes":
        model.write_bytes(_mutate_bytes(original, rng))
    elif kind == "model zip":
        members = _zip_members(original)
        names = list(members)
        choice = rng.random()
        if choice < 0.3:
            members.pop(names[int(rng.integers(0, len(names)))])
        elif choice < 0.6:
            name = names[int(rng.integers(0, len(names)))]
            members[name] = _mutate_bytes(members[name], rng)
        else:
            members[["evil.py", "../x", "schema.json.bak", "1.npy"][int(rng.integers(0, 4))]] \
                = b"\0" * int(rng.integers(0, 100))
        model.write_bytes(_zip(members, rng))
    elif kind == "schema nodes":
        members = _zip_members(original)
        members["schema.json"] = json.dumps(
            _mutate_schema(json.loads(members["schema.json"]), rng)).encode()
        if rng.random() < 0.5:
            members = {k: v for k, v in members.items() if "predictor" not in k}
        model.write_bytes(_zip(members, rng))
    elif kind == "scoring part":
        members = _zip_members(base["linear"])
        model.write_bytes(_zip(_mutate_scoring_part(members, rng), rng))
    else:
        model.write_bytes(base["linear"])
    results = []
    if kind in ("pairs csv", "items csv"):
        source = "pairs.csv" if kind == "pairs csv" else ("ids.csv", "items.csv")[
            int(rng.integers(0, 2))]
        (folder / "case.csv").write_text(_mutate_csv((folder / source).read_text(), rng),
                                         encoding="utf-8", errors="surrogatepass")
        if source == "pairs.csv":
            commands = [["predict", str(model), str(folder / "case.csv"), "-o",
                         str(folder / "out.csv")],
                        ["evaluate", str(model), str(folder / "case.csv")]]
            if rng.random() < 0.2:
                commands.append(["fit", str(folder / "case.csv"), "--kernel", "linear",
                                 "--model", str(folder / "fit.skops")])
        elif source == "ids.csv":
            commands = [["fit", str(folder / "case.csv"), "--items", str(folder / "items.csv"),
                         "--kernel", "linear", "--model", str(folder / "fit.skops")]]
        else:
            commands = [["rank", str(model), str(folder / "case.csv"), "-o",
                         str(folder / "ranks.csv")]]
    else:
        for reader in (load_model, load_predictor):
            try:
                reader(model)
                results.append("ok")
            except (ValueError, TypeError, FileNotFoundError):
                results.append("refused")
        commands = [["predict", str(model), str(folder / "pairs.csv"), "-o",
                     str(folder / "out.csv")]]
    for command in commands:
        code = main(command)
        if code not in (0, 2):
            raise RuntimeError(f"exit code {code}")
        results.append({0: "ok", 2: "refused"}[code])
    return kind, "refused" if "refused" in results else "ok"


def _worker(connection):
    import svmcompare._lazy

    calls = []
    real_import = svmcompare._lazy.import_module

    def recorder(*args, **kwargs):
        calls.append(args)
        return {}

    def import_recorder(name, package=None):
        if str(name).startswith(".") and package == "svmcompare":
            return real_import(name, package)  # the package's own lazy exports
        return recorder(name, package)

    from svmcompare import SVMCompare, load_model  # noqa: F401  (lazy exports resolved first)

    with tempfile.TemporaryDirectory(prefix="svmcompare-fuzz-") as name:
        _serve(connection, Path(name), recorder, import_recorder, calls)


def _serve(connection, folder, recorder, import_recorder, calls):
    import contextlib
    import io

    import svmcompare._lazy
    import svmcompare.cli

    os.chdir(folder)
    base = _base_files(folder)
    cli_main = svmcompare.cli.main
    connection.send("ready")
    while True:
        seed = connection.recv()
        if seed is None:
            return
        marker = folder / "marker"
        # A gadget would call these: recorders while the file is read.
        svmcompare._lazy.import_module = import_recorder
        start = time.perf_counter()
        try:
            with contextlib.redirect_stderr(io.StringIO()), \
                    contextlib.redirect_stdout(io.StringIO()):
                svmcompare.cli.main = recorder
                try:
                    kind, outcome = _run_case(seed, folder, base, cli_main)
                finally:
                    svmcompare.cli.main = cli_main
            if calls or marker.exists():
                outcome = "CODE EXECUTION"
                calls.clear()
        except BaseException:  # noqa: BLE001 - the fuzzer reports every escape
            kind, outcome = KINDS[seed % len(KINDS)], "TRACEBACK " + \
                traceback.format_exc().strip().splitlines()[-1][:200]
            if os.environ.get("FUZZ_VERBOSE"):
                traceback.print_exc(file=sys.__stderr__)
        connection.send((seed, kind, outcome, time.perf_counter() - start))


# -- the watcher ---------------------------------------------------------------

def _rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return 0.0
    return 0.0


class Watcher:
    def __init__(self):
        self.context = mp.get_context("spawn")
        self.start()

    def start(self):
        self.parent, child = self.context.Pipe()
        self.process = self.context.Process(target=_worker, args=(child,), daemon=True)
        self.process.start()
        if not self.parent.poll(300) or self.parent.recv() != "ready":
            raise RuntimeError("the fuzz worker did not start")
        self.baseline = _rss_mb(self.process.pid)

    def run(self, seed, timeout, memory):
        self.parent.send(seed)
        start = time.perf_counter()
        peak = 0.0
        while not self.parent.poll(0.02):
            peak = max(peak, _rss_mb(self.process.pid) - self.baseline)
            elapsed = time.perf_counter() - start
            if elapsed > timeout or peak > memory or not self.process.is_alive():
                what = ("HANG" if elapsed > timeout else "MEMORY" if peak > memory
                        else "CRASH")
                self.process.kill()
                self.process.join()
                self.start()
                return seed, KINDS[seed % len(KINDS)], f"{what} ({elapsed:.1f} s, "\
                    f"+{peak:.0f} MB)", elapsed, peak
        seed, kind, outcome, elapsed = self.parent.recv()
        return seed, kind, outcome, elapsed, peak

    def close(self):
        self.parent.send(None)
        self.process.join(10)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per case")
    parser.add_argument("--memory", type=float, default=500.0, help="MB of growth per case")
    args = parser.parse_args(argv)
    from tqdm import tqdm

    watcher = Watcher()
    counts, failures, times = Counter(), [], []
    slowest, largest = 0.0, 0.0
    began = time.perf_counter()
    try:
        for seed in tqdm(range(args.first_seed, args.first_seed + args.cases), unit="case",
                         mininterval=5.0):
            seed, kind, outcome, elapsed, peak = watcher.run(seed, args.timeout, args.memory)
            counts[kind, outcome.split(" ")[0]] += 1
            slowest, largest = max(slowest, elapsed), max(largest, peak)
            times.append((elapsed, seed, kind))
            if outcome not in ("ok", "refused"):
                failures.append((seed, kind, outcome))
    finally:
        watcher.close()
    print(f"\n{args.cases} cases in {time.perf_counter() - began:.0f} s; slowest case "
          f"{slowest:.2f} s, largest memory growth {largest:.0f} MB")
    print(f"{'input':<14} {'outcome':<16} {'cases':>6}")
    for (kind, outcome), n in sorted(counts.items()):
        print(f"{kind:<14} {outcome:<16} {n:>6}")
    print("slowest cases: " + ", ".join(f"seed {seed} ({kind}) {elapsed:.2f} s"
                                        for elapsed, seed, kind in sorted(times)[-3:]))
    for seed, kind, outcome in failures[:30]:
        print(f"FAIL seed {seed} ({kind}): {outcome}")
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
