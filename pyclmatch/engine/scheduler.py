"""The launch scheduler: the host loop that chains kernel launches.

Every family drives its kernels through a :class:`Scheduler`:

* :meth:`Scheduler.launch` enqueues a kernel on the device's in-order queue under a *phase* name
  and keeps its profiling event, so the result can report device time per kernel phase;
* :meth:`Scheduler.read` is the only blocking read-back (a full round trip between host and
  device), counted so that drivers can keep them few: read a small flags buffer after
  a batch of launches rather than after each one;
* :meth:`Scheduler.sync` drains the queue (``queue.finish()``);
* in a raced call (``auto``'s race of the host family against the device family,
  :mod:`pyclmatch.bipartite.race`) ``Scheduler.race`` is the host attempt: every read-back and
  drain then waits on the device's event with a look at the host attempt before and after
  (:meth:`~pyclmatch.bipartite.race.HostRace.wait`), which raises
  :class:`~pyclmatch.bipartite.race.HostWon` once the host has answered;
* :meth:`Scheduler.bind` sets a kernel's arguments once for a loop that relaunches it with one
  or two arguments changed (a pass number): a launch is then one ``clSetKernelArg`` and one
  enqueue, without the per-call argument handling;
* :meth:`Scheduler.converge` runs a fixpoint loop without stopping the queue: it keeps
  enqueuing passes and reads the loop's flag with non-blocking copies, checked as they
  complete, so the device never idles on a round trip while the host decides;
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
    """The launches and read-backs of one call on one device, with their phase timings.

    Examples
    --------
    >>> import numpy as np, pyopencl.array as cla, pyclmatch
    >>> from pyclmatch.engine.scheduler import Scheduler
    >>> handle = pyclmatch.get_device("cpu")
    >>> sched = Scheduler(handle, label="example")
    >>> buf = cla.empty(handle.queue, 4, np.int32)
    >>> _ = sched.fill("init", buf, 7)
    >>> sched.read("init", np.zeros(4, np.int32), buf.data).tolist()
    [7, 7, 7, 7]
    >>> sched.call_counters()["readbacks"]
    1
    """
    #: :meth:`converge` defaults per device type: passes enqueued between two flag copies
    #: (the first chunks are 1 and 2 passes, so that a loop that converges at once stops
    #: early), and the copies that may be in flight before the host waits for the oldest
    CONVERGE = {"cpu": (1, 2), "gpu": (2, 3)}
    #: whether the waits for read-backs collect the profiling times of the events known
    #: complete (:meth:`_harvest`), rather than :meth:`kernel_times` all at the end
    HARVEST = True

    def __init__(self, handle, progress=None, label=""):
        self.handle = handle
        self.queue = handle.queue
        #: (phase, event) of every launch, fill and recorded copy; an entry becomes None once
        #: its device time is added to ``_device`` (:meth:`_harvest`)
        self._events = []
        self._device = defaultdict(float)
        #: the events before this index are complete (a read-back after them completed) or
        #: harvested
        self._complete = self._harvested = 0
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
        #: events of non-blocking read-backs that may still be in flight (a raced call's reads,
        #: :meth:`converge`'s flag copies after the one that stopped it): each holds the host
        #: array it writes into, and dropping one in pyopencl waits for it, so they are kept
        #: until the queue has drained, even when the call is abandoned (:meth:`drained`)
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

    def bind(self, phase, kernel, global_size, local_size, *args):
        """A :class:`BoundLaunch` of ``kernel(*args)`` over ``global_size``: call it with
        ``(index, value)`` pairs (numpy scalars) to relaunch with those arguments changed."""
        return BoundLaunch(self, phase, kernel, global_size, local_size, args)

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

    def fill(self, phase, buf, value, dtype=np.int32, start=0):
        """Fill a device buffer or array with ``value`` (an enqueue, not a round trip), from
        its element ``start`` on. For a ``pyopencl.array.Array`` only its bytes are filled
        (a pooled buffer can be larger)."""
        offset = 0
        if hasattr(buf, "nbytes") and hasattr(buf, "base_data"):  # pyopencl Array
            nbytes, dtype, offset, buf = int(buf.nbytes), buf.dtype, buf.offset, buf.base_data
        else:
            nbytes = int(buf.size)
        skip = start * np.dtype(dtype).itemsize
        offset, nbytes = offset + skip, nbytes - skip
        if nbytes <= 0:
            return None
        evt = cl.enqueue_fill_buffer(self.queue, buf, np.array(value, dtype), offset, nbytes)
        self._events.append((phase, evt))
        return evt

    def read(self, phase, host, buf, offset=0):
        """Blocking read of ``buf`` into ``host`` (one counted round trip; in a raced call a
        non-blocking copy waited for through :meth:`_await_reads`)."""
        t0 = time.perf_counter()
        mark = len(self._events)
        if self.race is None and not (self.HARVEST and self._harvested < self._complete):
            cl.enqueue_copy(self.queue, host, buf, src_offset=offset, is_blocking=True)
        else:
            evt = cl.enqueue_copy(self.queue, host, buf, src_offset=offset, is_blocking=False)
            self.queue.flush()
            self._await_reads([evt])
        self._complete = mark
        self.wall["readback"] += time.perf_counter() - t0
        self.handle.readbacks += 1
        return host

    def read_many(self, phase, arrays):
        """Blocking read of the small device arrays ``arrays`` together: non-blocking copies
        and one wait for the last (one counted round trip; in a raced call the wait looks at
        the host attempt, :meth:`_await_reads`). Returns the host copies."""
        t0 = time.perf_counter()
        mark = len(self._events)
        hosts = [np.empty(a.shape, a.dtype) for a in arrays]
        evts = [cl.enqueue_copy(self.queue, h, a.base_data, src_offset=a.offset,
                                is_blocking=False) for h, a in zip(hosts, arrays)]
        self.queue.flush()
        self._await_reads(evts)
        self._complete = mark
        self.wall["readback"] += time.perf_counter() - t0
        self.handle.readbacks += 1
        return hosts

    def _await_reads(self, evts):
        """Wait for the flushed non-blocking copies ``evts`` (in queue order): in a raced call
        through :meth:`~pyclmatch.bipartite.race.HostRace.wait` (a look at the host attempt
        before and after), the events kept in ``pending_reads`` (the host may have won, and
        dropping an event in flight waits for it)."""
        if self.race is not None:
            self.pending_reads.extend(evts)
            self.race.wait(evts[-1])
        else:
            if self.HARVEST:
                self._harvest(self._complete)
            evts[-1].wait()

    def read_later(self, phase, host, buf, offset=0):
        """Non-blocking read of ``buf`` into ``host`` (which must stay alive until the returned
        event completes; see :meth:`wait`), flushed so that the device starts it without a
        blocking call behind it."""
        evt = cl.enqueue_copy(self.queue, host, buf, src_offset=offset, is_blocking=False)
        self.queue.flush()
        self.counters["flag_reads"] += 1
        return evt

    @staticmethod
    def done(evt):
        """Whether ``evt`` has completed (a status query, no wait)."""
        return evt.command_execution_status == cl.command_execution_status.COMPLETE

    def converge(self, phase, step, flags, what, bound, chunk=None, ahead=None):
        """Repeat ``step()`` until a pass changes nothing; returns the passes enqueued and
        the host copy of ``flags`` (a small int32 device array) read after the last pass
        that counted.

        ``step()`` enqueues one pass of a monotone fixpoint iteration and returns its pass
        number (increasing); the kernels store the number of a pass that changed something
        in ``flags[0]`` (zeroed here first), so that after pass ``P`` the loop has converged
        once ``flags[0] < P``. After every ``chunk`` passes a non-blocking copy of the flag is
        enqueued; the host keeps enqueuing while the copies are in flight and checks them
        in order as they complete, waiting for the oldest only when ``ahead`` copies are
        outstanding. Passes enqueued after the converged one must be harmless no-ops (they
        are, for stamp-driven relaxations and queue searches with an empty frontier): they
        cost device time of a few checks each instead of an idle device per round trip.
        Raises :class:`IterationLimitError` when the flag read after more than ``bound``
        passes still shows a change (not merely when more than ``bound`` were enqueued)."""
        dc, da = self.CONVERGE["cpu" if self.handle.is_cpu else "gpu"]
        chunk, ahead = chunk or dc, ahead or da
        self.fill(phase, flags[:1], 0)
        ring = self.handle.flag_ring(ahead + 2, int(flags.size))
        pending, passes, slot, size = [], 0, 0, 1
        while True:
            for _ in range(size):
                last = step()
            passes += size
            size = min(2 * size, chunk)
            pending.append((self.read_later(phase, ring[slot, :flags.size], flags.data),
                            last, slot))
            slot = (slot + 1) % ring.shape[0]
            # (past the bound every copy in flight is waited for: the passes enqueued run
            # ahead of the copies seen, the more so on a device shared with other processes,
            # and the bound holds for the passes the copies show)
            while pending and (len(pending) > ahead or passes > bound
                               or self.done(pending[0][0])):
                evt, last_pass, at = pending.pop(0)
                self.wait(evt)
                if ring[at, 0] < last_pass:
                    # (the copies still in flight land in the ring later)
                    self.pending_reads.extend(e for e, _, _ in pending)
                    return passes, ring[at, :flags.size].copy()
            if passes > bound:
                raise IterationLimitError(
                    f"{self.label or 'device loop'}: {what} ran past {passes} passes on "
                    f"{self.handle.label}; stopped instead of hanging (please report this "
                    f"graph)")

    def get(self, phase, arr):
        """Blocking read of the device array ``arr`` (a counted round trip, timed under
        ``readback``), as a new numpy array."""
        t0 = time.perf_counter()
        mark = len(self._events)
        if self.race is not None:
            self.sync()
        host = self.handle.download(arr)
        self._complete = mark
        self.wall["readback"] += time.perf_counter() - t0
        return host

    def finish(self):
        self.queue.finish()
        self.pending_reads = []   # (a new list: drained() may have handed the old one out)

    def sync(self):
        """Wait until the queue has drained (``queue.finish()``); in a raced call through a
        marker event and :meth:`wait` (raises once the host has won)."""
        if self.race is None:
            self.queue.finish()
            return
        evt = cl.enqueue_marker(self.queue)
        self.queue.flush()
        self.wait(evt)

    def wait(self, evt):
        """Wait for the event ``evt`` (flushed: a :meth:`read_later`, a marker). In a raced
        call the wait looks at the host attempt before and after (and raises once it has
        won); otherwise a wait that blocks is counted in ``flag_waits`` and timed under
        ``readback``: unlike a blocking read it leaves the work enqueued behind the copy
        running, so the device does not idle."""
        if self.race is not None:
            self.race.wait(evt)
            return
        if self.done(evt):
            return
        t0 = time.perf_counter()
        if self.HARVEST:
            self._harvest(self._complete)
        evt.wait()
        self.wall["readback"] += time.perf_counter() - t0
        self.counters["flag_waits"] += 1

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
        self.finish()
        self._harvest(len(self._events))
        return dict(self._device)

    def _harvest(self, upto):
        """Add the device times of the complete events before index ``upto`` to ``_device``
        and drop them. The waits for a read-back do this for the events before the read-back
        they last saw complete, while the device runs what was enqueued since: the profiling
        queries (microseconds per event, thousands of events in a call) then cost the call
        no time where the device, not the host, is what it waits for."""
        start, end = cl.profiling_info.START, cl.profiling_info.END
        events, out = self._events, self._device
        for k in range(self._harvested, upto):
            phase, evt = events[k]
            events[k] = None
            try:      # (get_profiling_info directly: cheaper than evt.profile's getattr)
                out[phase] += (evt.get_profiling_info(end)
                               - evt.get_profiling_info(start)) * 1e-9
            except cl.Error:  # profiling unavailable on this event
                pass
        self._harvested = max(self._harvested, upto)

    def timings(self):
        """Wall-clock host steps plus ``kernel:<phase>`` device times, in seconds."""
        t = {k: v for k, v in self.wall.items()}
        for phase, sec in self.kernel_times().items():
            t[f"kernel:{phase}"] = sec
        return t


class BoundLaunch:
    """One kernel with its arguments kept (:meth:`Scheduler.bind`), relaunched by
    ``bound((index, value), ...)`` with the given arguments changed. A launch goes through
    pyopencl's generated invoker for the kernel's declared argument types, which sets every
    argument in one native call: cheaper than ``clSetKernelArg`` per changed argument plus
    ``enqueue_nd_range_kernel``'s Python wrapper, and indifferent to other launches of the
    same kernel object in between."""

    def __init__(self, sched, phase, kernel, global_size, local_size, args):
        ls = int(local_size) if local_size else None
        gs = int(global_size)
        if ls:
            gs = -(-gs // ls) * ls
        self.sched, self.phase, self.kernel = sched, phase, kernel
        self.gs, self.ls = (gs,), ((ls,) if ls else None)
        self.args = list(args)
        if not getattr(kernel, "_pyclmatch_typed", False):
            _declare_arg_types(kernel, self.args)

    def __call__(self, *changes):
        sched, args = self.sched, self.args
        for i, v in changes:
            args[i] = v
        if self.gs[0] == 0:
            return None
        evt = self.kernel(sched.queue, self.gs, self.ls, *args)
        sched._events.append((self.phase, evt))
        sched.counters["launches"] += 1
        return evt
