"""The Suitor family (shared/papers/004): half-approximate weighted matching (GPU-Suitor and
locally-dominant), b-matching (b-Suitor) and stable marriage (McVitie-Wilson, Gale-Shapley),
one kernel family in ``kernels/suitor.cl.mako``: each vertex (man) proposes to its best partner
that would accept it, and a displaced suitor proposes again.

Usage::

    from pyclmatch.weighted import weighted_matching, b_matching, stable_marriage
    r = weighted_matching(A)                 # symmetric scipy.sparse, (u, v, w), networkx
    r.mate, r.weight, r.cardinality, r.timings, r.counters
    b_matching(A, 3).edges                   # (k, 2), u < v
    stable_marriage(men_prefs, women_prefs).wife

Results are exact, not just approximate: with ties broken by vertex ids (edge key
``(w, max(u, v), min(u, v))``, weights compared as float32), Suitor, every variant, LD and the
SMI instance of Lemma 3.1 all give the sequential greedy matching, b-Suitor the greedy
b-matching, and McVitie-Wilson / Gale-Shapley the man-optimal stable matching. ``verify=True``
(default) proves it on the host in O(m): a matching with no blocking edge (pair) is that
unique solution.

GPU-Suitor variants (Paper I, Section 4) in OpenCL 1.2 terms. A group of
``threads_per_vertex`` work-items is the paper's warp; OpenCL 1.2 has no sub-group barrier, so
the groups of one work-group step together through the work-group barriers of the local
max-reduction, and "synchronization" below means a global one (kernel boundary, host check):

* ``nosync`` (default): one launch; every work-group runs its chunks (``vertices_per_group``
  per group) until no vertex of it is pending; no load balancing.
* ``syncnolb``: one launch per recurrent iteration; each group keeps its pending vertices.
* ``synclb``: the first ``lb_rounds`` iterations pool the pending vertices of all groups and
  deal them out evenly (globally, and inside each work-group), then as ``syncnolb``.
* ``hybrid``: the load-balanced iterations first, then one ``nosync`` launch to finish.

Suitor state is one 32-bit word per vertex (the edge index of its suitor, so suitor id and
offer change together with one ``atomic_cmpxchg``; no locks, which would deadlock without
independent forward progress), plus the best offer's float bits raised by ``atomic_max``.
"""
from .graph import WeightedGraph, as_weighted_graph, with_random_weights
from .api import (weighted_matching, b_matching, prepare_graph, release_device_graph, WeightedMatchingResult,
                  BMatchingResult, ALGORITHMS)
from .suitor import SUITOR_VARIANTS
from .reference import (greedy_matching, greedy_matching_sequential, greedy_b_matching,
                        verify_weighted_matching, verify_b_matching, matching_weight)
from .marriage import (stable_marriage, StableMarriageResult, MarriageInstance, easy_instance,
                       hard_instance, smi_from_graph, gale_shapley_sequential,
                       verify_stable_marriage, verify_stable_marriage_device)

__all__ = ["weighted_matching", "b_matching", "stable_marriage", "prepare_graph", "release_device_graph",
           "WeightedGraph", "as_weighted_graph", "with_random_weights", "WeightedMatchingResult", "BMatchingResult",
           "StableMarriageResult", "MarriageInstance", "easy_instance", "hard_instance",
           "smi_from_graph", "greedy_matching", "greedy_matching_sequential",
           "greedy_b_matching", "gale_shapley_sequential", "verify_weighted_matching",
           "verify_b_matching", "verify_stable_marriage", "verify_stable_marriage_device",
           "matching_weight", "ALGORITHMS",
           "SUITOR_VARIANTS"]
