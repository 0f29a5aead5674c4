"""A fresh fuzz campaign: N random bad or odd inputs of the kinds of issue 34, drawn from a seed,
each run in a child process under a time limit, each outcome classified.

Run it from the repository root (PoCL compiles kernels on first use; expect minutes)::

    python3 tests/fuzz_campaign.py --seed 7 --n 400            # 90 s per case
    python3 tests/fuzz_campaign.py --seed 8 --n 100 --timeout 30 --json out.jsonl

Outcomes (one line per class, then the cases of every class but the first two):

- ``clear error``: an InputError naming an argument (``exc.argument`` set), or a
  DeviceError / HostMemoryError / DeviceMemoryError;
- ``answer``: the call returned (for maximum_matching, modularity and read_graph the answer is
  also checked against scipy / networkx: a mismatch is ``questionable answer``);
- ``crash`` (the child died; its signal), ``hang`` (past the limit);
- ``unclear error``: any other exception, or an InputError without an argument.

The cases are not the corpus's (tests/fuzz_cases.py): a different seed gives a different set.
Cases run in batches in one child process (tests/fuzz_harness.py); a crash or hang is pinned
to its case and the rest go on in a new child, so each case still gets its own limit.
"""
import argparse
import collections
import json
import os
import random
import sys
import tempfile

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SEED = int(os.environ.get("PYCLMATCH_CAMPAIGN_SEED", "0"))
N = int(os.environ.get("PYCLMATCH_CAMPAIGN_N", "0"))
ODD = [0, 1, -1, 2, 3, 32, 64, 0.5, 1.5, 64.0, -0.0, 1e-300, 5e-324, 1e308, float("nan"),
       float("inf"), -float("inf"), True, False, None, "", "1", "64", "auto", "host", b"x",
       [1], [5, 3, -1], [[1, 2]], (0, None, 32), {}, 1j, 2**31, 2**63, 2**64, 2**70,
       np.uint64(2**63), np.uint64(2**64 - 1), np.int64(-2**63), np.float16(3),
       np.array([1, 2]), np.int8(-1)]
PARAMS = {
    "maximum_matching": ["algorithm", "init", "verify", "progress", "work_group_size",
                         "ks_rounds", "heavy_degree", "heavy_groups", "one_group_edges",
                         "shape", "device"],
    "weighted_matching": ["algorithm", "verify", "precision", "work_group_size", "n",
                          "symmetrize", "device"],
    "b_matching": ["algorithm", "verify", "precision", "work_group_size", "batch_rounds",
                   "n", "symmetrize"],
    "louvain": ["resolution", "seed", "max_level", "threshold", "deterministic",
                "work_group_size", "move_buckets", "merge_buckets", "bin_limit", "subrounds",
                "moves", "one_group_edges", "verify", "return_levels", "weight"],
    "modularity": ["resolution", "weight"],
    "stable_marriage": ["algorithm", "verify", "n_men", "n_women", "work_group_size",
                        "batch_rounds"],
    "dulmage_mendelsohn": ["algorithm", "init", "verify"],
    "structural_rank": ["algorithm"],
    "maximum_bipartite_matching": ["perm_type"],
    "read_graph": ["format", "symmetrize", "return_labels"],
    "leiden": ["resolution", "quality", "theta", "iterations", "seed", "deterministic",
               "max_level", "verify", "weight"],
    "assignment": ["maximize", "full", "verify", "scaling"],
    "linear_sum_assignment": ["maximize"],
    "min_weight_full_bipartite_matching": ["maximize"],
    "maximum_product_transversal": ["scale", "verify"],
}
#: the families whose graph may be rectangular
RECTANGULAR = ("maximum_matching", "dulmage_mendelsohn", "structural_rank",
               "maximum_bipartite_matching", "assignment", "linear_sum_assignment",
               "min_weight_full_bipartite_matching", "maximum_product_transversal")
VALUES = [0.0, 1.0, 2.0, 0.5, 7.0, -1.0, 1e-300, 5e-324, 1e-310, 1e300, 1e308, float("nan"),
          float("inf")]


def _graph(rng, square):
    """A small odd graph: dense, CSR (maybe with duplicates or explicit zeros), COO, edge
    arrays, edge tuples, a bad object."""
    n = rng.choice([0, 1, 2, 3, 5, 8])
    k = n if square else rng.choice([0, 1, 3, 4])
    vals = VALUES if rng.random() < 0.5 else VALUES[:5]
    A = np.array([[rng.choice(vals) if rng.random() < 0.5 else 0.0 for _ in range(k)]
                  for _ in range(n)]).reshape(n, k)
    if square and rng.random() < 0.7:
        A = np.triu(A) + np.triu(A, 1).T
    form = rng.choice(["dense", "csr", "coo_dup", "csr_dup", "edges", "tuples", "f16",
                       "bad", "int", "bool"])
    if form == "dense":
        return A
    if form == "f16":
        return A.astype(np.float16)
    if form in ("int", "bool"):
        return np.clip(np.nan_to_num(A), -2**62, 2**62).astype(np.int64 if form == "int"
                                                                 else bool)
    r, c = np.nonzero(A)
    if form == "coo_dup" and r.size:
        return sp.coo_matrix((np.r_[A[r, c] * 3, -2 * A[r, c]], (np.r_[r, r], np.r_[c, c])),
                             shape=A.shape)
    if form == "csr_dup" and r.size:
        M = sp.csr_matrix(A)
        d = np.repeat(M.data, 2) * np.tile([2.0, -1.0], M.nnz)
        ip = M.indptr * 2
        return sp.csr_matrix((d, np.repeat(M.indices, 2), ip), shape=A.shape)
    if form == "edges":
        ids = r.astype(rng.choice([np.int64, np.uint64, np.float64, np.int8]))
        return (ids, c, A[r, c]) if rng.random() < 0.5 else (ids, c)
    if form == "tuples":
        return [(int(a), int(b), float(A[a, b])) for a, b in zip(r, c)]
    if form == "bad":
        return rng.choice([None, "abc", 3, [[1, 2], [3]], {}, np.ones((2, 2, 2)), b"x"])
    return sp.csr_matrix(A)


def _call(rng, i):
    """The i-th case: (label, zero-argument call)."""
    import pyclmatch as pm
    fam = rng.choice(sorted(PARAMS) + ["file", "file", "cli", "b", "membership"])
    if fam == "file":
        return _file_case(rng, i)
    if fam == "cli":
        return _cli_case(rng)
    if fam == "b":
        b = rng.choice(ODD + [10**9, 2**40, np.array([1, 2**40, 1]), np.array([1, -1, 1])])
        G = _graph(rng, True)
        return f"b_matching(graph, b={b!r})", lambda: pm.b_matching(G, b)
    if fam == "membership":
        G = _graph(rng, True)
        n = getattr(G, "shape", (3,))[0]
        mem = rng.choice([np.arange(n) % 2, np.full(n, 0.5), ["a"] * n, np.zeros(n + 1, int),
                          -np.ones(n, int), np.full(n, 2**63, np.uint64), None, list(range(n))])
        return "modularity(graph, membership)", lambda: _checked_modularity(G, mem)
    kw = {p: rng.choice(ODD) for p in rng.sample(PARAMS[fam], min(len(PARAMS[fam]),
                                                                  rng.choice([0, 1, 1, 2])))}
    graph = _graph(rng, fam not in RECTANGULAR)
    label = f"{fam}(graph, **{kw!r})"
    if fam == "stable_marriage":
        prefs = [[rng.randint(-1, 3) for _ in range(rng.randint(0, 3))]
                 for _ in range(rng.randint(0, 3))]
        return label, lambda: pm.stable_marriage(prefs, prefs, **kw)
    if fam == "read_graph":
        path = os.path.join(HERE, "data", "bad", "fuzz", "ok_general.mtx")
        return label, lambda: pm.read_graph(path, **kw)
    if fam == "maximum_matching":
        return label, lambda: _checked_matching(graph, kw)
    if fam == "modularity":
        return label, lambda: _checked_modularity(graph, np.zeros(getattr(graph, "shape",
                                                                          (0,))[0], int), **kw)
    if fam == "b_matching":
        return label, lambda: pm.b_matching(graph, 1, **kw)
    if fam in ("assignment", "linear_sum_assignment", "min_weight_full_bipartite_matching"):
        return label, lambda: _checked_assignment(fam, graph, kw)
    return label, lambda: getattr(pm, fam)(graph, **kw)


def _checked_assignment(fam, graph, kw):
    """The assignment family's answer; where scipy's solver takes the same input and
    arguments and answers, the objectives must agree."""
    import pyclmatch as pm
    from scipy.optimize import linear_sum_assignment
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching
    res = getattr(pm, fam)(graph, **kw)
    maximize = kw.get("maximize", False)
    if not isinstance(maximize, bool) or fam == "assignment" and (
            kw.get("full", True) is not True or set(kw) - {"maximize", "full", "verify"}):
        return res
    try:
        if fam == "linear_sum_assignment" or (fam == "assignment" and
                                               not sp.issparse(graph)):
            # (a dense matrix: every finite entry is an allowed pair, zeros included)
            C = np.asarray(graph, dtype=float)
            r, c = linear_sum_assignment(C, maximize=maximize)
            want = C[r, c].sum()
            got = res.objective if fam == "assignment" else C[res[0], res[1]].sum()
        else:
            M = sp.csr_matrix(graph, dtype=float)
            M.sum_duplicates()
            r, c = min_weight_full_bipartite_matching(M, maximize=maximize)
            want = M[r, c].sum()
            got = res.objective if fam == "assignment" else M[res[0], res[1]].sum()
    except Exception:         # (scipy refuses or cannot read it: nothing to compare)
        return res
    if not abs(got - want) <= 1e-9 * max(1.0, abs(want)):
        raise Questionable(f"objective {got}, scipy {want}")
    return res


def _checked_matching(graph, kw):
    from scipy.sparse.csgraph import maximum_bipartite_matching
    import pyclmatch as pm
    res = pm.maximum_matching(graph, **kw)
    if sp.issparse(graph) or isinstance(graph, np.ndarray) and graph.ndim == 2:
        M = sp.csr_matrix(graph) if sp.issparse(graph) else sp.csr_matrix(graph != 0)
        M.sum_duplicates()
        M = sp.csr_matrix((np.ones(M.nnz), M.indices, M.indptr), shape=M.shape)
        want = int((maximum_bipartite_matching(M) >= 0).sum()) if min(M.shape) else 0
        if res.cardinality != want:
            raise Questionable(f"cardinality {res.cardinality}, scipy {want}")
    return res


def _checked_modularity(G, mem, **kw):
    import networkx as nx
    import pyclmatch as pm
    q = pm.modularity(G, mem, **kw)
    if sp.issparse(G) and not kw:
        A = sp.csr_matrix(G, dtype=float)
        A.sum_duplicates()
        A.eliminate_zeros()
        if not A.nnz:          # (no edges: Q = 0, the convention pyclmatch documents)
            if q != 0.0:
                raise Questionable(f"modularity {q} of an edgeless graph, want 0.0")
            return q
        A.data = np.ldexp(A.data, -np.frexp(abs(A.data).max())[1])   # (exact, no overflow)
        groups = collections.defaultdict(set)
        for v, c in enumerate(np.asarray(mem).tolist()):
            groups[c].add(v)
        want = nx.community.modularity(nx.from_scipy_sparse_array(A), list(groups.values()))
        if not abs(q - want) <= 1e-6 * max(1, abs(want)):
            raise Questionable(f"modularity {q}, networkx {want}")
    return q


class Questionable(AssertionError):
    """An answer that disagrees with the reference."""


def _file_case(rng, i):
    import pyclmatch as pm
    folder = os.path.join(HERE, "data", "bad", "fuzz")
    src = rng.choice(sorted(f for f in os.listdir(folder) if f.startswith("ok_")))
    with open(os.path.join(folder, src), "rb") as f:
        body = bytearray(f.read())
    for _ in range(rng.randint(1, 5)):
        j = rng.randint(0, len(body))
        op = rng.choice(["ins", "del", "rep", "junk"])
        c = rng.choice(b"\x00\n\r \t%.-+eE0123456789x\xff")
        if op == "ins":
            body[j:j] = bytes([c])
        elif op == "del" and j < len(body):
            del body[j]
        elif op == "rep" and j < len(body):
            body[j] = c
        elif op == "junk":
            body[j:j] = bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 40)))
    name = f"case{i}{os.path.splitext(src)[1] if not src.endswith('.gz') else '.mtx'}"

    def call():
        d = tempfile.mkdtemp(prefix="pyclmatch-campaign-")
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(bytes(body))
        try:
            return pm.read_graph(path)
        finally:
            os.unlink(path)
            os.rmdir(d)
    return f"read_graph(mutated {src})", call


def _cli_case(rng):
    from fuzz_builders import run_cli
    good = os.path.join(HERE, "data", "bad", "fuzz", "ok_general.mtx")
    cmd = rng.choice(["match", "dmperm", "bench", "report", "devices"])
    opts = {"match": ["--algorithm", "--init", "--device"], "dmperm": ["--algorithm", "--device"],
            "bench": ["--suite", "--graphs", "--repeat", "--memory-limit", "--algorithms"],
            "report": [], "devices": []}[cmd]
    argv = [cmd]
    if cmd in ("match", "dmperm", "report"):
        argv.append(rng.choice([good, HERE, "/nonexistent", os.devnull]))
    if cmd == "bench":
        argv += ["--graphs", "grid-64", "--repeat", "1", "--no-progress", "--out", "@tmp"]
    for o in rng.sample(opts, min(len(opts), rng.randint(0, 2))):
        argv += [o, str(rng.choice(ODD))]

    def call():
        rc, out, err = run_cli([tempfile.mkdtemp(prefix="pyclmatch-campaign-")
                                if x == "@tmp" else x for x in argv])
        lines = [ln for ln in err.splitlines() if ln.strip()]
        if rc == 2 and lines and ": error: " in lines[-1] and "Traceback" not in err:
            from pyclmatch import InputError
            raise InputError(lines[-1], argument="argv")     # a clear CLI error
        if rc not in (0, 1):
            raise RuntimeError(f"exit status {rc}: {err[-200:]}")
        return rc
    return f"pyclmatch {' '.join(argv)}", call


def case_table():
    """The campaign's cases (from $PYCLMATCH_CAMPAIGN_SEED and _N), as the harness wants."""
    from fuzz_cases import Case, ok
    rng = random.Random(SEED)
    table = {}
    for i in range(N):
        label, call = _call(rng, i)
        table[f"{i:05d} {label}"[:300].replace("\n", " ")] = Case(f"{i:05d}", "campaign",
                                                                  call, ok())
    return table


def classify(out):
    k = out["kind"]
    if k in ("crash", "hang", "ok"):
        return {"ok": "answer"}[k] if k == "ok" else k
    if "Questionable" in out["mro"]:
        return "questionable answer"
    if "InputError" in out["mro"]:
        return "clear error" if out["argument"] else "unclear error"
    if set(out["mro"]) & {"DeviceError", "DeviceMemoryError", "HostMemoryError"}:
        return "clear error"
    return "unclear error"


def main(argv=None):
    from fuzz_harness import run_cases
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--timeout", type=float, default=90.0)
    p.add_argument("--json", help="write every outcome to this JSON-lines file")
    a = p.parse_args(argv)
    os.environ["PYCLMATCH_CAMPAIGN_SEED"], os.environ["PYCLMATCH_CAMPAIGN_N"] = \
        str(a.seed), str(a.n)
    global SEED, N
    SEED, N = a.seed, a.n
    ids = list(case_table())
    got = run_cases("fuzz_campaign", ids, timeout=a.timeout)
    by = collections.defaultdict(list)
    for i in ids:
        by[classify(got[i])].append(i)
    print(f"campaign seed {a.seed}: {len(ids)} cases")
    for k in ("clear error", "answer", "crash", "hang", "questionable answer", "unclear error"):
        print(f"  {k:<20} {len(by[k])}")
    for k in ("crash", "hang", "questionable answer", "unclear error"):
        for i in by[k]:
            o = got[i]
            print(f"{k}: {i}\n    {o.get('cls', '')} {o.get('msg', o.get('signal', ''))!s:.200}")
    if a.json:
        with open(a.json, "w") as f:
            for i in ids:
                f.write(json.dumps(dict(got[i], case=i, outcome=classify(got[i])),
                                   default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
