"""The rule proposed for ``algorithm="auto"`` (to be wired into api.py by the lead).

``choose_algorithm(handle, graph, init_deficiency=None)``:

* CPU devices (PoCL): ``"ppf"``. PPF finds all augmenting paths of an iteration inside one
  launch (persistent work-items, DFS per unmatched column), so it pays a read-back per
  iteration (a handful per graph) where APFB pays one per BFS level batch and G-PR one per
  batch of push-relabel launches: on 2-core PoCL (benchmarks/results/families-pocl-quick.md,
  10k-vertex graphs with and without RCP) it was the fastest family on 8 of 10 graphs and
  within 1.7x of the best (APFB, on power-law graphs that need almost no augmentation) on the
  others; on long-path graphs (chain, grid under RCP) it was 10-400x faster than APFB/G-PR.
* GPU and other devices: ``"gpr"`` (G-PR-Shr, adaptive k = 0.7, the best configuration of paper
  003, which beats the augmenting-path family there); but on graphs whose structure makes
  augmenting paths long (average degree below 2.2, e.g. chains and road-like meshes) the
  push-relabel launch count grows with the path length, so APFB (``"apfb-gpubfs-wr-ct"``)
  is chosen; tiny graphs (< 2,000 vertices) also use APFB (fewest launches).
  This GPU rule follows the papers and the launch counts measured on PoCL; it must be
  confirmed with ``benchmarks/bench_families.py --device gpu`` on the H100.

``init_deficiency`` (unmatched columns after the initial matching, if known) is accepted for
a later refinement; a deficiency of 0 makes every choice cost one certificate pass only.
"""
from ..engine.graphs import as_bipartite


def choose_algorithm(handle, graph, init_deficiency=None):
    g = as_bipartite(graph)
    nr, nc = g.shape
    if handle.is_cpu:
        return "ppf"
    n = nr + nc
    if n < 2000:
        return "apfb-gpubfs-wr-ct"
    avg_deg = g.nnz / max(min(nr, nc), 1)
    if avg_deg < 2.2:
        return "apfb-gpubfs-wr-ct"
    return "gpr"
