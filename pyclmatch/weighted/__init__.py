"""The Suitor family (shared/papers/004): half-approximate weighted matching (GPU-Suitor and
locally-dominant), b-matching (b-Suitor) and stable marriage (McVitie-Wilson, Gale-Shapley),
one kernel family in ``kernels/suitor.cl.mako``: each vertex (man) proposes to its best partner
that would accept it, and a displaced suitor proposes again.
"""
from .graph import WeightedGraph, as_weighted_graph, with_random_weights
from .api import (weighted_matching, b_matching, prepare_graph, release_device_graph, WeightedMatchingResult,
                  BMatchingResult, ALGORITHMS)
from .suitor import SUITOR_VARIANTS
from .reference import (greedy_matching, greedy_matching_sequential, greedy_b_matching,
                        verify_weighted_matching, verify_b_matching, matching_weight)
from .marriage import (stable_marriage, StableMarriageResult, MarriageInstance, easy_instance,
                       hard_instance, smi_from_graph, gale_shapley_sequential,
                       verify_stable_marriage)

__all__ = ["weighted_matching", "b_matching", "stable_marriage", "prepare_graph", "release_device_graph",
           "WeightedGraph", "as_weighted_graph", "with_random_weights", "WeightedMatchingResult", "BMatchingResult",
           "StableMarriageResult", "MarriageInstance", "easy_instance", "hard_instance",
           "smi_from_graph", "greedy_matching", "greedy_matching_sequential",
           "greedy_b_matching", "gale_shapley_sequential", "verify_weighted_matching",
           "verify_b_matching", "verify_stable_marriage", "matching_weight", "ALGORITHMS",
           "SUITOR_VARIANTS"]
