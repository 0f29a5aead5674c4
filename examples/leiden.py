#!/usr/bin/env python3
"""Leiden community detection on an OpenCL device (GPU, or any CPU through PoCL): every
community certified connected, where Louvain's may not be.

    python examples/leiden.py                    # an R-MAT graph, then the karate club
    python examples/leiden.py path/to/graph.mtx  # any Matrix Market / METIS / SNAP file
"""
import sys

import networkx as nx
import numpy as np
import scipy.sparse as sp

import pyclmatch


def undirected(M):
    """The pattern of ``M + M.T`` without self-loops: an undirected graph, unit weights."""
    A = sp.csr_matrix(((abs(M) + abs(M).T) > 0).astype(np.float64))
    A.setdiag(0)
    A.eliminate_zeros()
    return A


def compare(name, A):
    """Louvain and Leiden side by side: Leiden's communities are connected (its certificate
    counts the components of every community on the device), Louvain's may be split."""
    lv = pyclmatch.louvain(A)
    ld = pyclmatch.leiden(A)
    print(f"{name}: n={A.shape[0]} m={A.nnz // 2} on {ld.device}")
    print(f"  louvain: {lv.n_communities} communities, Q = {lv.modularity:.4f}, "
          f"{lv.disconnected} disconnected")
    print(f"  leiden:  {ld.n_communities} communities, Q = {ld.modularity:.4f}, "
          f"{ld.disconnected} disconnected (certified), {ld.timings['total']:.3f} s")


def main():
    if len(sys.argv) > 1:
        compare(sys.argv[1], undirected(pyclmatch.read_graph(sys.argv[1], symmetrize=True)))
        return
    compare("R-MAT 2**12", undirected(pyclmatch.generators.kron(12)))
    G = nx.karate_club_graph()
    # the levels: each community of a level is a union of that level's refined communities
    r = pyclmatch.leiden(G, weight=None, return_levels=True, deterministic=True)
    for level, (coarse, fine) in enumerate(zip(r.levels, r.refined_levels)):
        print(f"karate club, level {level}: {coarse.max() + 1} communities from "
              f"{fine.max() + 1} refined ones")
    # the constant Potts model: communities denser than the resolution, no resolution limit
    r = pyclmatch.leiden(G, weight=None, quality="cpm", resolution=0.1, deterministic=True)
    print(f"karate club, CPM at density 0.1: {r.n_communities} communities, "
          f"H = {r.quality_value}")
    # networkx's own function, dispatched to pyclmatch's backend
    comms = nx.community.leiden_communities(G, backend="pyclmatch", seed=1)
    print(f"networkx leiden_communities (backend pyclmatch): {len(comms)} communities")


if __name__ == "__main__":
    main()
