#!/usr/bin/env python3
"""Louvain community detection on an OpenCL device (GPU, or any CPU through PoCL).

    python examples/louvain.py                    # karate club + a planted partition
    python examples/louvain.py path/to/graph.mtx  # any Matrix Market / METIS / SNAP file
"""
import sys

import networkx as nx
import numpy as np

import pyclmatch


def main():
    if len(sys.argv) > 1:
        A = pyclmatch.read_graph(sys.argv[1], symmetrize=True)
        A.setdiag(0)
        A.eliminate_zeros()
        r = pyclmatch.louvain(A)
        print(f"{sys.argv[1]}: n={A.shape[0]} m={A.nnz // 2} -> {r.n_communities} communities, "
              f"modularity {r.modularity:.4f} in {r.timings['total']:.2f} s on {r.device}")
        return
    G = nx.karate_club_graph()
    r = pyclmatch.louvain(G, return_levels=True)
    print(f"karate club on {r.device}: {r.n_communities} communities, Q = {r.modularity:.4f} "
          f"(networkx recomputes {nx.community.modularity(G, r.communities):.4f})")
    for level, memb in enumerate(r.levels):
        print(f"  level {level}: {memb.max() + 1} communities")
    for c in r.communities:
        print("  ", sorted(c))
    # a planted partition: 8 blocks of 50 vertices, recovered exactly
    sizes = [50] * 8
    P = np.full((8, 8), 0.005) + 0.3 * np.eye(8)
    S = nx.stochastic_block_model(sizes, P.tolist(), seed=1)
    r = pyclmatch.louvain(S, deterministic=True)          # the same answer on every run and device
    planted = np.repeat(np.arange(8), sizes)
    same = len(set(zip(planted.tolist(), r.membership.tolist()))) == 8 == r.n_communities
    print(f"SBM: {r.n_communities} communities, Q = {r.modularity:.4f}, planted recovered: "
          f"{same}; timings: " + ", ".join(f"{k} {v * 1e3:.1f} ms"
                                          for k, v in sorted(r.timings.items())[:6]))


if __name__ == "__main__":
    main()
