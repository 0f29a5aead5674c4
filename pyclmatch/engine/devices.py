"""OpenCL device discovery, selection policy, per-device caches and the ICD doctor.

``get_device(spec)`` accepts:

* ``None``: the environment variable ``PYCLMATCH_DEVICE`` if set, else ``"auto"``;
* ``"auto"``: the first GPU, else the first accelerator, else the first CPU;
* ``"gpu"``, ``"cpu"``, ``"accelerator"``: the first device of that type;
* ``"P:D"``: device D of platform P (the indices ``pyclmatch devices`` prints);
* any other string: the first device whose platform or device name contains it (case-insensitive);
* a ``pyopencl.Device``, ``pyopencl.Context`` (its first device, the context is reused) or a
  :class:`DeviceHandle`.

Handles are cached per device: the context, the profiling queue, built programs and memoized
kernels live on the handle, so nothing is rebuilt for a second call.

Threads: calls from several threads may share one handle, and each call of the library's
functions (``maximum_matching``, ``louvain``, ...: :func:`device_call`) holds the device it
runs on from the moment it resolves it (:func:`get_device`) to its return, so calls on one
device run one at a time, whichever handle or thread they come from (calls on different
devices run at once). The device's in-order queue runs one call's work at a time anyway;
what the lock takes away is only the overlap of one call's host work with another's device
work. Why: several threads of one process enqueueing on one GPU at once can crash a GPU
driver's OpenCL runtime or hang the process at exit. Within the lock nothing changes: programs are built
once (under a lock) and shared; kernel objects are per thread (an OpenCL kernel object holds
its arguments, and setting them from two threads at once is the one race the OpenCL API
leaves to the caller); the pyopencl helpers memoized per device (scans, sorts, reductions,
the memory pool) and pyopencl's own per-context kernels (``copy_if``, ``unique``,
``arange``) are called under the handle's lock, which covers their argument setting and
enqueueing only. Every thread enqueues on the handle's one in-order queue, so a pooled
buffer that one call releases is reused by another only after the commands that used it.
"""
from __future__ import annotations

import contextlib
import glob
import os
import subprocess
import threading

from concurrent.futures import ThreadPoolExecutor, as_completed

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.algorithm import copy_if, unique
from pyopencl.scan import GenericDebugScanKernel, GenericScanKernel
from pyopencl.tools import ImmediateAllocator, MemoryPool

from .._typing import DeviceSpec
from ..errors import DeviceError, DeviceSpecError
from . import args as _args, catalog, limits
from .calls import device_call, device_lock, hold as _hold  # noqa: F401 (re-exported)
from .programs import build_program, log, quiet_build
from .scan_intervals import install as _bound_scan_intervals
from .units import fmt_bytes as _fmt_bytes  # noqa: F401 (the name other modules import)

#: scans of at most this many items run pyopencl's sequential scan on CPU devices
#: (:meth:`DeviceHandle.scan`)
CPU_SEQUENTIAL_SCAN = 1 << 18

_bound_scan_intervals()     # (pyopencl's scans on devices of many compute units)

_TYPE_NAMES = (("gpu", cl.device_type.GPU), ("accelerator", cl.device_type.ACCELERATOR),
               ("cpu", cl.device_type.CPU))


def _type_name(dev):
    for name, bit in _TYPE_NAMES:
        if dev.type & bit:
            return name
    return "other"


#: whether pyopencl takes DeviceHandle.empty's fast Array constructor (found at first use)
_FAST_ARRAYS = [True]
_PROBE_SRC = "__kernel void pyclmatch_probe(__global int *a) { a[get_global_id(0)] += 1; }"
_probe_results = {}
#: the context each successful probe made, until the device's first handle takes it over
_probe_contexts = {}


def compiler_problem(dev):
    """``None`` if ``dev``'s OpenCL compiler builds a trivial kernel, else the reason (a string).

    Some drivers list a device they cannot compile for: PoCL builds linked against an LLVM older
    than the host CPU report the CPU as ``generic`` and fail every build with "unknown target
    CPU 'generic'" (PoCL 3.0 of the ``pocl-binary-distribution`` wheel, LLVM 14, on AMD Zen 5).
    Selection skips such devices; ``pyclmatch devices`` says why and what to install. The
    answer is cached per device for the process.
    """
    key = dev.int_ptr
    if key not in _probe_results:
        try:
            ctx = cl.Context([dev])
            with quiet_build(f"{dev.name.strip()}: compiler probe"):
                cl.Program(ctx, _PROBE_SRC).build()
            _probe_results[key] = None
            _probe_contexts[key] = ctx    # (the device's handle takes it: one context less)
        except cl.Error as exc:
            _probe_results[key] = _compiler_hint(dev, str(exc))
    return _probe_results[key]


def _compiler_hint(dev, log):
    first = next((ln.strip() for ln in log.splitlines() if "error" in ln.lower()
                  and "clBuildProgram" not in ln), log.strip().splitlines()[-1] if log.strip()
                 else "the build failed")
    msg = f"its compiler cannot build a trivial kernel ({first})"
    if "unknown target cpu" in log.lower() and "pocl" in dev.version.lower():
        msg += (f"; this PoCL ({dev.driver_version.strip()}) was linked against an LLVM that does "
                f"not know this CPU model. Use a PoCL built with a newer LLVM, or your "
                f"distribution's PoCL, which picks its target from the CPU's features "
                f"(Debian/Ubuntu: apt-get install pocl-opencl-icd)")
    return msg


def usable_devices():
    """:func:`list_devices` without the devices whose compiler fails (:func:`compiler_problem`)."""
    return [(p, d, dev) for p, d, dev in list_devices() if compiler_problem(dev) is None]


def list_devices() -> list:
    """All OpenCL devices as ``(platform_index, device_index, pyopencl.Device)`` tuples.

    Examples
    --------
    >>> import pyclmatch
    >>> devices = pyclmatch.list_devices()
    >>> len(devices) >= 1
    True
    >>> p, d, dev = devices[0]
    >>> (p, d)
    (0, 0)
    """
    out = []
    try:
        platforms = cl.get_platforms()
    except cl.Error:
        return out
    for p_i, plat in enumerate(platforms):
        try:
            devs = plat.get_devices()
        except cl.Error:
            continue
        for d_i, dev in enumerate(devs):
            out.append((p_i, d_i, dev))
    return out


class DeviceInfo(catalog.DeviceFacts):
    """What device selection and ``auto``'s device profile read of an OpenCL device (its
    names, type, compute units, driver: :class:`~pyclmatch.engine.catalog.DeviceFacts`),
    taken from the ``pyopencl.Device`` alone: no context, no build. The attributes are
    :class:`DeviceHandle`'s of the same names.

    Examples
    --------
    >>> from pyclmatch.engine.devices import candidates
    >>> info = candidates("cpu")[0]
    >>> info.type, info.index == (0, 0) or info.index is not None
    ('cpu', True)
    """

    def __init__(self, device, index):
        super().__init__(index, device.name.strip(), device.platform.name.strip(),
                         [name for name, bit in _TYPE_NAMES if device.type & bit],
                         device.max_compute_units, str(device.driver_version).strip())
        self.device = device

    def __repr__(self):
        return f"<device info {self.index} {self.name!r} ({self.type})>"


def candidates(spec=None):
    """The devices :func:`get_device` may select for the name ``spec`` (``None`` or a
    string), as :class:`DeviceInfo` in the order it tries them, found without building
    anything: every device of the named type(s), the ``"P:D"`` device or the devices whose
    names contain ``spec`` (which of them ``get_device`` takes depends on whether its compiler
    works, :func:`compiler_problem`, which costs a build). ``None`` for a spec that is not a
    name (a device, context or handle: nothing to look up); ``[]`` when none matches. The
    facts of every device are written to the device cache
    (:func:`pyclmatch.engine.catalog.remember`) for later processes.

    Examples
    --------
    >>> from pyclmatch.engine.devices import candidates
    >>> [info.type for info in candidates("cpu")][:1]
    ['cpu']
    >>> candidates("no such device"), candidates(object())
    ([], None)
    """
    spec = catalog.default_spec(spec)
    if not isinstance(spec, str):
        return None
    infos = _infos(list_devices())
    catalog.remember(infos)
    return catalog.select(spec, infos)


def _infos(devs):
    """:class:`DeviceInfo` of each ``(platform, device, pyopencl.Device)`` of ``devs``."""
    return [DeviceInfo(dev, (p, d)) for p, d, dev in devs]


class DeviceHandle:
    """One OpenCL device with its context, in-order profiling queue and caches.

    Families ask the handle for kernels by template and specialization values
    (:meth:`kernel`), for memoized pyopencl helpers (:meth:`memoize`: reductions, scans,
    elementwise kernels) and whether a call's buffers fit (:meth:`check_fits`, with the
    estimates of :mod:`pyclmatch.engine.limits`). Safe to share between threads (see the
    module docstring).

    Examples
    --------
    >>> import numpy as np, pyclmatch
    >>> handle = pyclmatch.get_device("cpu")
    >>> x = handle.to_device(np.arange(5, dtype=np.int32), read_only=False)
    >>> handle.download(x, np.int64).tolist()
    [0, 1, 2, 3, 4]
    """

    def __init__(self, device, context=None, index=None):
        self.device = device
        self.context = context or cl.Context([device])
        self.queue = cl.CommandQueue(
            self.context, device, properties=cl.command_queue_properties.PROFILING_ENABLE)
        self.index = index
        self.name = device.name.strip()
        self.platform_name = device.platform.name.strip()
        self.type = _type_name(device)
        self.compute_units = device.max_compute_units
        self.max_work_group_size = device.max_work_group_size
        self.global_mem = device.global_mem_size
        self.local_mem = device.local_mem_size
        self.max_alloc = device.max_mem_alloc_size
        self._programs = {}
        #: (marker event, events to keep alive) of device work that a raced
        #: ``maximum_matching`` left on the queue when the host won
        #: (:mod:`pyclmatch.bipartite.race`), or None
        self.race_backlog = None
        self._memo = {}
        # (taken in this order when nested, never the other way round: _shared, _lock, then
        # the process-wide lock of quiet builds, programs._quiet_lock)
        self._lock = threading.RLock()          # builds and memoized objects
        self._stage_lock = threading.Lock()     # the page-locked transfer stages
        self._shared = threading.RLock()        # calls of shared pyopencl kernel objects
        self._thread = threading.local()        # per-thread kernel objects
        self._warm = set()                      # pyopencl per-context helpers built already

    @property
    def readbacks(self):
        """Blocking device-to-host reads through this handle by the calling thread
        (``download``, ``read_back``, :meth:`Scheduler.read`): a Scheduler reports the
        difference over its call, which other threads' calls do not disturb."""
        return getattr(self._thread, "readbacks", 0)

    @readbacks.setter
    def readbacks(self, value):
        self._thread.readbacks = value

    def __repr__(self):
        idx = f"{self.index[0]}:{self.index[1]} " if self.index else ""
        return f"<pyclmatch device {idx}{self.name!r} ({self.type}, {self.platform_name})>"

    @property
    def label(self):
        return f"{self.name} [{self.platform_name}]"

    @property
    def is_cpu(self):
        return self.type == "cpu"

    def program(self, template, kernels=None, **values):
        """The built program for ``template`` specialized with ``values`` (built once):
        the whole template, or with ``kernels`` (names) those kernels alone
        (:func:`~.programs.select_kernels`)."""
        kernels = None if kernels is None else tuple(sorted(kernels))
        key = (template, kernels, tuple(sorted(values.items())))
        prog = self._programs.get(key)
        if prog is None:
            with self._lock:
                prog = self._programs.get(key)
                if prog is None:
                    prog = build_program(self.context, self.label, template, values,
                                         kernels=kernels)
                    self._programs[key] = prog
        return prog

    def _built_with(self, template, name, frozen):
        """The ``kernels`` of a program of ``template`` built already for ``frozen`` values
        that holds kernel ``name`` (the whole template counts), or False."""
        for (tpl, kernels, vals) in list(self._programs):
            if tpl == template and vals == frozen and (kernels is None or name in kernels):
                return kernels
        return False

    def group_fits(self, knl, most=1024):
        """The largest work-group (a power of two, at most ``most``) that kernel ``knl``
        fits on this device: its registers and local memory may allow fewer work-items
        than the device's maximum.

        >>> import pyopencl as cl
        >>> h = get_device("cpu")
        >>> prg = cl.Program(h.context, "__kernel void k(__global int *a) { *a = 1; }")
        >>> h.group_fits(prg.build().k, most=64)
        64
        """
        fits = knl.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, self.device)
        return 1 << (int(min(fits, most)).bit_length() - 1)

    def kernel(self, template, name, kernels=None, **values):
        """Kernel ``name`` of ``template`` specialized with ``values``: the calling thread's
        kernel object, memoized per (thread, program, name). The program is built once and
        shared; each thread gets its own ``cl.Kernel`` of it, so that two threads never set
        the arguments of one kernel object at once. ``kernels``: the kernel group to build
        when no program built already holds ``name`` (default: the whole template)."""
        cache = self._thread.__dict__.setdefault("kernels", {})
        frozen = tuple(sorted(values.items()))
        key = (template, name, frozen)
        knl = cache.get(key)
        if knl is None:
            if kernels is not None:
                built = self._built_with(template, name, frozen)
                kernels = kernels if built is False else built
            try:
                knl = cl.Kernel(self.program(template, kernels, **values), name)
            except cl.LogicError as exc:
                raise AttributeError(f"template {template!r} has no kernel {name!r}: "
                                     f"{exc}") from None
            cache[key] = knl
        return knl

    def memoize(self, key, factory):
        """Return ``factory()`` built once per device for ``key`` (pyopencl helpers: scans,
        sorts, reductions, elementwise kernels; the pool), behind the handle's lock: the
        returned object's calls are serialized (:class:`Serialized`) because such a helper
        sets the arguments of its own kernel objects at each call. A call only enqueues, so
        the lock is held for microseconds. Built quietly (:func:`~.programs.quiet_build`)."""
        obj = self._memo.get(key)
        if obj is None:
            with self._lock:
                obj = self._memo.get(key)
                if obj is None:
                    with quiet_build(f"{self.label}: {key}"):
                        obj = Serialized(factory(), self._shared, f"{self.label}: {key}")
                    self._memo[key] = obj
        return obj

    def ahead(self, *builds):
        """Run ``builds`` (callables that build what a call will need later: a driver's kernel
        groups, pyopencl's helpers) one after another in a background thread, so that a
        call's first builds overlap its uploads and first launches instead of waiting for
        them; returns the thread, which the call joins before it returns. The builds meet the
        call's own through the handle's locks (:meth:`program`, :meth:`memoize`): a kernel
        the call needs first is built once, by whichever thread comes first.

        On CPU devices nothing runs ahead and None is returned: the builds would take the
        cores the call computes on (each is built at its first use instead). A build that
        fails is dropped here; the call meets the error at its first use, where it is
        reported.

        Examples
        --------
        >>> import pyclmatch
        >>> h = pyclmatch.get_device("cpu")
        >>> h.ahead(lambda: None) is None       # (a CPU device builds at first use)
        True
        """
        if self.is_cpu or not builds:
            return None
        return start_ahead(self.label, builds)

    @property
    def pool(self):
        """The device's memory pool (pyopencl ``MemoryPool``), shared by every family: the
        buffers of one call go back to it when the call drops them and the next call reuses
        them instead of allocating (and, on CPU devices, page-faulting) hundreds of MB.
        Allocations hold the handle's lock (:meth:`memoize`); a buffer is released to the
        pool by its owner's thread and reused on the same in-order queue."""
        return self.memoize(("engine", "pool"),
                            lambda: MemoryPool(ImmediateAllocator(self.queue)))

    def empty(self, shape, dtype=np.int32):
        """A ``pyopencl.array.Array`` of ``shape`` (C order) from the pool (:attr:`pool`), as
        ``cla.empty(queue, shape, dtype, allocator=pool)`` makes it, through pyopencl's
        internal fast constructor where it has one: pyopencl's checks of the shape cost
        several times the allocation, and a call on a large graph makes thousands of arrays.

        >>> import pyclmatch
        >>> a = pyclmatch.get_device("cpu").empty(3, "int64")
        >>> a.shape, a.dtype.name, a.strides
        ((3,), 'int64', (8,))
        """
        dtype = np.dtype(dtype)
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)
        size = 1
        for s in shape:
            size *= s
        if size < 0 or dtype.kind == "O" or not _FAST_ARRAYS[0]:
            return cla.empty(self.queue, shape, dtype, allocator=self.pool)
        strides, step = [], dtype.itemsize
        for s in reversed(shape):
            strides.append(step)
            step *= max(s, 1)
        try:
            return cla.Array(None, shape, dtype, allocator=self.pool, strides=tuple(
                reversed(strides)), _fast=True, _size=size, _context=self.context,
                _queue=self.queue)
        except TypeError:                 # (a pyopencl without it: its public way from now)
            _FAST_ARRAYS[0] = False
            return cla.empty(self.queue, shape, dtype, allocator=self.pool)

    def scratch(self, n, dtype=np.int32):
        """A device buffer of ``n`` entries of ``dtype`` (at least one) from the pool: for
        work buffers that kernels only take as arguments, without the host cost of a
        ``pyopencl.array.Array`` (a noticeable part of a small graph's call)."""
        return self.pool(max(int(n), 1) * np.dtype(dtype).itemsize)

    def trim_pool(self, keep_fraction=0.25):
        """Free the pool's unused blocks when they hold more than ``keep_fraction`` of the
        device's memory (``0``: always), so allocations outside the pool are not starved."""
        pool = self.pool
        with self._shared:
            held = getattr(pool, "managed_bytes", 0) - getattr(pool, "active_bytes", 0)
            if keep_fraction <= 0 or held > keep_fraction * self.global_mem:
                pool.free_held()

    # -- pyopencl's per-context kernels, called under the handle's lock --------------------
    @contextlib.contextmanager
    def _shared_call(self, key):
        """Hold the lock of shared kernel objects; the first call of ``key`` builds (quietly)."""
        with self._shared:
            if key in self._warm:
                yield
                return
            with quiet_build(f"{self.label}: {key[0]}"):
                yield
            self._warm.add(key)

    def copy_if(self, ary, predicate, extra_args=(), queue=None):
        """``pyopencl.algorithm.copy_if`` (its kernels are pyopencl's, one per context and
        predicate, shared by every thread): ``(out, count device array, event)``."""
        key = ("copy_if", ary.dtype.str, predicate,
               tuple((n, getattr(v, "dtype", type(v)).__str__()) for n, v in extra_args))
        with self._shared_call(key):
            return copy_if(ary, predicate, extra_args=list(extra_args),
                           queue=queue or self.queue)

    def unique(self, ary, queue=None):
        """``pyopencl.algorithm.unique`` of the sorted device array ``ary``:
        ``(out, count device array, event)``."""
        with self._shared_call(("unique", ary.dtype.str)):
            return unique(ary, queue=queue or self.queue)

    def arange(self, n, dtype=np.int32, queue=None, allocator=None):
        """``pyopencl.array.arange(0, n)`` on this device."""
        with self._shared_call(("arange", np.dtype(dtype).str)):
            return cla.arange(queue or self.queue, int(n), dtype=dtype,
                              allocator=allocator or self.pool)

    def take(self, ary, indices, out=None, queue=None):
        """``pyopencl.array.take``: ``out[i] = ary[indices[i]]`` on this device (``out`` may
        be ``indices``: each element reads its own index before it is written)."""
        with self._shared_call(("take", ary.dtype.str, indices.dtype.str)):
            return cla.take(ary, indices, out=out, queue=queue or self.queue)

    def pinned_copy(self, host):
        """A page-locked host copy of ``host`` for fast repeated uploads to this device.

        The copy lives in a ``CL_MEM_ALLOC_HOST_PTR`` buffer kept mapped (the array returned
        keeps the buffer alive): drivers recognise such memory as pinned and copy from it at
        full PCIe speed by DMA instead of staging pageable memory, which dominates a large
        graph's cold call otherwise. On CPU devices there is nothing to gain and ``host`` is returned as it is.
        """
        host = np.ascontiguousarray(host)
        if self.is_cpu or host.nbytes == 0:
            return host
        arr = self._page_locked(host.shape, host.dtype, cl.mem_flags.READ_ONLY,
                                cl.map_flags.WRITE)
        arr[...] = host
        return arr

    def _page_locked(self, shape, dtype, mem_flags, map_flags):
        """A host array in page-locked memory: an ``ALLOC_HOST_PTR`` buffer of this context,
        mapped for good (the array keeps the buffer alive)."""
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        buf = cl.Buffer(self.context, mem_flags | cl.mem_flags.ALLOC_HOST_PTR, size=nbytes)
        arr, _ = cl.enqueue_map_buffer(self.queue, buf, map_flags, 0, shape, dtype,
                                       is_blocking=True)
        return arr

    def flag_ring(self, rows, cols):
        """The calling thread's page-locked int32 host array of at least ``rows x cols``, for
        the non-blocking flag reads of :meth:`Scheduler.converge` (a non-blocking read into
        pageable memory may be carried out synchronously by a GPU driver, as CUDA does for
        device-to-pageable copies). Kept per thread for the handle's lifetime; reads from one
        thread land in order on the in-order queue, so a loop that reuses a slot reads it
        only after every earlier copy into it has landed."""
        ring = getattr(self._thread, "flag_ring", None)
        if ring is None or ring.shape[0] < rows or ring.shape[1] < cols:
            ring = self._page_locked((max(rows, 8), max(cols, 4)), np.int32,
                                     cl.mem_flags.WRITE_ONLY, cl.map_flags.READ)
            self._thread.flag_ring = ring
        return ring

    #: uploads at least this large go through the page-locked upload stage on GPUs
    UPLOAD_STAGE_MIN = 1 << 22
    #: bytes per chunk of a staged transfer (copied by one thread, sent by one DMA)
    STAGE_CHUNK = 1 << 23
    #: the largest page-locked stage: larger transfers go in windows of this size (the two
    #: stages are page-locked at a process's first large upload, at a cost that grows with
    #: their size, so a process's first upload of a large graph waits for it; at this size
    #: the windows still keep the copy engine nearly as busy as larger ones)
    STAGE_MAX = 1 << 26

    def to_device(self, host, *, read_only=True, pinned=False):
        """A device array holding ``host``: the one way inputs go up.

        On CPU devices a read-only array wraps the host memory (``USE_HOST_PTR``: no copy;
        keep ``host`` alive and unchanged while it is used). On other devices the copy is
        asynchronous (finish the queue, or read back, once after several uploads): a large
        pageable array goes through a page-locked stage in chunks that host threads copy in
        parallel while the DMA engine sends the chunks already copied (the driver's own
        staging of pageable memory runs at a fraction of the PCIe rate); ``pinned=True``
        says that ``host`` is page-locked already (:meth:`pinned_copy`) and is sent as it is.
        """
        host = np.ascontiguousarray(host)
        if self.is_cpu and read_only and host.size:
            buf = cl.Buffer(self.context, cl.mem_flags.READ_ONLY | cl.mem_flags.USE_HOST_PTR,
                            hostbuf=host)
            return cla.Array(self.queue, host.shape, host.dtype, data=buf)
        if self.is_cpu or pinned or host.nbytes < self.UPLOAD_STAGE_MIN:
            return cla.to_device(self.queue, host, allocator=self.pool, async_=True)
        dev = cla.empty(self.queue, host.shape, host.dtype, allocator=self.pool)
        src = host.reshape(-1).view(np.uint8)
        with self._stage_lock:
            # two stages used in turn: the copies into one overlap the DMA out of the other;
            # an array larger than STAGE_MAX goes up in windows of that size, so the pinned
            # memory held stays bounded (page-locking tens of GB fails or takes seconds)
            for w0 in range(0, src.nbytes, self.STAGE_MAX):
                window = src[w0:w0 + self.STAGE_MAX]
                self._stage_turn = turn = 1 - getattr(self, "_stage_turn", 0)
                stage, pending = self._memo.pop(("engine", "upload stage", turn), (None, None))
                if pending is not None:
                    pending.wait()          # the stage's previous DMA has finished
                if stage is None or stage.nbytes < window.nbytes:
                    del stage               # free the old buffer before the new one
                    stage = self._page_locked((window.nbytes,), np.uint8,
                                              cl.mem_flags.READ_ONLY, cl.map_flags.WRITE)
                last = None
                for a, b in _parallel_copy(stage, window, self.STAGE_CHUNK):
                    last = cl.enqueue_copy(self.queue, dev.base_data, stage[a:b],
                                           dst_offset=dev.offset + w0 + a, is_blocking=False)
                self._memo[("engine", "upload stage", turn)] = (stage, last)
        return dev

    #: downloads smaller than this go straight into pageable memory (pinning pays off above)
    DOWNLOAD_STAGE_MIN = 1 << 22
    #: downloads larger than this go straight into pageable memory (one stage of this size
    #: at most is kept page-locked)
    DOWNLOAD_STAGE_MAX = 1 << 28

    def download(self, arr, dtype=None, *, staged=None):
        """Blocking read of the device array ``arr`` into a new numpy array (converted to
        ``dtype`` when given): the one way results come back to the host.

        On GPUs a large array is read into a page-locked staging buffer (one per device,
        kept for the handle's lifetime and grown to the largest download) at full PCIe speed
        by DMA and copied or converted from there in one host pass; reading into pageable
        numpy memory instead makes the driver stage it through its own bounce buffers, and a
        conversion (int32 results returned as int64, every family's convention) is then a
        second pass. CPU devices and small arrays use
        ``arr.get()`` (``staged=True`` or ``False`` forces the choice; ``arr`` must be
        contiguous to be staged)."""
        dtype = np.dtype(dtype or arr.dtype)
        self.readbacks += 1
        if staged is None:
            staged = not self.is_cpu and arr.nbytes >= self.DOWNLOAD_STAGE_MIN
        if not staged or not arr.flags.forc or arr.nbytes == 0 or \
                arr.nbytes > self.DOWNLOAD_STAGE_MAX:
            host = arr.get()
            return host if host.dtype == dtype else host.astype(dtype)
        with self._stage_lock:
            stage = self._memo.pop(("engine", "download stage"), None)
            if stage is None or stage.nbytes < arr.nbytes:
                del stage                       # free the old buffer before the new one
                stage = self._page_locked((arr.nbytes,), np.uint8, cl.mem_flags.WRITE_ONLY,
                                          cl.map_flags.READ)
            self._memo[("engine", "download stage")] = stage
            view = stage[:arr.nbytes].view(arr.dtype).reshape(arr.shape)
            cl.enqueue_copy(self.queue, view, arr.base_data, src_offset=arr.offset,
                            is_blocking=True)
            out = np.empty(arr.shape, dtype)
            for _ in _parallel_copy(out.reshape(-1), view.reshape(-1),
                                    self.STAGE_CHUNK // dtype.itemsize):
                pass
            return out

    def scan(self, key, dtype, **kwargs):
        """pyopencl's scan ``GenericScanKernel(context, dtype, **kwargs)``, memoized per device
        for ``key`` and called as such a kernel is. On CPU devices a call of at most
        :data:`CPU_SEQUENTIAL_SCAN` items (but none) runs pyopencl's sequential scan
        (``GenericDebugScanKernel``, one work-item: as fast there, and one small kernel to
        compile where the parallel scan's three take seconds at their first launch on
        PoCL); longer calls, and every call on other devices, run the parallel scan. Each
        kernel is built at its first call.

        Examples
        --------
        >>> import numpy as np, pyclmatch
        >>> h = pyclmatch.get_device("cpu")
        >>> x = h.to_device(np.array([3, 1, 2], np.int32))
        >>> out = h.to_device(np.zeros(3, np.int32), read_only=False)
        >>> knl = h.scan(("doc", "cumsum"), np.int32, arguments="__global const int *x, "
        ...              "__global int *out", input_expr="x[i]", scan_expr="a+b",
        ...              neutral="0", output_statement="out[i] = item;")
        >>> _ = knl(x, out, queue=h.queue); h.download(out).tolist()
        [3, 4, 6]
        """
        return self.memoize(("engine", "scan") + tuple(key),
                            lambda: _SizedScan(self, dtype, kwargs))

    def exclusive_scan(self, src, dst, total, total_at=0, queue=None):
        """``dst[i] = src[0] + ... + src[i-1]`` and ``total[total_at]`` = the sum, for an int32
        device array ``src``, summed in the type of ``dst`` and ``total`` (int32, or int64 for
        64-bit offsets) (:meth:`scan`, built once per device and type); no read-back."""
        dt = np.dtype(dst.dtype)
        ct = {"i4": "int", "i8": "long"}[dt.str[1:]]
        knl = self.scan(("exclusive scan", ct), dt,
            arguments=f"__global const int *x, __global {ct} *out, __global {ct} *total, "
                      "int total_at, long n",
            input_expr=f"({ct})x[i]", scan_expr="a+b", neutral="0",
            output_statement="out[i] = prev_item; if (i + 1 == n) total[total_at] = item;")
        n = int(src.size)
        return knl(src, dst, total, np.int32(total_at), np.int64(n), size=n,
                   queue=queue or self.queue)

    def flatnonzero(self, flags, out, total, total_at=0, queue=None):
        """numpy's ``flatnonzero`` on the device: the positions of the non-zero entries of the
        uint8 array ``flags``, in increasing order, into the int32 array ``out``, and their
        count into ``total[total_at]`` (:meth:`scan`, built once per device; no read-back)."""
        knl = self.scan(("flatnonzero uint8",), np.int32,
            arguments="__global const uchar *flags, __global int *out, __global int *total, "
                      "int total_at, long n",
            input_expr="flags[i] ? 1 : 0", scan_expr="a+b", neutral="0",
            output_statement="if (prev_item != item) out[prev_item] = i; "
                             "if (i + 1 == n) total[total_at] = item;")
        n = int(flags.size)
        return knl(flags, out, total, np.int32(total_at), np.int64(n), size=n,
                   queue=queue or self.queue)

    def check_fits(self, buffers, what="graph"):
        """Raise :class:`DeviceMemoryError` unless every buffer (name -> bytes) fits
        (:func:`pyclmatch.engine.limits.check`)."""
        limits.check(self, f"the {what}", "", device=buffers)

    def default_work_group_size(self):
        """256 on GPUs (the papers' block size); 64 on CPU devices (fewer, fatter work-items)."""
        return min(256 if not self.is_cpu else 64, self.max_work_group_size)

    def constant_grid(self, work_group_size):
        """The CT-mode grid: enough work-items to fill the device once, then each strides.

        Paper 000 used 256 x 256 work-items, sized for a GPU of 14 compute units; on GPUs the
        grid is 2048 work-items per compute unit (the resident-thread limit of recent GPUs), at
        least 256 x 256; on CPUs a few groups a core.
        """
        if self.is_cpu:
            return max(1, self.compute_units * 4) * work_group_size
        return max(256 * work_group_size, self.compute_units * 2048)


class PinnedStaging:
    """Mixin for host-side inputs uploaded again and again (prepared graphs, marriage
    instances): :meth:`stage` keeps page-locked copies (:meth:`DeviceHandle.pinned_copy`) of
    the attributes named in ``_staged_fields`` for one device's context, and :meth:`upload`
    sends an attribute from its pinned copy when there is one (full PCIe speed by DMA),
    from the attribute itself otherwise. CPU devices stage nothing (they read host memory
    directly). Pinned copies are not pickled."""
    _staged_fields = ()

    def _field(self, name):
        return getattr(self, name)

    @device_call
    def stage(self, device=None):
        """Stage page-locked copies for ``device`` (a :class:`DeviceHandle` or any
        :func:`get_device` spec; once per context); returns self."""
        handle = get_device(device)
        table = self.__dict__.setdefault("_staged", {})
        key = handle.context.int_ptr
        if key not in table and not handle.is_cpu:
            table[key] = {f: handle.pinned_copy(self._field(f))
                          for f in self._fields_to_stage(handle)}
        return self

    def _fields_to_stage(self, handle):
        """The attributes :meth:`stage` pins for ``handle`` (``_staged_fields``)."""
        return self._staged_fields

    def staged(self, handle):
        """The pinned copies staged for ``handle`` (empty dict if none)."""
        return self.__dict__.get("_staged", {}).get(handle.context.int_ptr, {})

    def upload(self, handle, name):
        """``handle.to_device`` of attribute ``name``, from its pinned copy when staged."""
        pinned = self.staged(handle).get(name)
        if pinned is not None:
            return handle.to_device(pinned, pinned=True)
        return handle.to_device(self._field(name))

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_staged"] = {}
        return state


class Serialized:
    """A pyopencl object shared by the threads of a device (a helper kernel, the memory pool)
    whose calls hold ``lock``: such helpers set the arguments of their own kernel objects at
    each call, which two threads must not do at once. The first call of each keyword form is
    quiet (pyopencl builds some helpers, e.g. ``ElementwiseKernel``, on first call).
    Attributes are the object's."""
    __slots__ = ("_obj", "_lock", "_what", "_forms")

    def __init__(self, obj, lock, what=""):
        self._obj, self._lock, self._what, self._forms = obj, lock, what, set()

    def __call__(self, *args, **kwargs):
        form = tuple(sorted(kwargs))
        with self._lock:
            if form in self._forms:
                return self._obj(*args, **kwargs)
            with quiet_build(self._what):
                out = self._obj(*args, **kwargs)
            self._forms.add(form)
            return out

    def __getattr__(self, name):
        return getattr(self._obj, name)

    def __repr__(self):
        return f"<serialized {self._obj!r}>"


def start_ahead(label, builds):
    """The thread of :meth:`DeviceHandle.ahead` (on any device), started: it runs ``builds``
    in turn; one that raises is logged at DEBUG and skipped."""
    def work():
        for build in builds:
            try:
                build()
            except Exception as exc:    # (met again, and reported, at the first use)
                log.debug("%s: a build ahead failed: %s", label, exc)
    thread = threading.Thread(target=work, name="pyclmatch-ahead", daemon=True)
    thread.start()
    return thread


class _SizedScan:
    """The scan of :meth:`DeviceHandle.scan`: pyopencl's sequential or parallel kernel per
    call, by size, each built at its first call."""

    def __init__(self, handle, dtype, kwargs):
        self.handle, self.dtype, self.kwargs = handle, dtype, kwargs
        self.limit = CPU_SEQUENTIAL_SCAN if handle.is_cpu else 0
        self._kernels = {}

    def kernel(self, sequential):
        """The sequential (``GenericDebugScanKernel``) or the parallel scan kernel."""
        knl = self._kernels.get(sequential)
        if knl is None:
            cls = GenericDebugScanKernel if sequential else GenericScanKernel
            with quiet_build(f"{self.handle.label}: {cls.__name__}"):
                knl = cls(self.handle.context, self.dtype, **self.kwargs)
            self._kernels[sequential] = knl
        return knl

    def prebuild(self):
        """Build the parallel kernel now, holding the lock its calls hold (the handle's lock of
        shared kernel objects): a build ahead of the first call (:meth:`DeviceHandle.ahead`)."""
        with self.handle._shared:
            self.kernel(False)

    def __call__(self, *args, size=None, **kwargs):
        n = size if size is not None else next(
            a.shape[0] for a in args if isinstance(a, cla.Array))
        return self.kernel(0 < n <= self.limit)(*args, size=size, **kwargs)


_copy_pool = None


def _parallel_copy(dst, src, chunk):
    """Copy the 1-D array ``src`` into ``dst`` (casting as numpy does) in chunks of ``chunk``
    items, several host threads at once (numpy releases the GIL for large copies); yields
    each chunk's ``(start, stop)`` as it completes, so that the caller can send it on."""
    global _copy_pool
    n = int(src.size)
    bounds = [(a, min(a + chunk, n)) for a in range(0, n, chunk)]
    if len(bounds) <= 1:
        if n:
            np.copyto(dst[:n], src)
        yield from bounds
        return
    if _copy_pool is None:
        _copy_pool = ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 1),
                                        thread_name_prefix="pyclmatch-copy")

    def copy(ab):
        np.copyto(dst[ab[0]:ab[1]], src[ab[0]:ab[1]])
        return ab
    for fut in as_completed([_copy_pool.submit(copy, ab) for ab in bounds]):
        yield fut.result()


_handles = {}
_handles_lock = threading.Lock()


def _handle_for(dev, context=None, index=None):
    key = (dev.int_ptr, context.int_ptr if context is not None else None)
    with _handles_lock:
        h = _handles.get(key)
        if h is None:
            if index is None:
                index = next(((p, d) for p, d, x in list_devices() if x == dev), None)
            h = DeviceHandle(dev, context or _probe_contexts.pop(dev.int_ptr, None), index)
            _handles[key] = h
        return h


def get_device(spec: DeviceSpec = None) -> DeviceHandle:
    """Resolve ``spec`` (see the module docstring) to a cached :class:`DeviceHandle`; inside
    one of the library's calls (:func:`device_call`) the device is held until it returns.

    Examples
    --------
    >>> import pyclmatch
    >>> handle = pyclmatch.get_device("cpu")
    >>> handle.is_cpu, handle is pyclmatch.get_device("cpu")
    (True, True)
    >>> handle.default_work_group_size() <= handle.max_work_group_size
    True
    """
    return _hold(_resolve(spec))


def _resolve(spec):
    """:func:`get_device` without the hold."""
    if isinstance(spec, DeviceHandle):
        return spec
    if isinstance(spec, cl.Context):
        return _handle_for(spec.devices[0], spec)
    if isinstance(spec, cl.Device):
        return _handle_for(spec)
    spec = catalog.default_spec(spec)
    if not isinstance(spec, str):
        raise DeviceSpecError(f"device={_args.shown(spec)} is not allowed: it must be None, a "
                              f"string, a pyopencl Device or Context, or a DeviceHandle",
                              argument="device")
    devs = list_devices()
    if not devs:
        raise DeviceError("no OpenCL device found. " + _no_device_hint())
    chosen = catalog.select(spec, _infos(devs))      # (the order get_device tries them in)
    for info in chosen:
        if compiler_problem(info.device) is None:
            return _handle_for(info.device, index=info.index)
    raise _none_usable(spec, devs, chosen)


def _none_usable(spec, devs, chosen):
    """The :class:`DeviceError` of :func:`get_device` when no device of ``chosen`` (those
    :func:`catalog.select` found for ``spec`` among ``devs``) builds a kernel, or none
    matched."""
    s = spec.strip().lower()
    if s == "auto" or s in catalog.TYPE_ORDER:
        what = "OpenCL device" if s == "auto" else f"OpenCL {s.upper()} device"
        msg = f"no usable {what} found; devices present: " + _short_list(devs)
        for info in {i.index: i for i in chosen}.values():    # (a device once, in order)
            msg += (f". Device {info.index[0]}:{info.index[1]} is unusable: "
                    f"{compiler_problem(info.device)}")
        if s in ("auto", "gpu"):
            msg += _gpu_hint()
        return DeviceError(msg)
    if chosen:
        info = chosen[0]
        dev = info.device
        return DeviceError(f"device {info.index[0]}:{info.index[1]} {dev.name.strip()} "
                           f"[{dev.platform.name.strip()}] is unusable: "
                           f"{compiler_problem(dev)}")
    if ":" in s and all(part.strip().isdigit() for part in s.split(":", 1)):
        return DeviceError(f"no device {spec!r} (platform:device); devices present: "
                           + _short_list(devs))
    return DeviceError(f"no device matches {spec!r}; devices present: " + _short_list(devs))


def _short_list(devs):
    return "; ".join(f"{p}:{d} {dev.name.strip()} ({_type_name(dev)})" for p, d, dev in devs)


def describe_devices() -> list[dict]:
    """One dict per device: the columns of ``pyclmatch devices``.

    Examples
    --------
    >>> import pyclmatch
    >>> rows = pyclmatch.describe_devices()
    >>> sorted(rows[0])[:4]
    ['compute_units', 'device', 'driver', 'global_mem']
    >>> any(row["usable"] for row in rows)
    True
    """
    rows = []
    for p, d, dev in list_devices():
        rows.append({
            "index": f"{p}:{d}", "platform": dev.platform.name.strip(),
            "device": dev.name.strip(), "type": _type_name(dev),
            "compute_units": dev.max_compute_units, "global_mem": dev.global_mem_size,
            "local_mem": dev.local_mem_size, "max_alloc": dev.max_mem_alloc_size,
            "opencl": dev.version.strip(), "driver": dev.driver_version.strip(),
            "usable": compiler_problem(dev) is None, "problem": compiler_problem(dev),
        })
    return rows


# --------------------------------------------------------------------------- ICD doctor

NVIDIA_LIB = "libnvidia-opencl.so.1"
_SEARCH_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64",
                "/usr/local/nvidia/lib", "/usr/lib/aarch64-linux-gnu", "/usr/local/cuda/lib64",
                "/usr/local/cuda/targets/x86_64-linux/lib")


def find_nvidia_opencl():
    """Full path of ``libnvidia-opencl.so.1`` if the NVIDIA driver ships it, else ``None``."""
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True,
                             timeout=10).stdout
        for line in out.splitlines():
            parts = line.strip().split()
            if parts and parts[0] == NVIDIA_LIB and "=>" in line:
                path = line.split("=>", 1)[1].strip()
                if os.path.exists(path):
                    return path
    except (OSError, subprocess.SubprocessError):
        pass
    for d in _SEARCH_DIRS:
        p = os.path.join(d, NVIDIA_LIB)
        if os.path.exists(p):
            return p
    return None


def _vendor_dirs():
    env = os.environ.get("OCL_ICD_VENDORS")
    if env:
        return [env] if os.path.isdir(env) else [os.path.dirname(env) or "."]
    return ["/etc/OpenCL/vendors"]


def _icd_files():
    files = []
    for d in _vendor_dirs():
        files += sorted(glob.glob(os.path.join(d, "*.icd")))
    env = os.environ.get("OCL_ICD_VENDORS")
    if env and os.path.isfile(env):
        files.append(env)
    return files


def diagnose_icd():
    """Why is there no NVIDIA GPU? Returns a dict with ``ok``, ``problem`` and ``fix`` lines."""
    devs = list_devices()
    have_nvidia = any("nvidia" in dev.platform.name.lower() for _, _, dev in devs)
    lib = find_nvidia_opencl()
    report = {"nvidia_platform": have_nvidia, "nvidia_library": lib,
              "vendor_dirs": _vendor_dirs(), "icd_files": _icd_files(),
              "OCL_ICD_VENDORS": os.environ.get("OCL_ICD_VENDORS"), "ok": True,
              "problem": None, "fix": None}
    if have_nvidia or lib is None:
        if not devs:
            report.update(ok=False, problem="no OpenCL platform is visible at all",
                          fix=_no_device_hint())
        return report
    named = []
    for f in report["icd_files"]:
        try:
            with open(f) as fh:
                if "nvidia" in fh.read().lower():
                    named.append(f)
        except OSError:
            pass
    target = default_vendor_dir()
    problem = (f"the NVIDIA OpenCL driver is installed ({lib}) but the ICD loader sees no NVIDIA "
               f"platform: " + ("no vendors file names it" if not named else
                                f"{', '.join(named)} names it but the library did not load"))
    fix = (f"mkdir -p {target} && echo {lib} > {target}/nvidia.icd && "
           f"export OCL_ICD_VENDORS={target}   (or run: pyclmatch devices --fix)")
    report.update(ok=False, problem=problem, fix=fix)
    return report


def default_vendor_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pyclmatch", "opencl-vendors")


def fix_icd(target=None):
    """Write an ``OCL_ICD_VENDORS`` folder naming the NVIDIA library (and the vendors already
    registered, so that CPU drivers stay visible). Returns ``(folder, export_line)``; raises
    :class:`DeviceError` when no NVIDIA OpenCL library exists on this machine."""
    lib = find_nvidia_opencl()
    if lib is None:
        raise DeviceError(f"no {NVIDIA_LIB} on this machine: the NVIDIA driver (or its OpenCL "
                          f"part) is not installed, so there is nothing to register")
    target = target or default_vendor_dir()
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "nvidia.icd"), "w") as fh:
        fh.write(lib + "\n")
    for f in _icd_files():
        dst = os.path.join(target, os.path.basename(f))
        if os.path.abspath(f) != os.path.abspath(dst) and not os.path.exists(dst):
            with open(f) as src, open(dst, "w") as out:
                out.write(src.read())
    try:  # the PoCL of pyopencl's wheel (pocl extra) lives beside pyopencl
        for f in glob.glob(os.path.join(os.path.dirname(cl.__file__), ".libs", "*.icd")):
            dst = os.path.join(target, os.path.basename(f))
            if not os.path.exists(dst):
                lines = [ln.strip() for ln in open(f) if ln.strip()]
                if lines:
                    libp = lines[0]
                    if not os.path.isabs(libp):
                        libp = os.path.join(os.path.dirname(f), libp)
                    with open(dst, "w") as out:
                        out.write(libp + "\n")
    except Exception:
        pass
    return target, f"export OCL_ICD_VENDORS={target}"


def _gpu_hint():
    rep = diagnose_icd()
    return f". {rep['problem']}; fix: {rep['fix']}" if rep.get("problem") else ""


def _no_device_hint():
    return ("Install a CPU driver with `pip install pocl-binary-distribution` (the `pocl` extra "
            "of pyclmatch), or a vendor OpenCL driver; `pyclmatch devices` diagnoses more.")
