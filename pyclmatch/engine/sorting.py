"""pyopencl's radix sort, made in the device handle's own context.

``pyopencl.algorithm.RadixSort`` learns the memory layout of its scan type (a struct of
``2**bits_at_a_time`` counters) on the device with ``pyopencl.tools.match_dtype_to_c_struct``,
which, given no context, creates a new one for the device: on CUDA devices a second context per
process, a good part of a second at a process's first sort. :func:`radix_sort` learns the same
layout in the handle's context first and hands pyopencl the answer through the memo of the
function that would have asked (``_make_sort_scan_type``, keyed by device, bits and index
type), then builds the sort as pyopencl does. Where pyopencl no longer works that way, nothing
is handed over and the sort is built as before.
"""
import numpy as np
from pyopencl import algorithm
from pyopencl.algorithm import RadixSort
from pyopencl.tools import get_or_register_dtype, match_dtype_to_c_struct


def radix_sort(context, **kwargs):
    """``RadixSort(context, **kwargs)``, its scan type's layout learnt in ``context``.

    Examples
    --------
    >>> import numpy as np, pyopencl.array as cla, pyclmatch
    >>> from pyclmatch.engine.sorting import radix_sort
    >>> h = pyclmatch.get_device("cpu")
    >>> sort = radix_sort(h.context, arguments="int *keys", key_expr="keys[i]",
    ...                   sort_arg_names=["keys"], key_dtype=np.int32)
    >>> keys = cla.to_device(h.queue, np.array([3, 1, 2], np.int32))
    >>> (out,), _ = sort(keys, key_bits=2, queue=h.queue)
    >>> out.get().tolist()
    [1, 2, 3]
    """
    bits = int(kwargs.get("bits_at_a_time", 2))
    index_dtype = np.dtype(kwargs.get("index_dtype", np.int32))
    _learn_scan_type(context, bits, index_dtype)
    return RadixSort(context, **kwargs)


def _learn_scan_type(context, bits, index_dtype):
    """Put the answer of pyopencl's ``_make_sort_scan_type(device, bits, index_dtype)`` in
    its memo (pytools' ``memoize``: a dict ``_memoize_dic`` on the wrapped function, keyed by
    the arguments), with the layout learnt in ``context``."""
    make = getattr(algorithm, "_make_sort_scan_type", None)
    inner = getattr(make, "__wrapped__", None)
    padded = getattr(algorithm, "_padded_bin", None)
    if inner is None or padded is None:
        return
    device = context.devices[0]
    key = (device, bits, index_dtype)
    memo = getattr(inner, "_memoize_dic", None)
    if memo is not None and key in memo:
        return
    name = f"pyopencl_sort_scan_{index_dtype.type.__name__}_{bits}bits_t"
    fields = np.dtype([(f"c{padded(mnr, bits)}", index_dtype) for mnr in range(2 ** bits)])
    dtype, c_decl = match_dtype_to_c_struct(device, name, fields, context)
    answer = (name, get_or_register_dtype(name, dtype), c_decl)
    if memo is None:
        inner._memoize_dic = {key: answer}
    else:
        memo.setdefault(key, answer)
