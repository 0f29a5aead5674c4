"""Weighted matchings of general graphs and stable marriage: the Suitor family
(shared/papers/004). :func:`weighted_matching` (GPU-Suitor and its variants, locally
dominant), :func:`b_matching` (b-Suitor) and :func:`stable_marriage` (McVitie-Wilson,
Gale-Shapley) each return the unique greedy (man-optimal) answer, checked on the device by
default. The variants and the design are described in the docs (weighted matching).

Examples
--------
>>> import numpy as np
>>> from pyclmatch.weighted import weighted_matching
>>> weighted_matching((np.array([0, 1, 2]), np.array([1, 2, 3]),
...                    np.array([3.0, 2.0, 4.0]))).mate.tolist()
[1, 0, 3, 2]
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
