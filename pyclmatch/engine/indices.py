"""Index types of the device graphs: 32-bit vertex ids, and edge offsets of 32 bits up to
2**31-1 stored entries and 64 bits above (or at every size with ``PYCLMATCH_FORCE_OFFSET64``).

A leaf module: the graph containers, the intake and every family take their types from here.

Examples
--------
>>> from pyclmatch.engine.indices import index_types, offset_type
>>> index_types(1000)[0]
('int', 'int')
>>> offset_type(2**31)[0]
'long'
"""
import os

import numpy as np

from ..errors import DeviceError

#: the largest vertex id, and edge count with 32-bit offsets
INDEX_MAX = np.iinfo(np.int32).max

#: set to 1 (or "true"/"yes"/"on") to take the 64-bit edge-offset path at every size: the
#: kernels then run with ``offset_t`` = long on small graphs too (tests of that path)
FORCE_OFFSET64_ENV = "PYCLMATCH_FORCE_OFFSET64"


def force_offset64():
    """Whether ``PYCLMATCH_FORCE_OFFSET64`` asks for 64-bit edge offsets at every size."""
    return os.environ.get(FORCE_OFFSET64_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def index_types(nnz):
    """OpenCL C types (vertex id, edge offset) and numpy dtypes for a graph with ``nnz`` edges
    (stored entries): 32-bit offsets up to 2**31-1 entries, 64-bit above, or at every size
    when ``PYCLMATCH_FORCE_OFFSET64`` is set. Every family takes its offset type from here."""
    if nnz > INDEX_MAX or force_offset64():
        return ("int", "long"), (np.int32, np.int64)
    return ("int", "int"), (np.int32, np.int32)


def offset_type(nnz):
    """The edge-offset type of :func:`index_types`: ``("int" or "long", numpy dtype)``."""
    (_, ot), (_, odt) = index_types(nnz)
    return ot, np.dtype(odt)


def require_offset64(handle):
    """Raise :class:`~pyclmatch.errors.DeviceError` unless ``handle``'s device has the 64-bit
    atomics (cl_khr_int64_base_atomics and cl_khr_int64_extended_atomics) that the kernels use
    on 64-bit edge offsets."""
    ext = handle.device.extensions.split()
    missing = [e for e in ("cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics")
               if e not in ext]
    if missing:
        raise DeviceError(f"device {handle.label} lacks {' and '.join(missing)}, which graphs "
                          f"above 2**31-1 stored entries (64-bit edge offsets) need")
