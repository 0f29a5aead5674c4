"""From what the user holds to checked device buffers: the engine's one ingestion path.

A scipy.sparse CSR or CSC (matrix or array, int32 or int64 indices) goes up as it is: its
``indptr`` and ``indices`` are uploaded without a host copy, conversion or sort, and the device
checks them in one pass (offsets non-decreasing, indices in range, each list strictly
increasing) while it counts the entries of every minor vertex; a scan and a scatter then build
the transpose on the device (the CSC of a CSR, or the CSR of a CSC). One read-back brings the
check's flags. Other inputs (COO, dense, edge arrays) are first turned into a CSR by scipy's
compiled conversion; input that the device finds unsorted or with repeated entries is made
canonical on the device (:func:`canonical_lists`: a radix sort of (list, index) keys and
pyopencl's ``unique``); the user's arrays are never modified.

Edge offsets are 32-bit up to 2**31-1 stored entries and 64-bit above (or at every size with
``PYCLMATCH_FORCE_OFFSET64``: :func:`pyclmatch.engine.indices.index_types` picks them); vertex
ids are 32-bit. Weighted input (:class:`DeviceSymmetric`) is converted on the device to the
weight type the family compares, float32 or float64.
"""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from ..errors import InputError
from .compressed import (BAD_PTR, BAD_RANGE, UNSORTED, DUPLICATE,  # noqa: F401 (re-exported)
                         NOT_CANONICAL, canonical_copy, check_compressed_host, check_no_entries,
                         checked_csr, compressed_parts, raise_structure_problem)
from .indices import INDEX_MAX, offset_type, require_offset64
from .sorting import radix_sort

TEMPLATE = "intake.cl.mako"

class DeviceCompressed:
    """A compressed structure uploaded and checked on the device, with its transpose.

    ``ptr``/``ind``: the input's offsets and indices (major side, ``n`` lists over ``n_minor``
    vertices); ``t_ptr``/``t_ind``: the transpose (``n_minor`` lists over ``n``), built by
    ``intake_check`` (counts), a scan and ``intake_scatter``; ``t_perm`` (with
    ``perm=True``): the input position of each transposed entry. The lists of the input are
    sorted (checked); those of the transpose are in no particular order. ``chunks``: the
    transpose in that many chunks without atomics instead (``intake_chunk_*`` in
    ``kernels/intake.cl.mako``: each chunk's entries counted, then scattered, by one
    work-item, and the transposed lists come out sorted); ``None`` chooses
    (:func:`transpose_chunks`: CPU devices, where every core claiming positions in the same
    heavy list serializes the transpose), ``0``
    never. Everything is enqueued at construction; :meth:`problems` reads the check's flags
    (one read-back).
    ``flags``: a device int array (zeroed by the caller) whose first entry receives the flag
    bits, so that a caller's own checks of the same input share the one read-back.
    ``by_rows``: the check walks whole lists per work-item (CPU devices), see
    ``kernels/common.cl.mako`` (entries). ``offset_t``/``odt``: the edge-offset type
    (:func:`~pyclmatch.engine.indices.index_types` of ``nnz`` unless given) of ``ptr``,
    ``t_ptr`` and ``t_perm``.
    """

    def __init__(self, handle, indptr, indices, n, n_minor, *, transpose=True, perm=False,
                 sched, phase="upload", nnz=None, flags=None, by_rows=None, offset_t=None,
                 chunks=None):
        self.handle, self.n, self.n_minor = handle, int(n), int(n_minor)
        nnz = int(indices.size if nnz is None else nnz)
        self.nnz = nnz
        self.offset_t, self.odt = offset_type(nnz) if offset_t is None else (
            offset_t, np.dtype(np.int64 if offset_t == "long" else np.int32))
        self.chunks = (transpose_chunks(handle, nnz, self.n_minor, self.odt.itemsize)
                       if chunks is None else int(chunks)) if transpose else 0
        self._given_flags = flags
        self._raw = None
        self._by_rows = handle.is_cpu if by_rows is None else bool(by_rows)
        if self.offset_t == "long":
            require_offset64(handle)
        elif nnz > INDEX_MAX:
            raise ValueError("32-bit offsets hold at most 2**31-1 entries")
        if isinstance(indptr, cla.Array):        # already on the device (canonical_lists)
            self._setup_device(indptr, indices, transpose, perm, sched, phase)
            return
        indptr = np.asarray(indptr)
        if indptr.shape != (self.n + 1,):
            raise InputError(f"indptr has {indptr.size} entries; a compressed matrix with "
                             f"{self.n} lists needs {self.n + 1}")
        if int(indptr[0]) != 0 or int(indptr[-1]) != nnz:
            raise InputError(f"indptr must run from 0 to the number of stored entries "
                             f"({nnz}), got {int(indptr[0])} .. {int(indptr[-1])}")
        q = handle.queue
        if indices.dtype.kind not in "iu":
            raise InputError(f"indices must be integers, got dtype {indices.dtype}")
        if indices.dtype != np.int32:      # int64 and unsigned ids are read as int64
            indices = indices.astype(np.int64, copy=False)
        in_t = "int" if indices.dtype == np.int32 else "long"
        # the offsets are O(n): a host cast where the user's are not of the offset type
        self.ptr = handle.to_device(indptr.astype(self.odt, copy=False))
        raw = handle.to_device(indices if nnz else np.zeros(1, indices.dtype))
        self.ind = raw if in_t == "int" else cla.empty(q, max(nnz, 1), np.int32,
                                                        allocator=handle.pool)
        # (kept: on a CPU device raw wraps host memory, a converted copy when the user's
        # indices are unsigned, that the enqueued check still reads)
        self._raw = raw
        self._check(raw, in_t, transpose, perm, sched, phase)

    def _setup_device(self, ptr, ind, transpose, perm, sched, phase):
        self.ptr, self.ind = ptr, ind
        self._check(ind, "int", transpose, perm, sched, phase)

    def _check(self, raw, in_t, transpose, perm, sched, phase):
        """Enqueue the check (and the transpose) of ``self.ptr`` and ``raw``."""
        handle, q, nnz = self.handle, self.handle.queue, self.nnz
        values = {"index_t": "int", "offset_t": self.offset_t, "mode": "ct",
                  "in_index_t": in_t, "with_perm": bool(perm)}
        if not transpose or self.chunks:
            values["with_counts"] = False      # (the minor degrees serve the transpose only)
        if self._by_rows:
            values["by_rows"] = True
        self.values = values
        flags = self._given_flags
        if flags is None:
            flags = cla.empty(q, 1, np.int32, allocator=handle.pool)
            sched.fill(phase, flags, 0)
        self._flags = flags
        cnt = cla.empty(q, max(self.n_minor, 1), np.int32, allocator=handle.pool)
        if not self.chunks:        # (intake_check counts into it; in chunks it is written)
            sched.fill(phase, cnt, 0)
        wg, grid = _grid(handle, max(nnz, self.n))
        sched.launch(phase, handle.kernel(TEMPLATE, "intake_check", **values), grid, wg,
                     np.int32(self.n), np.int32(self.n_minor), self.odt.type(nnz), self.ptr.data,
                     raw.data, self.ind.data, cnt.data, self._flags.data)
        self.counts = cnt[:self.n_minor]
        self.t_ptr = self.t_ind = self.t_perm = None
        if not transpose:
            return
        odt = self.odt
        self.t_ptr = cla.empty(q, self.n_minor + 1, odt, allocator=handle.pool)
        sched.fill(phase, self.t_ptr, 0)
        if self.chunks:
            self._transpose_in_chunks(values, perm, sched, phase)
            return
        if self.offset_t == "long":       # per-list counters from 0 (see intake_scatter)
            cursor = cla.empty(q, max(self.n_minor, 1), np.int32, allocator=handle.pool)
            sched.fill(phase, cursor, 0)
        else:
            cursor = cla.empty(q, max(self.n_minor, 1), odt, allocator=handle.pool)
        if self.n_minor:
            sched.record(phase, handle.exclusive_scan(self.counts, self.t_ptr, self.t_ptr,
                                                      total_at=self.n_minor))
            if self.offset_t != "long":
                sched.record(phase, cl.enqueue_copy(q, cursor.data, self.t_ptr.data,
                                                    byte_count=odt.itemsize * self.n_minor))
        self.t_ind = cla.empty(q, max(nnz, 1), np.int32, allocator=handle.pool)
        args = [np.int32(self.n), np.int32(self.n_minor), odt.type(nnz), self.ptr.data,
                self.ind.data, self.t_ptr.data, cursor.data, self.t_ind.data]
        if perm:
            self.t_perm = cla.empty(q, max(nnz, 1), odt, allocator=handle.pool)
            args.append(self.t_perm.data)
        sched.launch(phase, handle.kernel(TEMPLATE, "intake_scatter", **values), grid, wg,
                     *args)

    def _transpose_in_chunks(self, values, perm, sched, phase):
        """Enqueue the transpose by ``intake_chunk_*`` (the ``chunks`` path; counts into
        ``self.counts`` as the other path does, scanned into ``t_ptr``)."""
        handle, q, nnz, nm, P = self.handle, self.handle.queue, self.nnz, self.n_minor, \
            self.chunks
        odt, it = self.odt, np.int32
        hist = cla.empty(q, max(P * nm, 1), odt, allocator=handle.pool)   # (zeroed there)

        def knl(name):
            return handle.kernel(TEMPLATE, name, **values)
        n, nnz_t = it(self.n), odt.type(nnz)
        sched.launch(phase, knl("intake_chunk_count"), P, 1, n, it(nm), nnz_t, self.ptr.data,
                     self.ind.data, hist.data)
        wg, grid = _grid(handle, nm)
        if nm:
            sched.launch(phase, knl("intake_chunk_sum"), grid, wg, it(nm), it(P), hist.data,
                         self.counts.data)
            sched.record(phase, handle.exclusive_scan(self.counts, self.t_ptr, self.t_ptr,
                                                      total_at=nm))
            sched.launch(phase, knl("intake_chunk_cursors"), grid, wg, it(nm), it(P),
                         self.t_ptr.data, hist.data)
        self.t_ind = cla.empty(q, max(nnz, 1), np.int32, allocator=handle.pool)
        args = [n, it(nm), nnz_t, self.ptr.data, self.ind.data, hist.data, self.t_ind.data]
        if perm:
            self.t_perm = cla.empty(q, max(nnz, 1), odt, allocator=handle.pool)
            args.append(self.t_perm.data)
        sched.launch(phase, knl("intake_chunk_scatter"), P, 1, *args)
        self._hist = hist          # (kept until the enqueued scatter has read it)

    def problems(self, sched, phase="upload"):
        """The check's flag bits (``BAD_PTR | BAD_RANGE | UNSORTED | DUPLICATE``): one
        blocking read-back."""
        return int(sched.read(phase, np.zeros(1, np.int32), self._flags.data)[0])


#: OpenCL C types of the stored values the device intake reads as they are
VALUE_TYPES = {np.dtype(k): v for k, v in (
    (np.float64, "double"), (np.float32, "float"), (np.int8, "char"), (np.uint8, "uchar"),
    (np.int16, "short"), (np.uint16, "ushort"), (np.int32, "int"), (np.uint32, "uint"),
    (np.int64, "long"), (np.uint64, "ulong"), (np.bool_, "uchar"))}
#: flags[] slots of DeviceSymmetric (0: the structure bits of intake_check)
(SLOT_STRUCTURE, SLOT_FIRST_BAD, SLOT_BAD, SLOT_DIAG, SLOT_ASYM, SLOT_BALANCE,
 SLOT_INEXACT, SLOT_HUGE) = range(8)
VALUE_SLOTS = SLOT_HUGE + 1
#: OpenCL C names of the weight types a family compares
WEIGHT_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}


class ValueReport:
    """What :meth:`DeviceSymmetric.problems` read back: ``structure`` (intake_check's bits),
    ``bad`` (invalid values off the diagonal) and ``first_bad_row`` (the least list holding
    one), ``diagonal`` (diagonal entries), ``asymmetric`` (whether the matrix differs from its
    transpose: an entry above the diagonal without an equal twin, or not as many entries
    below the diagonal as above) and ``inexact`` (values the weight type does not hold
    exactly, counted with ``check_exact``) and ``huge`` (valid float64 values above 2**960,
    so many of which may sum past float64's range: the caller sums its answer's weight)."""
    __slots__ = ("structure", "first_bad_row", "bad", "diagonal", "asymmetric", "inexact",
                 "huge")

    def __init__(self, host):
        self.structure, self.first_bad_row, self.bad, self.diagonal = (int(x)
                                                                       for x in host[:4])
        self.asymmetric = bool(host[SLOT_ASYM] or host[SLOT_BALANCE])
        self.inexact = int(host[SLOT_INEXACT])
        self.huge = int(host[SLOT_HUGE])


def value_type(handle, dtype):
    """The OpenCL C type in which the device reads values of ``dtype`` as they are, or
    ``None`` (the host converts them: float16, or float64 on a device without doubles)."""
    t = VALUE_TYPES.get(np.dtype(dtype))
    if t == "double" and not fp64_supported(handle):
        return None
    return t


def fp64_supported(handle):
    """Whether the device computes in double precision (cl_khr_fp64)."""
    return bool(handle.device.double_fp_config)


class DeviceSymmetric:
    """A square weighted structure (the CSR of a symmetric matrix, or its CSC, which is the
    same arrays) checked and converted on the device: the structure by
    :class:`DeviceCompressed` (no transpose), the values in the same read-back by
    ``intake_values``: off the diagonal finite and positive (also in the weight type
    ``weight_dtype``, float32 or float64), equal to their twins' (symmetric), diagonal entries
    counted, and with ``check_exact`` the values the weight type does not hold exactly
    counted (64-bit integers above 2**53 in float64); ``w`` = the values in the weight type
    (the uploaded array itself when they are in it already). :meth:`drop_diagonal` removes
    the diagonal on the device when there is one (``intake_diagonal_rows``, a scan,
    ``intake_drop_diagonal`` with ``orig``, each kept entry's input position). ``ptr``,
    ``ind``, ``w``, ``nnz``: the structure as the family uses it (``ptr``, ``orig`` and
    ``twin`` in the offset type ``odt``); with ``twins``, ``twin`` holds each entry's twin
    position (the reverse edge), found by the symmetry check's searches."""

    def __init__(self, handle, indptr, indices, data, n, *, sched, weight_dtype=np.float32,
                 twins=False, check_exact=False, phase="upload"):
        q = handle.queue
        self.handle, self.n = handle, int(n)
        self.wdt = np.dtype(weight_dtype)
        wt = WEIGHT_TYPES[self.wdt]
        vt = value_type(handle, data.dtype)
        if vt is None:
            data = data.astype(self.wdt)
            vt = wt
        self._flags = cla.empty(q, VALUE_SLOTS, np.int32,
                                 allocator=handle.pool)
        sched.fill(phase, self._flags, 0)
        sched.fill(phase, self._flags[SLOT_FIRST_BAD:SLOT_FIRST_BAD + 1], INDEX_MAX)
        self.by_rows = handle.is_cpu
        self.dc = DeviceCompressed(handle, indptr, indices, n, n, transpose=False,
                                   sched=sched, phase=phase, flags=self._flags,
                                   by_rows=self.by_rows)
        self.nnz = self.dc.nnz
        self.offset_t, self.odt = self.dc.offset_t, self.dc.odt
        self.ptr, self.ind = self.dc.ptr, self.dc.ind
        raw = handle.to_device(data)
        self._raw = raw      # (the enqueued check reads it; it may wrap a host copy)
        convert = vt != wt
        self.w = (cla.empty(q, max(self.nnz, 1), self.wdt, allocator=handle.pool)
                  if convert else raw)
        self.orig = None
        self.twin = (cla.empty(q, max(self.nnz, 1), self.odt, allocator=handle.pool)
                     if twins else None)
        self._types = {"index_t": "int", "offset_t": self.offset_t, "mode": "ct",
                       "in_index_t": "int", "with_perm": False, "by_rows": self.by_rows,
                       "weight_t": wt}
        values = dict(self._types, in_value_t=vt, value_is_float=vt in ("double", "float"),
                      check_exact=bool(check_exact and convert))
        args = [self.twin.data] if twins else []
        if twins:
            values["with_twins"] = True
        wg = handle.default_work_group_size()
        self._wg = wg
        self._grid = min(handle.constant_grid(wg), -(-max(self.nnz, self.n, 1) // wg) * wg)
        sched.launch(phase, handle.kernel(TEMPLATE, "intake_values", **values), self._grid,
                     wg, np.int32(n), self.odt.type(self.nnz), self.ptr.data, self.ind.data,
                     raw.data, self.w.data, np.int32(convert), np.int32(1),
                     self._flags.data, *args)

    def problems(self, sched, phase="upload"):
        """The checks' findings (:class:`ValueReport`): one blocking read-back."""
        host = np.zeros(VALUE_SLOTS, np.int32)
        return ValueReport(sched.read(phase, host, self._flags.data))

    def drop_diagonal(self, sched, diagonal, phase="upload"):
        """Enqueue the removal of the ``diagonal`` entries (the count :meth:`problems`
        reported); ``ptr``, ``ind``, ``w``, ``nnz`` then describe the rest and ``orig`` maps
        each kept entry to its input position. The arrays replaced stay referenced until
        :meth:`release_inputs` (the enqueued kernels read them; on a CPU device they may wrap
        host copies, such as offsets converted to 64 bits, that must outlive the reads)."""
        h, q, n = self.handle, self.handle.queue, self.n
        odt = self.odt
        values = dict(self._types)
        if self.twin is not None:
            values["with_twins"] = True
        has = cla.empty(q, max(n, 1), np.int32, allocator=h.pool)
        shift = cla.empty(q, n + 1, np.int32, allocator=h.pool)
        sched.fill(phase, shift, 0)
        sched.launch(phase, h.kernel(TEMPLATE, "intake_diagonal_rows", **values),
                     min(h.constant_grid(self._wg), -(-max(n, 1) // self._wg) * self._wg),
                     self._wg, np.int32(n), self.ptr.data, self.ind.data, has.data)
        if n:
            sched.record(phase, h.exclusive_scan(has[:n], shift, shift, total_at=n))
        nnz = self.nnz - int(diagonal)
        ptr = cla.empty(q, n + 1, odt, allocator=h.pool)
        ind = cla.empty(q, max(nnz, 1), np.int32, allocator=h.pool)
        w = cla.empty(q, max(nnz, 1), self.wdt, allocator=h.pool)
        orig = cla.empty(q, max(nnz, 1), odt, allocator=h.pool)
        args = []
        if self.twin is not None:
            twin = cla.empty(q, max(nnz, 1), odt, allocator=h.pool)
            args = [self.twin.data, twin.data]
        sched.launch(phase, h.kernel(TEMPLATE, "intake_drop_diagonal", **values), self._grid,
                     self._wg, np.int32(n), odt.type(self.nnz), self.ptr.data, self.ind.data,
                     self.w.data, shift.data, ptr.data, ind.data, w.data, orig.data, *args)
        self._replaced = (self.ptr, self.ind, self.w, self.twin, has, shift)
        if args:
            self.twin = twin
        self.ptr, self.ind, self.w, self.orig, self.nnz = ptr, ind, w, orig, nnz

    def release_inputs(self):
        """Finish the queue and drop the input arrays that the kernels enqueued so far read
        (the uploads and what :meth:`drop_diagonal` replaced): the device graph then holds
        only ``ptr``, ``ind``, ``w``, ``orig`` and ``twin``."""
        self.handle.queue.finish()
        self._replaced = None
        self._raw = self.dc._raw = None


#: the transpose in chunks when its cursors (one per chunk and minor vertex) are at most this
#: many times the entries; above it the passes over the cursors outweigh the entries
CHUNK_CURSORS_PER_ENTRY = 3


def transpose_chunks(handle, nnz, n_minor, offset_bytes=4):
    """How many chunks :class:`DeviceCompressed` builds a transpose in on ``handle`` (0: the
    atomic path): on CPU devices one per compute unit when their cursors (one per chunk and
    minor vertex, ``offset_bytes`` each) number at most ``CHUNK_CURSORS_PER_ENTRY`` times the
    entries and fit one allocation, else 0. GPUs keep the atomic path (their atomics resolve
    in the shared cache, and one work-item per chunk would leave the device idle); so do CPU
    devices of one compute unit."""
    P = int(handle.compute_units)
    cursors = P * int(n_minor)
    if not handle.is_cpu or P < 2 or cursors > CHUNK_CURSORS_PER_ENTRY * int(nnz) \
            or cursors * int(offset_bytes) > int(handle.max_alloc):
        return 0
    return P


def _grid(handle, n):
    """(work-group size, global size) of a strided pass over ``n`` items."""
    wg = handle.default_work_group_size()
    return wg, min(handle.constant_grid(wg), -(-max(int(n), 1) // wg) * wg)


#: digits of pyopencl's RadixSort in :func:`canonical_lists`; its scan keeps 2**bits counters
#: of the index type per key, so the sort's scratch is ``2**SORT_BITS * index bytes`` per key
SORT_BITS = 4


def sort_windows(host_ptr, nnz, window):
    """``[(a, b), ...]``: the entry ranges, each at most ``window`` entries and made of whole
    lists (so that sorting each range alone sorts the (list, index) keys of all), that
    :func:`canonical_lists` sorts one at a time when the whole sort's scratch would not fit
    one allocation. A single list longer than ``window`` is a range of its own."""
    ptr = np.asarray(host_ptr)
    out, a = [], 0
    while a < nnz:
        r = int(np.searchsorted(ptr, a + window, side="right")) - 1
        b = int(ptr[r])
        if b <= a:                       # one list alone is longer than the window
            b = int(ptr[np.searchsorted(ptr, a, side="right")])
        out.append((a, b))
        a = b
    return out


def sort_window_entries(handle, odt):
    """Keys per sort of :func:`canonical_lists`: the scratch of pyopencl's RadixSort
    (``2**SORT_BITS`` counters of ``odt`` per key, plus the sorted copy) kept within the
    device's largest allocation and a quarter of its global memory."""
    per_key = (1 << SORT_BITS) * np.dtype(odt).itemsize
    budget = min(int(handle.max_alloc), int(handle.global_mem) // 4)
    return max(1, budget // per_key - 1)


def canonical_lists(dc, sched, host_ptr, phase="upload"):
    """The canonical lists of the checked structure ``dc`` (sorted, repeats dropped), built on
    the device: ``(ptr, ind)`` device arrays and the entry count (one read-back). Each entry
    becomes a 64-bit key (list, index); pyopencl's ``RadixSort`` orders the keys over the
    bits they use and ``unique`` drops repeats (with 64-bit offsets, a scan of 64-bit
    indices: pyopencl's ``unique`` indexes with 32 bits). The sort's scratch is 64 to 128
    bytes per key: above :func:`sort_window_entries` keys, the keys are sorted in ranges of
    whole lists (:func:`sort_windows` over ``host_ptr``, the input's offsets on the host),
    which leaves the whole array sorted."""
    handle, q = dc.handle, dc.handle.queue
    n, nnz, odt = dc.n, dc.nnz, dc.odt
    long_ = dc.offset_t == "long"
    minor_bits = max(1, int(dc.n_minor - 1).bit_length())
    major_bits = max(1, int(n - 1).bit_length())
    wg, grid = _grid(handle, nnz)
    values = dict(dc.values, in_index_t="int")
    keys = cla.empty(q, nnz, np.uint64, allocator=handle.pool)
    sched.launch(phase, handle.kernel(TEMPLATE, "intake_keys", **values), grid, wg,
                 np.int32(n), odt.type(nnz), dc.ptr.data, dc.ind.data, np.int32(minor_bits),
                 keys.data)
    sort = handle.memoize(("engine", "radix sort uint64", odt.str), lambda: radix_sort(
        handle.context, arguments="ulong *keys", key_expr="keys[i]", sort_arg_names=["keys"],
        key_dtype=np.uint64, bits_at_a_time=SORT_BITS, index_dtype=odt))
    window = sort_window_entries(handle, odt)
    if nnz <= window:
        (keys,), evt = sort(keys, key_bits=minor_bits + major_bits, queue=q,
                            allocator=handle.pool)
        sched.record(phase, evt)
    else:
        for a, b in sort_windows(host_ptr, nnz, window):
            part = cla.empty(q, b - a, np.uint64, allocator=handle.pool)
            cl.enqueue_copy(q, part.data, keys.base_data, byte_count=(b - a) * 8,
                            src_offset=keys.offset + a * 8)
            # (a copy: RadixSort reads its arguments from their buffers' start, not a view's)
            (part,), evt = sort(part, key_bits=minor_bits + major_bits, queue=q,
                                allocator=handle.pool)
            sched.record(phase, evt)
            cl.enqueue_copy(q, keys.base_data, part.data, byte_count=(b - a) * 8,
                            dst_offset=keys.offset + a * 8)
            del part
    if long_:
        keys, count_dev, evt = _unique64(handle, keys)
    else:
        keys, count_dev, evt = handle.unique(keys, queue=q)
    sched.record(phase, evt)
    count = int(sched.read(phase, np.zeros(1, count_dev.dtype), count_dev.data)[0])
    ind = cla.empty(q, max(count, 1), np.int32, allocator=handle.pool)
    cnt = cla.empty(q, max(n, 1), np.int32, allocator=handle.pool)
    sched.fill(phase, cnt, 0)
    sched.launch(phase, handle.kernel(TEMPLATE, "intake_split", **values), grid, wg,
                 odt.type(count), keys.data, np.int32(minor_bits), ind.data, cnt.data)
    ptr = cla.empty(q, n + 1, odt, allocator=handle.pool)
    sched.fill(phase, ptr, 0)
    if n:
        sched.record(phase, handle.exclusive_scan(cnt[:n], ptr, ptr, total_at=n))
    return ptr, ind, count


def _unique64(handle, keys):
    """pyopencl's ``unique`` of the sorted uint64 device array ``keys`` with 64-bit indices:
    ``(out, count, event)``, count a one-entry int64 device array."""
    q = handle.queue
    knl = handle.scan(("unique uint64 long",), np.int64,
        arguments="__global const ulong *ary, __global ulong *out, __global long *count",
        input_fetch_exprs=[("ary_im1", "ary", -1), ("ary_i", "ary", 0)],
        input_expr="(i == 0) || (ary_im1 != ary_i)", scan_expr="a+b", neutral="0",
        output_statement="if (prev_item != item) out[item - 1] = ary[i]; "
                         "if (i + 1 == N) *count = item;",
        index_dtype=np.int64)
    out = cla.empty(q, keys.size, np.uint64, allocator=handle.pool)
    count = cla.empty(q, 1, np.int64, allocator=handle.pool)
    evt = knl(keys, out, count, queue=q)
    return out, count, evt
