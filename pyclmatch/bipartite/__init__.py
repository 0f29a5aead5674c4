"""Exact maximum-cardinality bipartite matching (paper 000: APFB/APsB, GPUBFS/GPUBFS-WR)."""
from .api import (maximum_matching, maximum_bipartite_matching, MatchingResult, KonigCover,
                  register_algorithm, algorithms,
                  verify_matching, AUTO_DEFAULT)
from .augmenting import AUGMENTING_VARIANTS, INITS

__all__ = ["maximum_matching", "maximum_bipartite_matching", "MatchingResult", "KonigCover",
           "register_algorithm", "algorithms",
           "verify_matching", "AUGMENTING_VARIANTS", "INITS", "AUTO_DEFAULT"]
