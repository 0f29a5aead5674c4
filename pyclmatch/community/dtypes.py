"""The weight dtypes and defaults that both Louvain drivers share (a leaf module).

The input kernels of ``kernels/louvain.cl.mako`` and ``kernels/modularity.cl.mako`` read the
user's weights in the dtypes of :data:`RAW_TYPES` as they are; the host converts any other
dtype first (:func:`raw_weights`).

Examples
--------
>>> import numpy as np
>>> from pyclmatch.community.dtypes import device_dtype, raw_weights
>>> device_dtype(np.uint16), device_dtype(np.float16), device_dtype(np.float32)
(dtype('int32'), dtype('float32'), dtype('float32'))
>>> raw_weights(np.array([True, False])).dtype
dtype('uint8')
"""
import numpy as np

#: raw weight types the input kernels read (OpenCL type, floating point?)
RAW_TYPES = (("char", 0), ("uchar", 0), ("int", 0), ("long", 0), ("float", 1), ("double", 1))
#: the OpenCL type of each numpy dtype in :data:`RAW_TYPES`
RAW_OF = {np.dtype(np.int8): "char", np.dtype(np.uint8): "uchar", np.dtype(np.int32): "int",
          np.dtype(np.int64): "long", np.dtype(np.float32): "float",
          np.dtype(np.float64): "double"}

#: default work-group sizes: the paper's thread block of 128 on GPUs; CPU devices run
#: work-items as loop iterations, so a smaller group means less barrier overhead
DEFAULT_WG = {"gpu": 128, "cpu": 32}


def default_row_lanes(handle):
    """Work-items per row of the input kernels: 1 on CPUs, 8 on GPUs (so that the hubs of
    skewed graphs are not serialized on one work-item)."""
    return 1 if handle.is_cpu else 8


def device_dtype(dtype):
    """The dtype in which the host uploads weights of ``dtype`` (the input kernels read these
    directly; other dtypes are converted on the host first)."""
    dtype = np.dtype(dtype)
    if dtype in RAW_OF:
        return dtype
    if dtype.kind == "b":
        return np.dtype(np.uint8)
    if dtype.kind in "iu" and dtype.itemsize < 4:
        return np.dtype(np.int32)
    if dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize == 4):
        return np.dtype(np.int64)
    if dtype.kind == "f" and dtype.itemsize < 4:
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def raw_weights(data):
    """The weights ``data`` as the host uploads them: in their own dtype when the input
    kernels read it, else converted to :func:`device_dtype` (bool is viewed as uint8)."""
    dt = device_dtype(data.dtype)
    if data.dtype == dt:
        return data
    return data.view(np.uint8) if data.dtype.kind == "b" else data.astype(dt)


def unit_scale(w, *more):
    """``w`` and ``more`` multiplied by the power of two that brings ``w``'s largest magnitude
    to [0.5, 1): exact (tiny weights lose no bits), and modularity does not change when every
    weight is scaled by one constant."""
    exp = np.frexp(np.abs(w).max())[1] if w.size else 0
    return tuple(np.ldexp(x, -exp) for x in (w,) + more)
