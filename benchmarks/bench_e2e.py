#!/usr/bin/env python3
"""End to end: the whole call from the user's object in memory, beside the device time and a
CPU peer, for every family, side by side in one run (issue 13's table).

Input per graph of the reference suite: the canonical scipy CSR that ``pyclmatch.generators``
returns (the user's object), default arguments (verification on). For each family a warm-up
call (programs built, verified), then ``--repeat`` timed calls; medians are reported.

* ``whole_s``: wall clock around the call, as the user waits (``timings["total"]`` beside it);
* ``device_s``: the family's algorithm on the device (kernel times of its phases: initial
  matching + augmentation for maximum_matching; the matching kernels for Suitor; every kernel
  for Louvain), ``kernels_s``: every kernel of the call (intake and verification included);
* ``bound_s``: device time + the input's bytes at the pageable (7 GB/s) and pinned (50 GB/s)
  upload rates measured on the H100 host (benchmarks/results/transfer-h100.md);
* peers: scipy's ``maximum_bipartite_matching`` (forked child, concurrently, with a time
  limit), NetworKit's SuitorMatcher / BSuitorMatcher / PLM on all cores (graph build not
  counted).

    python benchmarks/bench_e2e.py --device gpu --out benchmarks/results/e2e-h100
    python benchmarks/bench_e2e.py --device cpu --suite small --out benchmarks/results/e2e-pocl
"""
import argparse
import itertools
import os
import time

import common
from common import (fmt, kernel_sum, log, med, ratio, run_meta, save_results, seconds,
                    shared_graphs, symmetric_pattern, table, time_nk)
import pyclmatch
from pyclmatch import generators
from pyclmatch.weighted.graph import with_random_weights

PAGEABLE_BPS, PINNED_BPS = 7e9, 50e9
FAMILIES = ("matching", "weighted", "bmatching", "louvain", "marriage", "dmperm")


def scipy_matching(A, timeout):
    """scipy in a forked child (its own core), so a graph it cannot finish in ``timeout``
    seconds is reported as such; returns a function that waits for the answer."""
    job = common.start_scipy(A)

    def wait():
        sec, card = common.finish_child(job, timeout)
        if sec is None:
            return {"time_s": None, "timeout_s": timeout}
        return {"time_s": sec, "cardinality": card}
    return wait


def nk_graph(nk, S, weighted):
    """NetworKit's graph of the symmetric ``S`` (its upper triangle)."""
    import scipy.sparse as sp
    U = sp.triu(S, 1).tocoo()
    return common.nk_graph(nk, S.shape[0], U.row, U.col, U.data if weighted else None)


def timed(call, repeat, device_phases):
    """Warm-up, then ``repeat`` calls: medians of the wall clock, timings['total'], the
    family's device time and every kernel's."""
    res = call()
    rows = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = call()
        wall = time.perf_counter() - t0
        rows.append((wall, res.timings.get("total", wall), kernel_sum(res.timings, device_phases),
                     kernel_sum(res.timings)))
    cols = list(zip(*rows))
    steps = common.wall_steps(res.timings)
    return res, {"whole_s": med(cols[0]), "total_s": med(cols[1]), "device_s": med(cols[2]),
                 "kernels_s": med(cols[3]), "last_steps": steps}


def bound(device_s, nbytes):
    return {"input_bytes": int(nbytes), "bound_pageable_s": device_s + nbytes / PAGEABLE_BPS,
            "bound_pinned_s": device_s + nbytes / PINNED_BPS}


def csr_bytes(A, data=False):
    return A.indptr.nbytes + A.indices.nbytes + (A.data.nbytes if data else 0)


def bench_matching(name, A, args, log):
    # (the unsorted copy is the same graph as its -rcp row: scipy runs once)
    wait = scipy_matching(A, args.scipy_timeout) if args.scipy and \
        not name.endswith("-unsorted") else None
    res, row = timed(lambda: pyclmatch.maximum_matching(A, device=args.device), args.repeat,
                     ("init", "bfs", "alternate", "fixmatching", "gpr", "ppf", "complete",
                      "relabel", "push", "shrink"))
    row.update(bound(row["device_s"], csr_bytes(A)), algorithm=res.algorithm,
               cardinality=res.cardinality)
    if wait:
        row["scipy"] = wait()
    log(f"  matching {name}: whole {row['whole_s']:.4f} s, device {row['device_s']:.4f} s, "
        f"bound(7GB/s) {row['bound_pageable_s']:.4f} s, scipy {row.get('scipy')}")
    return row


def bench_weighted(name, S, args, nk, log, b=None):
    W = with_random_weights(S, seed=0).csr       # the user's symmetric float64 CSR
    if b is None:
        call = lambda: pyclmatch.weighted_matching(W, device=args.device)      # noqa: E731
        fam = "weighted"
    else:
        call = lambda: pyclmatch.b_matching(W, b, device=args.device)         # noqa: E731
        fam = "bmatching"
    res, row = timed(call, args.repeat, ("match", "suitor", "bsuitor", "propose", "accept"))
    row.update(bound(row["device_s"], csr_bytes(W, data=True)))
    if nk is not None:
        G = nk_graph(nk, W, True)
        if b is None:
            row["networkit_s"] = time_nk(lambda: nk.matching.SuitorMatcher(G, False, True),
                                         args.repeat)
        else:
            row["networkit_s"] = time_nk(lambda: nk.matching.BSuitorMatcher(G, b), 1)
    log(f"  {fam} {name}: whole {row['whole_s']:.4f} s, device {row['device_s']:.4f} s, "
        f"networkit {row.get('networkit_s')}")
    return row


def bench_louvain(name, S, args, nk, log):
    res, row = timed(lambda: pyclmatch.louvain(S, device=args.device), args.repeat, None)
    row.update(bound(row["kernels_s"], csr_bytes(S, data=True)), modularity=res.modularity)
    if nk is not None:
        G = nk_graph(nk, S, False)
        row["networkit_s"] = time_nk(lambda: nk.community.PLM(G, refine=False), args.repeat)
    log(f"  louvain {name}: whole {row['whole_s']:.4f} s, Q {res.modularity:.4f}, "
        f"networkit {row.get('networkit_s')}")
    return row


def bench_dmperm(name, A, args, log):
    res, row = timed(lambda: pyclmatch.dulmage_mendelsohn(A, device=args.device), args.repeat,
                     None)
    row.update(bound(row["kernels_s"], csr_bytes(A)), structural_rank=res.structural_rank)
    log(f"  dmperm {name}: whole {row['whole_s']:.4f} s")
    return row


def bench_marriage(n, args, log):
    t0 = time.perf_counter()
    inst = pyclmatch.easy_instance(n)
    gen = time.perf_counter() - t0
    res, row = timed(lambda: pyclmatch.stable_marriage(inst, device=args.device), args.repeat,
                     None)
    nbytes = sum(getattr(inst, f).nbytes for f in ("mptr", "mlist", "wptr", "wlist")
                 if hasattr(inst, f))
    row.update(bound(row["kernels_s"], nbytes), n=n, easy_instance_s=gen)
    log(f"  marriage n={n}: whole {row['whole_s']:.4f} s (easy_instance {gen:.1f} s)")
    return row


COLUMNS = ["family", "graph", "whole call s", "device s", "all kernels s", "bound 7 GB/s",
           "whole / bound", "bound 50 GB/s", "whole / bound50", "peer", "peer s", "peer / whole"]


def peer(r):
    """(name, seconds) of the row's CPU peer: scipy (or its time limit) or NetworKit."""
    if r.get("scipy"):
        ps = r["scipy"].get("time_s")
        return ("scipy" if ps is not None else f"scipy (> {r['scipy'].get('timeout_s')} s)"), ps
    if "networkit_s" in r:
        return "NetworKit", r["networkit_s"]
    return "-", None


def cells(r):
    name, ps = peer(r)
    whole = r["whole_s"]
    return [r["family"], r["graph"], fmt(whole), fmt(r["device_s"]), fmt(r["kernels_s"]),
            fmt(r["bound_pageable_s"]), fmt(ratio(whole, r["bound_pageable_s"]), 2),
            fmt(r["bound_pinned_s"]), fmt(ratio(whole, r["bound_pinned_s"]), 2),
            name, fmt(ps, 3), fmt(ratio(ps, whole), 1)]


def markdown(meta, rows):
    out = common.heading("End to end (whole call) vs device time and CPU peers", meta)
    out += table(COLUMNS, [cells(r) for r in rows])
    out += ["", "Host steps of the last call of each row (seconds):", ""]
    out += [f"- {r['family']} {r['graph']}: {seconds(sorted(r['last_steps'].items()))}"
            for r in rows]
    return "\n".join(out) + "\n"


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--suite", default="reference", help="small | medium | reference")
    ap.add_argument("--graphs", default=None, help="comma-separated suite graph names")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--rcp", action="store_true", help="matching also on the permuted graphs")
    ap.add_argument("--unsorted", action="store_true",
                    help="with --rcp: also the permuted graph with unsorted lists, as "
                         "scipy's indexing leaves them (sorted on the device)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--b", type=int, default=3)
    ap.add_argument("--marriage-n", type=int, default=0, help="easy instance size (0: skip)")
    ap.add_argument("--no-scipy", dest="scipy", action="store_false")
    ap.add_argument("--scipy-timeout", type=float, default=120.0)
    ap.add_argument("--no-networkit", dest="networkit", action="store_false")
    ap.add_argument("--shared", default="none",
                    help="also the files of shared/data/graphs: 'all', 'none' or file names")
    ap.add_argument("--no-suite", dest="suite_graphs", action="store_false")
    ap.add_argument("--out", required=True)
    return ap.parse_args(argv)


def matching_inputs(name, A, args):
    """The graph, and with --rcp its permuted copies (unsorted as scipy leaves them, and
    sorted: the canonical CSR the user holds)."""
    todo = [(name, A)]
    if args.rcp:
        P = generators.permuted(A)
        if args.unsorted:
            todo.append((name + "-rcp-unsorted", P.copy()))
        P.sort_indices()
        todo.append((name + "-rcp", P))
    return todo


def bench_graph(name, A, args, fams, nk, add):
    """Every chosen family on one graph; ``add(row, family, graph)`` records a row."""
    log(f"{name}: {A.shape[0]} x {A.shape[1]}, {A.nnz} entries")
    if "matching" in fams:
        for nm, M in matching_inputs(name, A, args):
            add(bench_matching(nm, M, args, log), "matching", nm)
    if "dmperm" in fams:
        add(bench_dmperm(name, A, args, log), "dulmage_mendelsohn", name)
    if A.shape[0] != A.shape[1]:
        return
    S = symmetric_pattern(A) if set(fams) & {"weighted", "bmatching", "louvain"} else None
    if "weighted" in fams:
        add(bench_weighted(name, S, args, nk, log), "weighted", name)
    if "bmatching" in fams:
        add(bench_weighted(name, S, args, nk, log, b=args.b), f"b_matching(b={args.b})", name)
    if "louvain" in fams:
        add(bench_louvain(name, S, args, nk, log), "louvain", name)


def main(argv=None):
    args = parse_args(argv)
    fams = args.families.split(",")
    nk = common.networkit() if args.networkit else None
    handle = pyclmatch.get_device(args.device)
    args.device = handle
    os.makedirs(args.out, exist_ok=True)
    meta = run_meta(handle, repeat=args.repeat,
                    networkit=getattr(nk, "__version__", None) if nk else None)
    rows = []

    def add(row, family, graph):     # saved after every row: a run cut short keeps its rows
        rows.append(dict(row, family=family, graph=graph))
        save_results(args.out, meta, rows, markdown)

    names = args.graphs.split(",") if args.graphs else None
    graphs = generators.suite(names, size=args.suite) if args.suite_graphs else []
    if args.shared != "none":
        graphs = itertools.chain(graphs, shared_graphs(args.shared, required=True))
    for name, A in graphs:
        bench_graph(name, A, args, fams, nk, add)
    if "marriage" in fams and args.marriage_n:
        add(bench_marriage(args.marriage_n, args, log), "stable_marriage",
            f"easy n={args.marriage_n}")
    save_results(args.out, meta, rows, markdown)
    print(markdown(meta, rows))


if __name__ == "__main__":
    main()
