#!/usr/bin/env python3
"""Dulmage-Mendelsohn / block triangular form on the device beside maximum_matching alone and
the sequential host reference (issue 17's goals).

For each graph (square suite matrices from ``pyclmatch.generators``: the user's scipy CSR in
memory, default arguments, verification on): one warm-up call of each, then ``--repeat`` timed
calls; medians reported.

* ``btf_s``: the whole ``pyclmatch.dulmage_mendelsohn`` call (wall clock, as the user waits;
  ``block_triangular_form`` is this call plus a rank check, and refuses the suite's
  structurally singular Kronecker graphs); its phases (matching, coarse, scc, order, verify,
  download) and ``kernels_s`` (all device kernels) beside it;
* ``match_s``: the whole ``pyclmatch.maximum_matching`` call on the same matrix;
* ``host_s``: the sequential host reference of tests/dm_reference.py (scipy's
  maximum_bipartite_matching, alternating BFS, connected_components(strong), topological
  sort), run once (``--host-limit`` seconds at most, in a forked child); its decomposition is
  compared with the device's as sets.

    python benchmarks/bench_dmperm.py --device gpu --out benchmarks/results/dmperm-h100
    python benchmarks/bench_dmperm.py --device cpu --suite small --out /tmp/dmperm-pocl
"""
import argparse
import json
import os
import time

import common
from common import fmt, kernel_sum, med, run_meta, save_results, seconds, table
import pyclmatch
from pyclmatch import generators

common.use_tests()
from dm_reference import host_dmperm, canonical      # noqa: E402

GRAPHS = {"small": ["delaunay-10", "grid-64", "kron-10"],
          "medium": ["delaunay-17", "grid-512", "kron-17"],
          "reference": ["delaunay-21", "grid-2048", "kron-21"]}


def host_reference(A, limit):
    """(seconds, canonical decomposition) of the sequential host reference in a forked
    child, or (None, None) past ``limit`` seconds."""
    return common.finish_child(common.start_child(_host_dmperm, A), limit)


def _host_dmperm(A):
    return canonical(*host_dmperm(A))


def decompose(A, device):
    """The whole call: ``block_triangular_form`` is ``dulmage_mendelsohn`` plus a rank check,
    so the decomposition itself is timed (the suite's Kronecker graphs are singular)."""
    return pyclmatch.dulmage_mendelsohn(A, device=device)


def bench(name, A, args):
    dev = args.device
    decompose(A, dev)                                # warm-up: programs built
    pyclmatch.maximum_matching(A, device=dev)
    runs, walls, mwalls = [], [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        d = decompose(A, dev)
        walls.append(time.perf_counter() - t0)
        runs.append(d)
        t0 = time.perf_counter()
        pyclmatch.maximum_matching(A, device=dev)
        mwalls.append(time.perf_counter() - t0)
    d = runs[-1]
    phases = {k: med([r.timings.get(k, 0.0) for r in runs])
              for k in ("upload", "build", "init", "augment", "certificate", "coarse", "scc",
                        "order", "verify", "download", "readback")}
    kernels = med([kernel_sum(r.timings) for r in runs])
    host_s, ref = host_reference(A, args.host_limit) if args.host_limit > 0 else (None, None)
    same = None if ref is None else canonical(d.p, d.q, d.r, d.s, d.rr, d.cc) == ref
    row = {"graph": name, "rows": A.shape[0], "nnz": int(A.nnz),
           "structural_rank": d.structural_rank, "blocks": d.nblocks,
           "largest_block": max((b[1] - b[0] for b in d.square_blocks), default=0),
           "coarse": d.coarse_sizes(), "btf_s": med(walls), "match_s": med(mwalls),
           "kernels_s": kernels, "phases": phases, "host_s": host_s, "same_as_host": same,
           "counters": {k: d.counters.get(k) for k in (
               "reach_launches_cols", "reach_launches_rows", "scc_rounds", "trim_passes",
               "fwbw_launches", "color_passes", "backward_passes", "level_passes",
               "block_levels", "launches", "readbacks", "flag_reads", "flag_waits")}}
    row["btf_over_match"] = row["btf_s"] / row["match_s"] if row["match_s"] else None
    row["host_over_btf"] = host_s / row["btf_s"] if host_s else None
    print(json.dumps(row), flush=True)
    return row


COLUMNS = ["graph", "n", "nnz", "rank", "blocks", "largest", "BTF whole s", "matching whole s",
           "BTF / matching", "host ref s", "host / BTF", "same as host"]


def markdown(meta, rows):
    cells = [[r["graph"], r["rows"], r["nnz"], r["structural_rank"], r["blocks"],
              r["largest_block"], fmt(r["btf_s"]), fmt(r["match_s"]),
              fmt(r["btf_over_match"], 2), fmt(r["host_s"], 3), fmt(r["host_over_btf"], 1),
              fmt(r["same_as_host"])] for r in rows]
    out = common.heading("Dulmage-Mendelsohn / block triangular form", meta)
    out += table(COLUMNS, cells)
    out += ["", "Phases of the BTF call (medians, seconds), kernels = all device kernels:", ""]
    out += [f"- {r['graph']}: {seconds((k, v) for k, v in r['phases'].items() if v)}; "
            f"kernels {r['kernels_s']:.4f}; {r['counters']}" for r in rows]
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--suite", default="reference", choices=sorted(GRAPHS))
    ap.add_argument("--graphs", default=None, help="comma-separated suite graph names")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--host-limit", type=float, default=120.0,
                    help="seconds allowed to the host reference per graph (0: skip it)")
    ap.add_argument("--out", default=None, help="folder for results.json and results.md")
    args = ap.parse_args(argv)
    names = args.graphs.split(",") if args.graphs else GRAPHS[args.suite]
    size = next((s for s, g in GRAPHS.items() if names[0] in g), args.suite)
    handle = pyclmatch.get_device(args.device)
    meta = run_meta(handle, repeat=args.repeat)
    rows = [bench(nm, A, args) for nm, A in generators.suite(names, size=size)]
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        save_results(args.out, meta, rows, markdown)
    print(markdown(meta, rows))


if __name__ == "__main__":
    main()
