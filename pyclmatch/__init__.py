"""pyclmatch: graph matchings and clustering with OpenCL kernels (GPU, or any CPU via PoCL).

Main entry points: :func:`maximum_matching` (exact bipartite), :func:`maximum_bipartite_matching`
(drop-in for scipy's), :func:`weighted_matching` (Suitor), :func:`b_matching` (b-Suitor),
:func:`stable_marriage` (McVitie-Wilson, Gale-Shapley), :func:`louvain` (community detection),
:func:`dulmage_mendelsohn`, :func:`block_triangular_form`,
:func:`structural_rank` (sparse-solver structure), :func:`read_graph`, :func:`get_device` /
:func:`list_devices`; :mod:`pyclmatch.generators` for the benchmark graphs;
:mod:`pyclmatch.nxbackend` (the networkx backend) and :mod:`pyclmatch.interop` (igraph, pandas,
results in networkx's and igraph's shapes).
"""
from ._version import __version__
from .errors import (PyclmatchError, InputError, DeviceError, DeviceMemoryError,
                     HostMemoryError, KernelBuildError, IterationLimitError, VerificationError)
from .engine.devices import get_device, list_devices, describe_devices
from .bipartite import (maximum_matching, maximum_bipartite_matching, MatchingResult,
                        KonigCover, verify_matching, AUGMENTING_VARIANTS,
                        dulmage_mendelsohn, block_triangular_form, structural_rank,
                        DMDecomposition, BlockTriangularForm)
from .io import read_graph
from .weighted import (weighted_matching, b_matching, stable_marriage, prepare_graph,
                       easy_instance, hard_instance, MarriageInstance)
from .community import louvain, modularity
from .interop import matching_dict, matching_edges, community_sets
from . import generators, interop, nxbackend


__all__ = ["maximum_matching", "maximum_bipartite_matching", "MatchingResult", "KonigCover",
           "verify_matching", "read_graph", "get_device", "list_devices", "describe_devices",
           "AUGMENTING_VARIANTS", "PyclmatchError", "InputError", "DeviceError",
           "DeviceMemoryError", "HostMemoryError", "KernelBuildError", "IterationLimitError",
           "VerificationError", "weighted_matching", "b_matching", "stable_marriage",
           "prepare_graph", "easy_instance", "hard_instance", "MarriageInstance", "louvain",
           "modularity", "generators", "dulmage_mendelsohn", "block_triangular_form",
           "structural_rank", "DMDecomposition", "BlockTriangularForm", "interop", "nxbackend",
           "matching_dict", "matching_edges", "community_sets"]
