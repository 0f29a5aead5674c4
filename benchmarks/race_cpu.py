#!/usr/bin/env python3
"""The host family raced against the device family on a CPU OpenCL device (PoCL): per graph,
medians of 5 whole calls (``res.timings["total"]``, scipy CSR in memory to verified answer,
default arguments) of

* ``auto``: ``maximum_matching(A)`` under the device's shipped profile
  (:func:`pyclmatch.bipartite.choice.device_profile`);
* ``race0``: the same profile with ``race_edges`` = ``--race-edges`` and ``host_edges`` = 8192
  (graphs above 8192 edges raced, none on the host alone);
* ``ppf``, ``host-hk``, ``apfb-wr-mt``: the families by name.

Ratios are to the best of the three families. Graphs: the shared files of at most 4e5
entries but facebook_combined (its host attempt takes seconds), Delaunay 2^13 and 2^14 and
the 150 x 150 grid with and without RCP, uniform 16384 (degree 3) and 8192 (degree 4), the
96 x 96 grid and kron-10. The worker is idle before every raced call.

``--host-hard`` adds facebook_combined; ``PYCLMATCH_RACE_NICE`` sets the worker's niceness.

    python3 benchmarks/race_cpu.py --device cpu     # (a table on stdout)
"""
import argparse
import os
import statistics
import sys

import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyclmatch  # noqa: E402
from pyclmatch import generators  # noqa: E402
from pyclmatch.bipartite import choice  # noqa: E402
import bench_small  # noqa: E402


def graphs(host_hard=False):
    out = [g for g in bench_small.shared_graphs(4e5)
           if host_hard or not g[0].startswith("facebook")]
    for n in (13, 14):
        g = generators.delaunay(n)
        out += [(f"delaunay-{n}", g), (f"delaunay-{n}-rcp", generators.permuted(g, seed=1))]
    g = generators.grid(150)
    out += [("grid-150", g), ("grid-150-rcp", generators.permuted(g, seed=1))]
    out += [("uniform-16384-d3", generators.uniform(1 << 14, 3)),
            ("uniform-8192-d4", generators.uniform(1 << 13, 4)),
            ("grid-96", generators.grid(96)), ("kron-10", generators.kron(10))]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--race-edges", type=int, default=1 << 18)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--host-hard", action="store_true",
                    help="include facebook_combined (host-hk alone takes seconds there)")
    a = ap.parse_args()
    h = pyclmatch.get_device(a.device)
    prof = choice.PROFILES[choice.profile_kind(h)]
    base = dict(prof)

    def call(A, alg, variant):
        prof.clear()
        prof.update(base)
        if variant:
            prof.update(variant)
        if alg == "auto" and prof.get("race_edges"):
            bench_small.worker_idle()
        r = pyclmatch.maximum_matching(A, algorithm=alg, device=h)
        return r.timings["total"], r.algorithm

    variants = {"auto": ("auto", None),
                "race0": ("auto", {"race_edges": a.race_edges, "host_edges": 8192}),
                "ppf": ("ppf", None), "host-hk": ("host-hk", None),
                "apfb-wr-mt": ("apfb-gpubfs-wr-mt", None)}
    print(f"# {h.label} ({choice.profile_kind(h)} profile); whole ms (ratio to the best of "
          f"ppf, host-hk, apfb-wr-mt), medians of {a.repeat}")
    print("graph nnz " + " ".join(variants))
    for name, A in graphs(a.host_hard):
        A = sp.csr_matrix(A)
        for alg, v in variants.values():
            call(A, alg, v)
        ts, win = {k: [] for k in variants}, {}
        for _ in range(a.repeat):
            for k, (alg, v) in variants.items():
                t, w = call(A, alg, v)
                ts[k].append(t)
                win.setdefault(k, set()).add(w)
        med = {k: statistics.median(v) * 1e3 for k, v in ts.items()}
        best = min(med[k] for k in ("ppf", "host-hk", "apfb-wr-mt"))
        print(f"{name:28s} {A.nnz:7d} " + " ".join(
            f"{k}={med[k]:.2f}({med[k] / best:.2f})" for k in variants),
            {k: sorted(win[k]) for k in ("auto", "race0")}, flush=True)
    prof.clear()
    prof.update(base)


if __name__ == "__main__":
    main()
