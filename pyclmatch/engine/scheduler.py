"""The launch scheduler: the host loop that chains kernel launches.

Every family drives its kernels through a :class:`Scheduler`:

* :meth:`Scheduler.launch` enqueues a kernel on the device's in-order queue under a *phase* name
  and keeps its profiling event, so the result can report device time per kernel phase;
* :meth:`Scheduler.read` is the only blocking read-back (a full round trip: ~20 us on an H100,
  ~250 us on PoCL), counted so that drivers can keep them few: read a small flags buffer after
  a batch of launches rather than after each one;
* :meth:`Scheduler.sync` drains the queue (``queue.finish()``);
* in a raced call (``auto``'s race of the host family against the device family,
  :mod:`pyclmatch.bipartite.race`) ``Scheduler.race`` is the host attempt: every read-back and
  drain then waits on the device's event while polling the host attempt
  (:meth:`~pyclmatch.bipartite.race.HostRace.wait`), which raises
  :class:`~pyclmatch.bipartite.race.HostWon` as soon as the host has answered;
* :meth:`Scheduler.tick` guards every loop with an iteration bound that raises
  :class:`~pyclmatch.errors.IterationLimitError` instead of hanging;
* :meth:`Scheduler.step` times host-side steps (upload, download, verification) by wall clock.
"""
import contextlib
import sys
import time
from collections import defaultdict

import numpy as np
import pyopencl as cl

from ..errors import IterationLimitError


def _declare_arg_types(kernel, args):
    """Declare ``kernel``'s scalar argument types to pyopencl from its first launch (numpy
    scalars, memory objects, local memory): later launches take pyopencl's generated fast
    path, a few microseconds of host time instead of ~60 for its generic argument handling
    (measured on PoCL; per launch, which matters at hundreds of launches per call). Kernels
    are memoized per device, so this happens once per kernel. A launch passing a plain Python
    number leaves the kernel on the generic path (its type would be a guess)."""
    kinds = (cl.MemoryObjectHolder, cl.LocalMemory)
    if all(isinstance(a, kinds + (np.generic,)) for a in args):
        kernel.set_scalar_arg_dtypes([a.dtype if isinstance(a, np.generic) else None
                                      for a in args])
    kernel._pyclmatch_typed = True


class Scheduler:
    def __init__(self, handle, progress=None, label=""):
        self.handle = handle
        self.queue = handle.queue
        self._events = []
        self.wall = defaultdict(float)
        self.counters = defaultdict(int)
        self._ticks = defaultdict(int)
        self.progress = progress
        self.label = label
        self._last_progress = 0.0
        self._readbacks0 = handle.readbacks
        #: a raced call's host attempt (:class:`~pyclmatch.bipartite.race.HostRace`): its
        #: ``check()`` runs before every read-back and drain, its ``wait(event)`` waits for
        #: them (both raise once the host has won), or None
        self.race = None
        #: non-blocking read-backs of a raced call (their events hold the host arrays they
        #: write into; kept until the queue has drained, even when the call is abandoned)
        self.pending_reads = []

    # -- launching -------------------------------------------------------------------------
    def launch(self, phase, kernel, global_size, local_size, *args):
        """Enqueue ``kernel(*args)`` over ``global_size`` (rounded up to ``local_size``)."""
        if local_size:
            global_size = -(-int(global_size) // int(local_size)) * int(local_size)
            gs, ls = (global_size,), (int(local_size),)
        else:
            gs, ls = (int(global_size),), None
        if gs[0] == 0:
            return None
        if self.race is not None:
            self.race.glance()
        if not getattr(kernel, "_pyclmatch_typed", False):
            _declare_arg_types(kernel, args)
        evt = kernel(self.queue, gs, ls, *args)
        self._events.append((phase, evt))
        self.counters["launches"] += 1
        return evt

    def record(self, phase, evt):
        """Count the device time of ``evt`` (a copy, or the event a pyopencl helper such as a
        scan or ``copy_if`` returned) in ``phase``."""
        if evt is not None:
            self._events.append((phase, evt))
            try:
                kind = evt.command_type
            except cl.Error:
                kind = None
            self.counters["launches" if kind == cl.command_type.NDRANGE_KERNEL
                          else "copies"] += 1
        return evt

    def fill(self, phase, buf, value, dtype=np.int32):
        """Fill a device buffer or array with ``value`` (an enqueue, not a round trip). For a
        ``pyopencl.array.Array`` only its bytes are filled (a pooled buffer can be larger)."""
        offset = 0
        if hasattr(buf, "nbytes") and hasattr(buf, "base_data"):  # pyopencl Array
            nbytes, dtype, offset, buf = int(buf.nbytes), buf.dtype, buf.offset, buf.base_data
        else:
            nbytes = int(buf.size)
        if nbytes == 0:
            return None
        evt = cl.enqueue_fill_buffer(self.queue, buf, np.array(value, dtype), offset, nbytes)
        self._events.append((phase, evt))
        return evt

    def read(self, phase, host, buf, offset=0):
        """Blocking read of ``buf`` into ``host`` (one counted round trip; in a raced call a
        non-blocking copy waited for while polling the host attempt)."""
        t0 = time.perf_counter()
        if self.race is not None:
            self.race.check()
            evt = cl.enqueue_copy(self.queue, host, buf, src_offset=offset, is_blocking=False)
            self.pending_reads.append(evt)
            self.queue.flush()
            self.wait(evt)
        else:
            cl.enqueue_copy(self.queue, host, buf, src_offset=offset, is_blocking=True)
        self.wall["readback"] += time.perf_counter() - t0
        self.handle.readbacks += 1
        return host

    def get(self, phase, arr):
        """Blocking read of the device array ``arr`` (a counted round trip, timed under
        ``readback``), as a new numpy array."""
        t0 = time.perf_counter()
        if self.race is not None:
            self.sync()
        host = self.handle.download(arr)
        self.wall["readback"] += time.perf_counter() - t0
        return host

    def finish(self):
        self.queue.finish()

    def sync(self):
        """Wait until the queue has drained (``queue.finish()``); in a raced call through a
        marker event waited for while polling the host attempt (raises once it has won)."""
        if self.race is None:
            self.queue.finish()
            return
        self.race.check()
        evt = cl.enqueue_marker(self.queue)
        self.queue.flush()
        self.wait(evt)

    def wait(self, evt):
        """Wait for the event ``evt`` (flushed); in a raced call while polling the host
        attempt (raises once it has won)."""
        if self.race is None:
            evt.wait()
        else:
            self.race.wait(evt)

    def drained(self):
        """A marker of everything enqueued so far (flushed), with the events that must live
        until it completes: what a raced call the host won leaves on the queue."""
        evt = cl.enqueue_marker(self.queue)
        self.queue.flush()
        return evt, self.pending_reads

    # -- guards and host steps --------------------------------------------------------------
    def tick(self, loop, bound):
        """Count one iteration of ``loop``; raise when it exceeds ``bound``."""
        self._ticks[loop] += 1
        if self._ticks[loop] > bound:
            raise IterationLimitError(
                f"{self.label or 'device loop'}: loop {loop!r} exceeded its bound of {bound} "
                f"iterations on {self.handle.label}; the run was stopped instead of hanging "
                f"(please report this graph)")
        return self._ticks[loop]

    def ticks(self, loop):
        return self._ticks[loop]

    @contextlib.contextmanager
    def step(self, name):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.wall[name] += time.perf_counter() - t0

    def report(self, message, final=False, **values):
        """Progress line for long runs (at most one a second; ``final`` ends the line)."""
        if not self.progress:
            return
        now = time.perf_counter()
        if now - self._last_progress < 1.0 and not final:
            return
        self._last_progress = now
        if callable(self.progress):
            self.progress(message, values)
        else:
            vals = " ".join(f"{k}={v}" for k, v in values.items())
            print(f"\r[pyclmatch] {message} {vals}   ", end="\n" if final else "",
                  file=sys.stderr, flush=True)

    # -- results ----------------------------------------------------------------------------
    def call_counters(self):
        """The counters of this call: ``launches`` (kernels enqueued through :meth:`launch`,
        and those :meth:`record`-ed, e.g. the last kernel of a pyopencl scan), ``copies``,
        ``readbacks`` (every blocking device-to-host read on the handle since this scheduler
        was made: :meth:`read`, :meth:`get`, ``DeviceHandle.download``) and the drivers' own."""
        out = dict(self.counters)
        out["launches"] = out.get("launches", 0)
        out["readbacks"] = self.handle.readbacks - self._readbacks0
        return out

    def kernel_times(self):
        """Device seconds per phase from the profiling events (waits for the queue)."""
        self.queue.finish()
        out = defaultdict(float)
        start, end = cl.profiling_info.START, cl.profiling_info.END
        for phase, evt in self._events:
            try:      # (get_profiling_info directly: evt.profile's getattr costs ~3 us)
                out[phase] += (evt.get_profiling_info(end) - evt.get_profiling_info(start)) * 1e-9
            except cl.Error:  # profiling unavailable on this event
                pass
        return dict(out)

    def timings(self):
        """Wall-clock host steps plus ``kernel:<phase>`` device times, in seconds."""
        t = {k: v for k, v in self.wall.items()}
        for phase, sec in self.kernel_times().items():
            t[f"kernel:{phase}"] = sec
        return t
