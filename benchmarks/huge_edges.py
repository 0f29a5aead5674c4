#!/usr/bin/env python3
"""Past 2**31 edges: maximum_matching and weighted_matching (and optionally b_matching) on
generated graphs with more than 2**31-1 stored entries, so that every kernel runs on 64-bit
edge offsets (``offset_t`` = long, :func:`pyclmatch.engine.graphs.index_types`), from the
scipy CSR the user holds (at that size scipy stores int64 indices) to the verified answer.

Graphs (built with numpy in chunks on all cores; generation is timed apart):

* ``matching``: a uniform random bipartite graph, ``n = 2**scale`` rows and columns, ``d``
  (``--degree``, 17) entries per row drawn one in each of ``d`` equal column ranges (so the
  rows come sorted and without repeats); boolean data. scale 27: 2.28e9 entries.
* ``weighted``: a circulant graph, ``n = 2**scale`` vertices, each joined to ``i +- o`` (mod n)
  for ``--sym-degree/2`` (9) random offsets ``o``, with weights ``(0, 1]`` hashed from the
  vertex pair (symmetric, float64 with 53 random bits: a graph this size has ties in float32,
  which is why both precisions are run). scale 27: 2.42e9 directed edges.

Each call is timed whole (wall clock around the call, from the scipy object in memory,
verification on) beside ``timings["total"]``, the sum of the kernel times (``kernels_s``)
and every step. A small warm-up call with 64-bit offsets forced
(``PYCLMATCH_FORCE_OFFSET64``) builds the programs first, so the timed calls build nothing.

    # H100 (80 GB; host 128 GB), ~3-5 minutes with generation:
    python3 benchmarks/huge_edges.py --device gpu --out benchmarks/results/huge-edges-h100
    # tiny, on PoCL (64-bit offsets forced, as the huge graphs take them):
    python3 benchmarks/huge_edges.py --device cpu --scale 12 --force-offset64 \
        --out /tmp/huge-pocl
"""
import argparse
import concurrent.futures as cf
import gc
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import kernel_sum, run_meta, save_results              # noqa: E402
import pyclmatch                                                  # noqa: E402
from pyclmatch.engine.graphs import FORCE_OFFSET64_ENV, index_types  # noqa: E402

INDEX_MAX = np.iinfo(np.int32).max
CHUNK_ROWS = 1 << 20


def _chunks(n):
    return [(a, min(a + CHUNK_ROWS, n)) for a in range(0, n, CHUNK_ROWS)]


def _parallel(fn, n, threads):
    """fn(a, b) over row chunks on ``threads`` threads (numpy releases the GIL)."""
    with cf.ThreadPoolExecutor(threads) as ex:
        for f in [ex.submit(fn, a, b) for a, b in _chunks(n)]:
            f.result()


def uniform_bipartite(n, d, seed, threads):
    """n x n CSR, d entries per row, entry k of row i uniform in [k*s, (k+1)*s), s = n // d:
    sorted rows without repeats; int64 indices and offsets (scipy's choice above 2**31-1
    entries), boolean data."""
    s = n // d
    if s < 1:
        raise SystemExit(f"--degree {d} exceeds n = {n}")
    nnz = n * d
    indices = np.empty(nnz, np.int64)
    base = (np.arange(d, dtype=np.int64) * s)[None, :]
    seeds = np.random.SeedSequence(seed).spawn(len(_chunks(n)))

    def fill(a, b):
        rng = np.random.default_rng(seeds[a // CHUNK_ROWS])
        block = indices[a * d:b * d].reshape(b - a, d)
        block[:] = rng.integers(0, s, size=(b - a, d), dtype=np.int64)
        block += base
    _parallel(fill, n, threads)
    indptr = np.arange(n + 1, dtype=np.int64) * d
    data = np.ones(nnz, np.bool_)
    return sp.csr_matrix((data, indices, indptr), shape=(n, n), copy=False)


def _mix(z):
    """splitmix64's finalizer on a uint64 array, in place."""
    z += np.uint64(0x9E3779B97F4A7C15)
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


def circulant_weighted(n, half_degree, seed, threads):
    """Symmetric n x n CSR: i joined to (i +- o) mod n for ``half_degree`` distinct random
    offsets o in [1, n/2); rows sorted (each row is a rotation of the sorted offsets), weight
    of {i, j} = splitmix64(min * n + max) scaled to (0, 1] (53 random bits, symmetric)."""
    rng = np.random.default_rng(seed)
    if n < 4 * half_degree + 4:
        raise SystemExit(f"n = {n} is too small for {half_degree} offsets")
    offs = rng.choice(np.arange(1, (n - 1) // 2, dtype=np.int64), half_degree, replace=False)
    D = np.sort(np.concatenate([offs, n - offs]))
    d = D.size
    nnz = n * d
    indices = np.empty(nnz, np.int64)
    data = np.empty(nnz, np.float64)
    cols_d = np.arange(d, dtype=np.int64)[None, :]

    def fill(a, b):
        i = np.arange(a, b, dtype=np.int64)[:, None]
        c = i + D[None, :]
        c[c >= n] -= n
        # row i lists the wrapped neighbours (i + D_j - n, j >= t) first, then i + D_j, j < t
        t = np.searchsorted(D, n - i[:, 0])
        c = np.take_along_axis(c, (cols_d + t[:, None]) % d, axis=1)
        indices[a * d:b * d] = c.reshape(-1)
        key = np.minimum(i, c).astype(np.uint64)
        key *= np.uint64(n)
        key += np.maximum(i, c).astype(np.uint64)
        z = _mix(key.reshape(-1))
        z >>= np.uint64(11)
        z += np.uint64(1)
        np.multiply(z, 2.0 ** -53, out=data[a * d:b * d])
    _parallel(fill, n, threads)
    indptr = np.arange(n + 1, dtype=np.int64) * d
    return sp.csr_matrix((data, indices, indptr), shape=(n, n), copy=False)


def timed(call):
    t0 = time.perf_counter()
    res = call()
    whole = time.perf_counter() - t0
    return res, {"whole_s": whole, "total_s": res.timings.get("total"),
                 "kernels_s": kernel_sum(res.timings),
                 "steps": {k: v for k, v in res.timings.items()},
                 "counters": {k: v for k, v in res.counters.items()
                              if isinstance(v, (int, float, str))}}


def summary(row):
    """One log line of a timed call."""
    steps = ", ".join(f"{k} {v:.3f}" for k, v in row["steps"].items()
                      if not k.startswith("kernel:"))
    return (f"  {row['call']}: whole {row['whole_s']:.3f} s, kernels {row['kernels_s']:.3f} s, "
            f"{row['answer']}; steps {steps}")


def warm_up(handle, fams, b, log):
    """Build the programs of the huge calls (64-bit offsets) on a small graph."""
    old = os.environ.get(FORCE_OFFSET64_ENV)
    os.environ[FORCE_OFFSET64_ENV] = "1"
    try:
        t0 = time.perf_counter()
        if "matching" in fams:
            pyclmatch.maximum_matching(uniform_bipartite(1 << 12, 17, 1, 2), device=handle)
        S = circulant_weighted(1 << 12, 9, 1, 2)
        for p in ("float64", "float32"):
            if "weighted" in fams:
                pyclmatch.weighted_matching(S, device=handle, precision=p)
            if "bmatching" in fams:
                pyclmatch.b_matching(S, b, device=handle, precision=p)
        log(f"warm-up (programs with offset_t=long): {time.perf_counter() - t0:.1f} s")
    finally:
        if old is None:
            del os.environ[FORCE_OFFSET64_ENV]
        else:
            os.environ[FORCE_OFFSET64_ENV] = old


def release(handle):
    gc.collect()
    handle.trim_pool()


def markdown(meta, rows):
    out = [f"# pyclmatch past 2**31 edges: {meta['device']}", "",
           f"`{meta['command']}`", "",
           f"{meta['date']}, host {meta['host']}; offset type of the timed calls: "
           f"{meta['offset_t']}", "",
           "| call | graph | n | stored entries | generate s | whole s | total s | "
           "kernels s | upload s | answer |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['call']} | {r['graph']} | {r['n']} | {r['nnz']} | "
                   f"{r['generate_s']:.1f} | {r['whole_s']:.3f} | {r['total_s']:.3f} | "
                   f"{r['kernels_s']:.3f} | {r['steps'].get('upload', 0):.3f} | "
                   f"{r['answer']} |")
    out += ["", "whole: wall clock around the call from the scipy CSR in memory (verification "
            "on); total: the call's own timings['total']; kernels: the sum of every kernel's "
            "device time (intake, algorithm, verification). Steps per call in results.json.",
            ""]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--scale", type=int, default=27, help="n = 2**scale vertices (27)")
    ap.add_argument("--degree", type=int, default=17, help="entries per row (matching)")
    ap.add_argument("--sym-degree", type=int, default=18,
                    help="neighbours per vertex (weighted; even)")
    ap.add_argument("--families", default="matching,weighted",
                    help="comma-separated: matching, weighted, bmatching")
    ap.add_argument("--precisions", default="float64,float32")
    ap.add_argument("--b", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--force-offset64", action="store_true",
                    help="64-bit offsets at any size (tiny runs of the huge path)")
    args = ap.parse_args(argv)
    fams = args.families.split(",")
    if args.force_offset64:
        os.environ[FORCE_OFFSET64_ENV] = "1"
    handle = pyclmatch.get_device(args.device)
    n = 1 << args.scale
    os.makedirs(args.out, exist_ok=True)
    meta = run_meta(handle, global_mem=handle.global_mem)
    rows = []

    def log(msg):
        print(msg, flush=True)

    def save():
        save_results(args.out, meta, rows, markdown)

    warm_up(handle, fams, args.b, log)
    if "matching" in fams:
        t0 = time.perf_counter()
        A = uniform_bipartite(n, args.degree, args.seed, args.threads)
        gen = time.perf_counter() - t0
        meta["offset_t"] = index_types(A.nnz)[0][1]
        log(f"uniform bipartite {n} x {n}, {A.nnz} entries ({A.nnz / 2 ** 31:.2f} x 2**31), "
            f"indices {A.indices.dtype}: generated in {gen:.1f} s")
        res, row = timed(lambda: pyclmatch.maximum_matching(A, device=handle))
        row.update(call="maximum_matching", graph=f"uniform-bipartite-d{args.degree}", n=n,
                   nnz=int(A.nnz), generate_s=gen,
                   answer=f"cardinality {res.cardinality} ({res.algorithm})")
        log(summary(row))
        rows.append(row)
        save()
        del A, res
        release(handle)
    if set(fams) & {"weighted", "bmatching"}:
        t0 = time.perf_counter()
        S = circulant_weighted(n, args.sym_degree // 2, args.seed, args.threads)
        gen = time.perf_counter() - t0
        meta["offset_t"] = index_types(S.nnz)[0][1]
        log(f"circulant weighted {n} vertices, {S.nnz} directed edges "
            f"({S.nnz / 2 ** 31:.2f} x 2**31): generated in {gen:.1f} s")
        graph = f"circulant-d{args.sym_degree}"
        for p in args.precisions.split(","):
            calls = []
            if "weighted" in fams:
                calls.append(("weighted_matching", lambda: pyclmatch.weighted_matching(
                    S, device=handle, precision=p)))
            if "bmatching" in fams:
                calls.append((f"b_matching(b={args.b})", lambda: pyclmatch.b_matching(
                    S, args.b, device=handle, precision=p)))
            for name, call in calls:
                res, row = timed(call)
                row.update(call=f"{name} [{res.precision}]", graph=graph, n=n,
                           nnz=int(S.nnz), generate_s=gen,
                           answer=f"cardinality {res.cardinality}, weight {res.weight:.6f}")
                log(summary(row))
                rows.append(row)
                save()
                del res
                release(handle)
    log(f"wrote {args.out}/results.md")


if __name__ == "__main__":
    main()
