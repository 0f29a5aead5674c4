"""Exact maximum-cardinality bipartite matching: augmenting paths (paper 000: APFB/APsB,
GPUBFS/GPUBFS-WR, :mod:`~pyclmatch.bipartite.apfb`), push-relabel (paper 003: G-PR,
:mod:`~pyclmatch.bipartite.gpr`), parallel Pothen-Fan (paper 001: PPF,
:mod:`~pyclmatch.bipartite.ppf`) and parallel tree grafting (MS-BFS-Graft: PTG,
:mod:`~pyclmatch.bipartite.ptg`) on OpenCL devices, Hopcroft-Karp on the host (``host-hk``,
:mod:`~pyclmatch.bipartite.host`) for graphs too small for a device call to win, and the
Dulmage-Mendelsohn decomposition built on them (:mod:`~pyclmatch.bipartite.dmperm`).

Every name is imported on first use (:mod:`pyclmatch._lazy`), and the families when a call
first looks them up (:mod:`~pyclmatch.bipartite.registry`): a call answered on the host loads
neither pyopencl nor a device family."""
from .._lazy import attach

__getattr__, __dir__ = attach(__name__, {
    **{name: f".registry:{name}" for name in ("register_algorithm", "algorithms",
                                              "AUGMENTING_VARIANTS", "INITS")},
    **{name: f".api:{name}" for name in ("maximum_matching", "maximum_bipartite_matching")},
    "MatchingResult": ".result:MatchingResult",
    "KonigCover": ".cover:KonigCover", "verify_matching": ".cover:verify_matching",
    "choose_algorithm": ".choice:choose_algorithm",
    **{name: f".dmperm:{name}" for name in ("dulmage_mendelsohn", "block_triangular_form",
                                            "structural_rank", "DMDecomposition",
                                            "BlockTriangularForm")},
    **{name: f".{name}" for name in ("apfb", "gpr", "ppf", "ptg", "host", "api", "choice",
                                     "dmperm", "registry", "konig", "cover", "race",
                                     "hk_core", "karp_sipser", "geometry", "result",
                                     "device_path")},
})

__all__ = ["maximum_matching", "maximum_bipartite_matching", "MatchingResult", "KonigCover",
           "register_algorithm", "algorithms",
           "verify_matching", "AUGMENTING_VARIANTS", "INITS",
           "choose_algorithm", "dulmage_mendelsohn", "block_triangular_form",
           "structural_rank", "DMDecomposition", "BlockTriangularForm"]
