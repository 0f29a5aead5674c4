"""Community detection on the device: the GPU Louvain method of Paper III (shared/papers/004,
"Community Detection on the GPU") and the Leiden algorithm (Traag, Waltman, van Eck 2019).

The public calls are :func:`pyclmatch.louvain`, :func:`pyclmatch.leiden` and
:func:`pyclmatch.modularity` (defined in :mod:`pyclmatch.community.api`); the drivers are
:mod:`~pyclmatch.community.louvain` (``kernels/louvain.cl.mako``) and
:mod:`~pyclmatch.community.leiden` (``kernels/leiden.cl.mako``), the input's intake
:mod:`~pyclmatch.community.intake`, and the checks of an
answer, independent of both, :mod:`~pyclmatch.community.verify` (modularity on the device,
:mod:`~pyclmatch.community.modularity`, ``kernels/modularity.cl.mako``; connectivity,
:mod:`~pyclmatch.community.connectivity`, ``kernels/connectivity.cl.mako``). The submodules
keep their names, so the functions are not re-exported here under the same names.
"""
from .api import LeidenResult, LouvainResult
from .hashing import PAPER_MOVE_BUCKETS, PAPER_MERGE_BUCKETS, TABLE_PRIMES

__all__ = ["LeidenResult", "LouvainResult", "PAPER_MOVE_BUCKETS", "PAPER_MERGE_BUCKETS",
           "TABLE_PRIMES"]
