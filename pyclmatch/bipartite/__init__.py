"""Exact maximum-cardinality bipartite matching: augmenting paths (paper 000: APFB/APsB,
GPUBFS/GPUBFS-WR), push-relabel (paper 003: G-PR) and parallel Pothen-Fan (paper 001: PPF) on
OpenCL devices, and Hopcroft-Karp on the host (``host-hk``) for graphs too small for a device
call to win."""
from .api import (maximum_matching, maximum_bipartite_matching, MatchingResult, KonigCover,
                  register_algorithm, algorithms,
                  verify_matching)
from .augmenting import AUGMENTING_VARIANTS, INITS
from . import push_relabel, pothen_fan   # register "gpr*" (paper 003) and "ppf" (paper 001)
from . import host   # registers "host-hk" (scipy's Hopcroft-Karp and a König cover, on the host)
from .choice import choose_algorithm
from .dmperm import (dulmage_mendelsohn, block_triangular_form, structural_rank,
                     DMDecomposition, BlockTriangularForm)

__all__ = ["maximum_matching", "maximum_bipartite_matching", "MatchingResult", "KonigCover",
           "register_algorithm", "algorithms",
           "verify_matching", "AUGMENTING_VARIANTS", "INITS",
           "choose_algorithm", "dulmage_mendelsohn", "block_triangular_form",
           "structural_rank", "DMDecomposition", "BlockTriangularForm"]
