"""Community detection on the device: the GPU Louvain method of Paper III (shared/papers/004,
"Community Detection on the GPU"): :func:`louvain`."""
from .api import louvain, LouvainResult, modularity
from .hashing import PAPER_MOVE_BUCKETS, PAPER_MERGE_BUCKETS, TABLE_PRIMES

__all__ = ["louvain", "LouvainResult", "modularity", "PAPER_MOVE_BUCKETS",
           "PAPER_MERGE_BUCKETS", "TABLE_PRIMES"]
