"""The rule behind ``maximum_matching(algorithm="auto")``.

``choose_algorithm(handle, graph)`` returns a registered algorithm name:

* GPUs, accelerators and other non-CPU devices: ``"apfb-gpubfs-wr-mt"`` (APFB driver,
  GPUBFS-WR kernel, one vertex per work-item). On the H100, reference suite with and without
  RCP (benchmarks/results/families-h100/results.md), it was the fastest family or within 1.25x of it
  on 8 of 8 graphs. G-PR (all three variants) was 1.3x to 12x slower on every graph: its
  launch count grows with the length of the augmenting paths (Delaunay meshes). PPF was best on
  kron-21 and grid-2048 by at most 1.25x but 2.7x to 6x slower on uniform random graphs and
  Delaunay meshes, where DFS paths outgrow the per-work-item stacks of thousands of
  concurrent searches.
* CPU devices (PoCL): ``"ppf"`` (parallel Pothen-Fan, paper 001, with the fairness of
  Pothen-Fan+). It finds all augmenting paths of an iteration inside one launch, so it pays a
  read-back per iteration (a handful per graph) where APFB pays one per batch of BFS levels.
  On 2-core PoCL, medium suite with and without RCP
  (benchmarks/results/families-pocl-medium/results.md), it was 2.7x to 7x faster than APFB on
  Delaunay meshes and grids and within 2x of the best family on every graph (the weak cases:
  uniform random and Kronecker graphs, 1.4x to 1.8x behind APFB/GPUBFS-WR/MT), which APFB, 7x
  behind on grid-512, is not.

``init_deficiency`` and graph statistics did not separate the cases better than the device
type on these suites (PPF's bad case, random expanders, and its good cases, meshes, have the
same degrees and initial deficiencies), so the rule uses the device type only; the signature
keeps the graph for a refined rule.
"""

#: the choice per device type
RULE = {"cpu": "ppf", "gpu": "apfb-gpubfs-wr-mt", "accelerator": "apfb-gpubfs-wr-mt",
        "other": "apfb-gpubfs-wr-mt"}


def choose_algorithm(handle, graph=None, init_deficiency=None):
    """The algorithm ``"auto"`` runs on ``handle`` (see the module docstring for the data)."""
    return RULE.get(handle.type, RULE["other"])
