#!/usr/bin/env python3
"""Soak test: every family and variant, N verified runs each on one device.

Each row of the table is one family/variant (the eight augmenting-path variants at every
heavy-tier threshold, G-PR, PPF, the Suitor variants, b-Suitor, stable marriage, Louvain);
run ``i`` of a row takes graph class ``i mod K`` (power-law hubs, hubs, stars, complete
graphs, kron, rectangular, long paths, tiny, empty, ...) with seed ``i // K``, so that every
class is run again and again (a race shows as a rare failure on a graph that passed before).
Every answer is verified by the library (its device certificate) and again here, on the host,
against an independent check and, where one exists, a sequential reference:

* exact bipartite: a valid matching of the input whose cardinality is scipy's
  ``maximum_bipartite_matching``'s (and its König cover: ``verify_matching``);
* Suitor variants and b-Suitor: equal to the sequential greedy (b-)matching
  (``greedy_matching_sequential``, ``greedy_b_matching``);
* stable marriage: equal to sequential Gale-Shapley (the man-optimal solution is unique);
* Louvain: a partition of the vertices whose modularity, recomputed on the host, is the one
  reported and no lower than that of the singletons it starts from.

A failure is counted by kind (the exception's class, or ``wrong:<what>``), with the first few
cases (class, seed, parameters, message) kept to reproduce them. Writes ``results.json`` and
``results.md`` (command line, device, per row: runs, failures by kind, median whole-call and
device seconds) to ``--out``; exits 1 if anything failed.

    python benchmarks/soak.py --device cpu --n 100 --out benchmarks/results/soak-pocl
    python benchmarks/soak.py --device gpu --n 1000 --out soak-h100 --seconds-per-family 6
"""
import argparse
import collections
import datetime
import json
import os
import platform
import statistics
import sys
import time
import traceback

import numpy as np
import scipy.sparse as sp

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(_HERE, ".."), os.path.join(_HERE, "..", "tests")]

import pyclmatch                                                         # noqa: E402
from pyclmatch import generators                                         # noqa: E402
from pyclmatch.bipartite import INITS, verify_matching                   # noqa: E402
from pyclmatch.bipartite import algorithms as bipartite_algorithms       # noqa: E402
from pyclmatch.engine.graphs import as_bipartite                         # noqa: E402
from pyclmatch.weighted import ALGORITHMS as WEIGHTED_ALGORITHMS         # noqa: E402
from pyclmatch.weighted import greedy_b_matching                         # noqa: E402
from pyclmatch.weighted.marriage import (ALGORITHMS as MARRIAGE_ALGORITHMS,  # noqa: E402
                                         MarriageInstance, gale_shapley_sequential)
from pyclmatch.weighted.reference import greedy_matching_sequential     # noqa: E402
from bipartite_cases import (power_law, hubs, star, double_star, long_paths,  # noqa: E402
                             random_rect, scipy_cardinality, _csr)

#: heavy-tier thresholds of the augmenting-path rows (None: the device's default, 64 on GPUs
#: and off on CPU devices; -1: off); 0 makes every vertex with an edge heavy
HEAVY_THRESHOLDS = (-1, 0, 1, 4, 16, None)


class Failure(Exception):
    """A wrong answer found by the soak's own checks (kind: what was wrong)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def _check(ok, kind, message=""):
    if not ok:
        raise Failure(kind, message or kind)


# ------------------------------------------------------------------ graph classes (small)

def _complete(m, n):
    return _csr(*np.divmod(np.arange(m * n), n), (m, n))


def _tiny(seed):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    A = (rng.random((m, n)) < 0.6).astype(float)
    return sp.csr_matrix(A)


def _empty(seed):
    shapes = [(0, 0), (5, 0), (0, 5), (6, 4), (1, 1), (3, 7)]
    return sp.csr_matrix(shapes[seed % len(shapes)])


#: bipartite classes: name -> f(seed) -> scipy matrix (rectangular ones included)
BIPARTITE_CLASSES = {
    "power-law-hubs": lambda s: power_law(200 + 150 * (s % 8), 200 + 150 * (s % 8), 3.0, seed=s),
    "power-law-rect": lambda s: power_law(300 + 100 * (s % 5), 150, 4.0, exponent=1.8,
                                          seed=s),
    "hubs": lambda s: hubs(200 + 100 * (s % 7), hub_rows=1 + s % 6, hub_cols=1 + s % 5, seed=s),
    "star": lambda s: star(60 + s % 100, transpose=bool(s % 2)),
    "double-star": lambda s: double_star(40 + s % 120),
    "complete": lambda s: _complete(2 + s % 40, 2 + (s * 7) % 40),
    "kron": lambda s: generators.kron(7 + s % 4, seed=s),
    "rect-tall": lambda s: random_rect(200, 80, 2.0, s),
    "rect-wide": lambda s: random_rect(80, 200, 2.0, s),
    "long-paths": lambda s: long_paths(150 + 50 * (s % 10), seed=s),
    "tiny": _tiny,
    "empty": _empty,
}


def _symmetric(A, seed, ties):
    """Undirected weighted graph from the pattern of ``A`` (square part, no loops): float64
    weights, or small integers (many ties) when ``ties``."""
    n = max(A.shape)
    C = sp.coo_matrix(A)
    r, c = C.row, C.col
    keep = r != c
    r, c = np.minimum(r[keep], c[keep]), np.maximum(r[keep], c[keep])
    key = np.unique(r.astype(np.int64) * max(n, 1) + c)
    r, c = key // max(n, 1), key % max(n, 1)
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 4, r.size).astype(float) if ties else rng.random(r.size) + 0.01
    U = sp.coo_matrix((w, (r, c)), shape=(n, n))
    return (U + U.T).tocsr()


#: general-graph classes (weighted matching, b-matching, Louvain): name -> f(seed)
GENERAL_CLASSES = {
    "power-law-hubs": lambda s: _symmetric(power_law(300 + 100 * (s % 8), 300 + 100 * (s % 8),
                                                      3.0, seed=s), s, s % 2),
    "hubs": lambda s: _symmetric(hubs(200, hub_rows=1 + s % 6, seed=s), s, s % 2),
    "star": lambda s: _symmetric(star(80 + s % 50), s, s % 2),
    "complete": lambda s: _symmetric(_complete(2 + s % 20, 2 + s % 20), s, s % 2),
    "kron": lambda s: _symmetric(generators.kron(7 + s % 4, seed=s), s, s % 2),
    "uniform": lambda s: _symmetric(generators.uniform(300, 3, seed=s), s, s % 2),
    "tiny": lambda s: _symmetric(_tiny(s), s, s % 2),
    "empty": lambda s: sp.csr_matrix((1 + s % 6, 1 + s % 6)),
}


def _random_marriage(s):
    """Incomplete consistent lists from a power-law bipartite graph, random orders."""
    rng = np.random.default_rng(s)
    A = power_law(120, 100, 3.0, seed=s).tocsr()
    men = [list(rng.permutation(A.indices[A.indptr[i]:A.indptr[i + 1]])) for i in range(120)]
    At = A.tocsc()
    women = [list(rng.permutation(At.indices[At.indptr[j]:At.indptr[j + 1]]))
             for j in range(100)]
    return MarriageInstance(men, women, 120, 100)


MARRIAGE_CLASSES = {
    "easy": lambda s: pyclmatch.easy_instance(50 + s % 200, seed=s),
    "hard": lambda s: pyclmatch.hard_instance(5 + s % 40, seed=s),
    "incomplete-power-law": _random_marriage,
    "tiny": lambda s: pyclmatch.easy_instance(1 + s % 3, seed=s),
    "empty-lists": lambda s: MarriageInstance([[] for _ in range(1 + s % 4)],
                                              [[] for _ in range(2 + s % 3)]),
}


class Cases:
    """Graphs and references, each built once per (class, seed) and reused by every row."""

    def __init__(self, classes, reference, seeds):
        self.classes, self.reference, self.seeds = classes, reference, seeds
        self.names = list(classes)
        self._memo = {}

    def get(self, i):
        name = self.names[i % len(self.names)]
        seed = (i // len(self.names)) % self.seeds
        key = (name, seed)
        if key not in self._memo:
            g = self.classes[name](seed)
            self._memo[key] = (g, self.reference(g) if self.reference else None)
        return (name, seed) + self._memo[key]


# ------------------------------------------------------------------ rows: family/variant

def bipartite_rows(device):
    rows = []
    for alg in bipartite_algorithms():
        if alg.startswith("ap"):
            for hd in HEAVY_THRESHOLDS:
                label = "default" if hd is None else ("off" if hd < 0 else str(hd))
                rows.append(("bipartite", f"{alg} heavy={label}", _bipartite_run(alg, hd)))
        else:
            rows.append(("bipartite", alg, _bipartite_run(alg, None)))
    return rows


def _bipartite_run(alg, heavy_degree):
    def run(device, i, A, ref):
        params = {"init": INITS[i % len(INITS)]}
        if alg.startswith("ap"):
            params["heavy_degree"] = heavy_degree
            params["heavy_groups"] = (None, 1, 2)[(i // len(INITS)) % 3]
        res = pyclmatch.maximum_matching(A, algorithm=alg, device=device, **params)
        _check(res.verified, "unverified")
        g = as_bipartite(A)
        try:
            verify_matching(g, res.row_match, res.col_match, res.certificate)
        except Exception as exc:
            raise Failure("wrong:invalid-matching", str(exc))
        _check(res.cardinality == ref, "wrong:cardinality",
               f"cardinality {res.cardinality}, scipy {ref}")
        return res, params
    return run


def weighted_rows(device):
    return [("weighted", alg, _weighted_run(alg)) for alg in WEIGHTED_ALGORITHMS]


def _weighted_run(alg):
    def run(device, i, G, ref):
        res = pyclmatch.weighted_matching(G, algorithm=alg, device=device)
        _check(res.verified, "unverified")
        mate = np.asarray(res.mate)
        _check(mate.shape == ref.shape, "wrong:shape")
        bad = np.flatnonzero(mate != ref)
        _check(bad.size == 0, "wrong:not-greedy",
               f"{bad.size} vertices differ from the sequential greedy matching, first "
               f"{bad[:5].tolist()}")
        return res, {}
    return run


def b_rows(device):
    def run(device, i, G, ref):
        n = G.shape[0]
        rng = np.random.default_rng(i)
        b = int(rng.integers(1, 4)) if i % 2 else rng.integers(0, 4, n)
        res = pyclmatch.b_matching(G, b, device=device)
        _check(res.verified, "unverified")
        want = {tuple(e) for e in greedy_b_matching(G, b).tolist()}
        got = {tuple(e) for e in np.asarray(res.edges).tolist()}
        _check(got == want, "wrong:not-greedy",
               f"{len(got ^ want)} edges differ from the sequential greedy b-matching")
        return res, {"b": "int" if i % 2 else "per-vertex"}
    return [("b-matching", "b-suitor", run)]


def marriage_rows(device):
    def make(alg):
        def run(device, i, inst, ref):
            res = pyclmatch.stable_marriage(inst, algorithm=alg, device=device)
            _check(res.verified, "unverified")
            wife, husband = ref
            _check(np.array_equal(np.asarray(res.wife), wife)
                   and np.array_equal(np.asarray(res.husband), husband),
                   "wrong:not-man-optimal", "differs from sequential Gale-Shapley")
            return res, {}
        return run
    return [("stable-marriage", alg, make(alg)) for alg in MARRIAGE_ALGORITHMS]


LOUVAIN_VARIANTS = {"default": {}, "deterministic": {"deterministic": True},
                    "paper": {"threshold": "paper", "moves": "paper"}}


def louvain_rows(device):
    def make(kw):
        def run(device, i, G, ref):
            res = pyclmatch.louvain(G, device=device, seed=i, **kw)
            memb = np.asarray(res.membership)
            n = G.shape[0]
            _check(memb.shape == (n,), "wrong:shape")
            if n:
                _check(memb.min() >= 0 and memb.max() == res.n_communities - 1
                       and np.unique(memb).size == res.n_communities, "wrong:labels")
            q = pyclmatch.modularity(G, memb) if n else 0.0
            _check(abs(q - res.modularity) <= 1e-6 * max(1.0, abs(q)), "wrong:modularity",
                   f"host {q}, reported {res.modularity}")
            _check(q >= ref - 1e-9, "wrong:worse-than-singletons", f"Q {q} < {ref}")
            return res, {}
        return run
    return [("louvain", v, make(kw)) for v, kw in LOUVAIN_VARIANTS.items()]


def _singletons_q(G):
    n = G.shape[0]
    return pyclmatch.modularity(G, np.arange(n)) if n and G.nnz else 0.0


def _marriage_ref(inst):
    wife, husband = gale_shapley_sequential(inst)
    return np.asarray(wife), np.asarray(husband)


#: family -> (row builder, classes, reference)
FAMILIES = {
    "bipartite": (bipartite_rows, BIPARTITE_CLASSES, scipy_cardinality),
    "weighted": (weighted_rows, GENERAL_CLASSES, greedy_matching_sequential),
    "b-matching": (b_rows, GENERAL_CLASSES, None),
    "stable-marriage": (marriage_rows, MARRIAGE_CLASSES, _marriage_ref),
    "louvain": (louvain_rows, GENERAL_CLASSES, _singletons_q),
}


def _device_seconds(res):
    t = getattr(res, "timings", {}) or {}
    return sum(v for k, v in t.items() if k.startswith("kernel:"))


def soak_row(device, family, variant, run, cases, n, cap):
    """N runs of one row; returns its record."""
    fails = collections.Counter()
    examples = []
    whole, dev = [], []
    by_class = collections.Counter()
    t0 = time.perf_counter()
    done = 0
    for i in range(n):
        if cap and time.perf_counter() - t0 > cap:
            break
        cls, seed, g, ref = cases.get(i)
        params = {}
        try:
            res, params = run(device, i, g, ref)
            whole.append(res.timings.get("total", 0.0))
            dev.append(_device_seconds(res))
        except Exception as exc:       # every failure is counted, none stops the soak
            kind = exc.kind if isinstance(exc, Failure) else type(exc).__name__
            fails[kind] += 1
            by_class[cls] += 1
            if len(examples) < 5:
                examples.append({"run": i, "class": cls, "seed": seed, "params":
                                 {k: v for k, v in params.items()}, "kind": kind,
                                 "message": str(exc)[:500],
                                 "where": traceback.format_exc(limit=-2)[-800:]})
        done += 1
    return {"family": family, "variant": variant, "runs": done, "requested": n,
            "failures": sum(fails.values()), "by_kind": dict(fails),
            "failing_classes": dict(by_class), "examples": examples,
            "seconds": time.perf_counter() - t0,
            "median_whole_s": statistics.median(whole) if whole else None,
            "median_device_s": statistics.median(dev) if dev else None}


def write(out, meta, records):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as fh:
        json.dump({"meta": meta, "rows": records}, fh, indent=1, default=str)
    total = sum(r["runs"] for r in records)
    nfail = sum(r["failures"] for r in records)
    kinds = collections.Counter()
    for r in records:
        kinds.update(r["by_kind"])
    lines = [f"# Soak: {meta['device']}", "",
             f"`{meta['command']}`", "",
             f"{meta['date']}, {meta['host']}; {total} verified runs in {len(records)} rows, "
             f"{meta['seconds']:.0f} s; **{nfail} failures**"
             + (" (" + ", ".join(f"{k}: {v}" for k, v in kinds.most_common()) + ")"
                if nfail else ""), "",
             "Graph classes: " + "; ".join(f"{f}: {', '.join(c)}"
                                           for f, c in meta["classes"].items()), "",
             "| family | variant | runs | failures | by kind | median whole s | "
             "median device s |", "|---|---|---:|---:|---|---:|---:|"]
    for r in records:
        fmt = lambda v: "" if v is None else f"{v:.4f}"
        kinds_r = ", ".join(f"{k} {v}" for k, v in r["by_kind"].items())
        runs = f"{r['runs']}" + ("" if r["runs"] == r["requested"] else f" of {r['requested']}")
        lines.append(f"| {r['family']} | {r['variant']} | {runs} | {r['failures']} | "
                     f"{kinds_r} | {fmt(r['median_whole_s'])} | {fmt(r['median_device_s'])} |")
    fails = [e for r in records for e in r["examples"]]
    if fails:
        lines += ["", "## First failures", ""]
        for r in records:
            for e in r["examples"]:
                lines.append(f"- {r['family']} {r['variant']}: run {e['run']} {e['class']} "
                             f"seed {e['seed']} {e['params']}: {e['kind']}: {e['message']}")
    with open(os.path.join(out, "results.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="as pyclmatch.get_device (cpu, gpu, ...)")
    ap.add_argument("--n", type=int, default=100, help="runs per family/variant row")
    ap.add_argument("--out", default="soak-results")
    ap.add_argument("--seconds-per-family", type=float, default=0,
                    help="time cap of each family/variant row (0: none); a capped row "
                         "reports the runs it made")
    ap.add_argument("--families", default=",".join(FAMILIES),
                    help="comma-separated subset of " + ", ".join(FAMILIES))
    ap.add_argument("--variants", default="",
                    help="only rows whose variant contains one of these comma-separated words")
    ap.add_argument("--seeds", type=int, default=16,
                    help="distinct seeds per graph class (runs cycle through them)")
    args = ap.parse_args(argv)
    os.environ.setdefault("PYCLMATCH_TUNING", "off")   # the defaults, not a tuned cache
    device = pyclmatch.get_device(args.device)
    fams = [f.strip() for f in args.families.split(",") if f.strip()]
    unknown = set(fams) - set(FAMILIES)
    if unknown:
        ap.error(f"unknown families {sorted(unknown)}")
    words = [w for w in args.variants.split(",") if w]
    meta = {"command": " ".join([os.path.basename(sys.executable)] + sys.argv),
            "device": device.label, "host": platform.node(), "n": args.n,
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "seconds_per_family": args.seconds_per_family, "seeds": args.seeds,
            "classes": {f: list(FAMILIES[f][1]) for f in fams}}
    t0 = time.perf_counter()
    records = []
    for fam in fams:
        build, classes, reference = FAMILIES[fam]
        cases = Cases(classes, reference, args.seeds)
        for family, variant, run in build(device):
            if words and not any(w in variant for w in words):
                continue
            rec = soak_row(device, family, variant, run, cases, args.n,
                           args.seconds_per_family)
            records.append(rec)
            status = "ok" if not rec["failures"] else f"FAIL {rec['by_kind']}"
            print(f"{family:16s} {variant:34s} {rec['runs']:5d} runs {rec['seconds']:7.1f} s  "
                  f"{status}", flush=True)
            meta["seconds"] = time.perf_counter() - t0
            write(args.out, meta, records)        # after each row: a cut run keeps them
    meta["seconds"] = time.perf_counter() - t0
    write(args.out, meta, records)
    kinds = collections.Counter()
    for r in records:
        kinds.update(r["by_kind"])
    print(f"{sum(r['runs'] for r in records)} runs, {sum(kinds.values())} failures"
          + (": " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()) if kinds else ""))
    return 1 if kinds else 0


if __name__ == "__main__":
    sys.exit(main())
