"""Community detection on the device: the GPU Louvain method of Paper III (shared/papers/004,
"Community Detection on the GPU").

The public calls are :func:`pyclmatch.louvain` and :func:`pyclmatch.modularity` (defined in
:mod:`pyclmatch.community.api`); the submodules :mod:`~pyclmatch.community.louvain` (the
driver, ``kernels/louvain.cl.mako``) and :mod:`~pyclmatch.community.modularity` (the
certificate, ``kernels/modularity.cl.mako``) keep their names, so the functions are not
re-exported here under the same names.
"""
from .api import LeidenResult, LouvainResult
from .hashing import PAPER_MOVE_BUCKETS, PAPER_MERGE_BUCKETS, TABLE_PRIMES

__all__ = ["LeidenResult", "LouvainResult", "PAPER_MOVE_BUCKETS", "PAPER_MERGE_BUCKETS",
           "TABLE_PRIMES"]
