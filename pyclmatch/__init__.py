"""pyclmatch: graph matchings and community detection with OpenCL kernels.

Exact maximum bipartite matching (augmenting paths, push-relabel, Pothen-Fan), weighted and
b-matchings (Suitor), stable marriage, Louvain communities and the Dulmage-Mendelsohn
structure of sparse matrices, on any OpenCL device (a GPU, or a CPU through PoCL). Inputs are
scipy.sparse matrices, networkx and igraph graphs or edge lists; every result is checked by a
certificate before it is returned. :mod:`pyclmatch.nxbackend` runs networkx's functions
through pyclmatch, :mod:`pyclmatch.distributed` spreads batches of graphs over a Dask cluster.

What loads when: ``import pyclmatch`` loads numpy, ``scipy.sparse``, ``scipy.sparse.csgraph``
and the host path of :func:`maximum_matching` (argument checks, ``auto``'s choice from the
cached device facts of :mod:`pyclmatch.engine.catalog`, the host family ``host-hk``), so that
a first call that ``auto`` answers on the host starts at once. pyopencl, mako, the device
families, Louvain, the weighted families and the readers load on first use (PEP 562,
:mod:`pyclmatch._lazy`): the first call that runs on a device loads pyopencl and its family.

Examples
--------
>>> import scipy.sparse as sp
>>> import pyclmatch
>>> A = sp.csr_matrix([[1, 1, 0], [1, 0, 0], [0, 1, 1]])
>>> res = pyclmatch.maximum_matching(A)
>>> res.cardinality
3
>>> res.row_match.tolist()
[1, 0, 2]
"""
from ._version import __version__
from .errors import (PyclmatchError, InputError, DeviceError, DeviceSpecError,
                     DeviceMemoryError, HostMemoryError, KernelBuildError, IterationLimitError,
                     VerificationError)
from ._lazy import attach

# everything else is imported on first use (pyclmatch._lazy): ``import pyclmatch`` loads
# neither pyopencl nor mako
__getattr__, __dir__ = attach(__name__, {
    "get_device": ".engine.devices:get_device", "list_devices": ".engine.devices:list_devices",
    "describe_devices": ".engine.devices:describe_devices",
    **{name: f".bipartite:{name}" for name in (
        "maximum_matching", "maximum_bipartite_matching", "MatchingResult", "KonigCover",
        "verify_matching", "AUGMENTING_VARIANTS", "dulmage_mendelsohn",
        "block_triangular_form", "structural_rank", "DMDecomposition",
        "BlockTriangularForm")},
    "read_graph": ".io:read_graph",
    **{name: f".assignment:{name}" for name in (
        "AssignmentResult", "min_weight_full_bipartite_matching",
        "linear_sum_assignment", "maximum_product_transversal", "TransversalResult")},
    **{name: f".weighted:{name}" for name in (
        "weighted_matching", "b_matching", "stable_marriage", "prepare_graph",
        "easy_instance", "hard_instance", "MarriageInstance")},
    "louvain": ".community.api:louvain", "modularity": ".community.api:modularity",
    "leiden": ".community.api:leiden",
    **{name: f".interop:{name}" for name in ("matching_dict", "matching_edges",
                                             "community_sets")},
    **{name: f".{name}" for name in ("generators", "interop", "nxbackend", "bipartite",
                                     "weighted", "community", "engine", "io", "cli",
                                     "distributed", "bench", "assignment")},
})


__all__ = ["maximum_matching", "maximum_bipartite_matching", "MatchingResult", "KonigCover",
           "verify_matching", "read_graph", "get_device", "list_devices", "describe_devices",
           "AUGMENTING_VARIANTS", "PyclmatchError", "InputError", "DeviceError",
           "DeviceSpecError", "DeviceMemoryError", "HostMemoryError", "KernelBuildError", "IterationLimitError",
           "VerificationError", "weighted_matching", "b_matching", "stable_marriage",
           "prepare_graph", "easy_instance", "hard_instance", "MarriageInstance", "louvain", "leiden",
           "modularity", "generators", "dulmage_mendelsohn", "block_triangular_form",
           "structural_rank", "DMDecomposition", "BlockTriangularForm", "interop", "nxbackend",
           "matching_dict", "matching_edges", "community_sets", "assignment",
           "AssignmentResult", "min_weight_full_bipartite_matching", "linear_sum_assignment",
           "maximum_product_transversal", "TransversalResult"]

# the host path of maximum_matching (numpy, scipy.sparse and its csgraph, no pyopencl): see
# "What loads when" above
from .bipartite import api as _host_path  # noqa: E402,F401
