"""Exact maximum-cardinality bipartite matching: augmenting paths (paper 000: APFB/APsB,
GPUBFS/GPUBFS-WR, :mod:`~pyclmatch.bipartite.apfb`), push-relabel (paper 003: G-PR,
:mod:`~pyclmatch.bipartite.gpr`), parallel Pothen-Fan (paper 001: PPF,
:mod:`~pyclmatch.bipartite.ppf`) and parallel tree grafting (MS-BFS-Graft: PTG,
:mod:`~pyclmatch.bipartite.ptg`) on OpenCL devices, Hopcroft-Karp on the host (``host-hk``,
:mod:`~pyclmatch.bipartite.host`) for graphs too small for a device call to win, and the
Dulmage-Mendelsohn decomposition built on them (:mod:`~pyclmatch.bipartite.dmperm`)."""
from .registry import register_algorithm, algorithms, AUGMENTING_VARIANTS, INITS
from . import apfb, gpr, ppf, ptg, host   # each registers its family's names
from .api import (maximum_matching, maximum_bipartite_matching, MatchingResult, KonigCover,
                  verify_matching)
from .choice import choose_algorithm
from .dmperm import (dulmage_mendelsohn, block_triangular_form, structural_rank,
                     DMDecomposition, BlockTriangularForm)

__all__ = ["maximum_matching", "maximum_bipartite_matching", "MatchingResult", "KonigCover",
           "register_algorithm", "algorithms",
           "verify_matching", "AUGMENTING_VARIANTS", "INITS",
           "choose_algorithm", "dulmage_mendelsohn", "block_triangular_form",
           "structural_rank", "DMDecomposition", "BlockTriangularForm"]
