#!/usr/bin/env python3
"""networkx code on an OpenCL device through pyclmatch's networkx backend: the same calls,
with ``backend="pyclmatch"`` (or ``NETWORKX_BACKEND_PRIORITY=pyclmatch`` for all of them).

    python3 examples/networkx_backend.py [--device cpu|gpu|...]
"""
import argparse
import time

import networkx as nx

import pyclmatch
from pyclmatch import nxbackend


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    args = ap.parse_args()
    if "pyclmatch" not in nx.utils.backends.backends:
        raise SystemExit("install the package first (pip install -e .): networkx finds the "
                         "backend through its entry points")
    nx.config.warnings_to_ignore.add("cache")              # (reusing conversions is intended)
    G = nx.grid_2d_graph(150, 150)                         # 44,700 edges, tuple labels
    t = time.perf_counter()
    parts = nx.community.louvain_communities(G, backend="pyclmatch", seed=1,
                                             device=args.device)
    t_dev = time.perf_counter() - t
    print(f"louvain_communities: {len(parts)} communities, Q = "
          f"{nx.community.modularity(G, parts):.4f}, {t_dev:.3f} s (conversion and the first "
          f"call's OpenCL program builds included)")
    g = nxbackend.from_networkx(G)                         # convert once, reuse
    t = time.perf_counter()
    nx.community.louvain_communities(g, backend="pyclmatch", seed=1, device=args.device)
    print(f"  on the converted graph: {time.perf_counter() - t:.3f} s")

    B = nx.bipartite.random_graph(2000, 2000, 0.002, seed=1)
    top = {u for u, d in B.nodes(data=True) if d["bipartite"] == 0}
    M = nx.bipartite.maximum_matching(B, top_nodes=top, backend="pyclmatch",
                                      device=args.device)
    cover = nx.bipartite.to_vertex_cover(B, M, top_nodes=top, backend="pyclmatch",
                                         device=args.device)
    print(f"maximum_matching: {len(M) // 2} pairs; König cover of {len(cover)} nodes")
    assert len(cover) == len(M) // 2
    # results in networkx's shapes from pyclmatch's own calls
    res = pyclmatch.louvain(G, device=args.device)
    assert pyclmatch.community_sets(res) == res.communities


if __name__ == "__main__":
    main()
