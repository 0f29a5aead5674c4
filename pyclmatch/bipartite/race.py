"""``auto``'s race of the host family against a device family: the host attempt runs in a
persistent worker process (:mod:`pyclmatch.bipartite.hk_worker`), the device family in the
caller's process, and the first to finish answers.

Why a process: scipy's Hopcroft-Karp holds the GIL for its whole run, so a host attempt in a
thread stalls the device path's host loop behind it for the whole host attempt. The worker
is started with
``subprocess`` (``python hk_worker.py``: no ``multiprocessing`` spawn, which would re-import
the user's ``__main__``, and no fork of a process that holds an OpenCL context), lazily and in
the background: the first call that wants a race starts it and runs on the device alone while
it imports numpy and scipy; later calls race. The graph's stored lists go to the worker through
a shared-memory segment that this process owns (reused across calls, grown when a graph needs
more, unlinked at interpreter exit or when grown); the messages on the pipes are small tuples.

Policy (:meth:`HostWorker.available`, :class:`HostRace`): a call races only when the worker
is idle, and enqueues device work only when the queue holds none that a host win left.

* The device won and the worker still runs the abandoned host attempt (a host-hard graph can
  take seconds; compiled code cannot be interrupted): the call runs on the device alone, and
  once that attempt has run longer than the worker's measured start-up time it is killed and
  a fresh worker started in the background (waiting longer than a restart costs is the
  ski-rental bound: never more than twice the better of waiting and restarting). Killing at
  once would restart the worker after every device win, even where its attempt ends in a
  millisecond; waiting for any attempt to end leaves a loop over host-hard graphs without a
  race for as long as a host-hard attempt runs.
* The host won and the abandoned device work is still on the queue: the next raced call hands
  its graph to the worker at once but enqueues nothing until that work has drained (the device
  path waits on a marker of it while polling the worker), so device work never piles up behind
  host wins, and a host-hard graph still gets the device once the queue is free.
* The worker died, failed or cannot start: the call keeps the device's answer (a raced call
  never fails or hangs because of the worker); the next call that wants a race starts a new
  one. Where no worker can be started (no ``sys.executable``, not POSIX) calls never race.

The worker runs at nice 10 (``PYCLMATCH_RACE_NICE`` sets another niceness): its
Hopcroft-Karp is a speculative attempt, and beside a device path it would win nothing against
(a host-hard graph) it takes the host cores that path's own loop needs; at a lower priority it
takes less of them.

The device path notices a host win at each of its waits (:meth:`HostRace.wait`, called by
:class:`~pyclmatch.engine.scheduler.Scheduler` for its read-backs and queue drains in a raced
call: a look at the worker's pipe before and after a blocking wait for the device, as an
unraced call waits) and every ``GLANCE_S`` at its launches, so the host's answer is taken at
the end of the device wait in progress.
"""
import atexit
import os
import select
import subprocess
import sys
import threading
import time

import numpy as np

from .host import oriented

#: seconds of one wait on the worker's pipe between two looks at abandoned device work
#: (:meth:`HostRace.wait` with ``poll``)
POLL_S = 1e-4
#: seconds between two looks at the worker while the device path enqueues work
#: (:meth:`HostRace.glance`)
GLANCE_S = 2e-4
#: seconds the worker keeps polling its pipe after a reply before it blocks, in races
#: against GPUs (a worker that sleeps between jobs wakes on a cold core; calls in a loop find
#: it awake). Against CPU devices the worker never spins (the device's kernels need the
#: cores)
WORKER_SPIN_S = 0.2
#: seconds a raced host attempt sleeps before it starts (tests: a host that loses the race)
HOST_DELAY = 0.0
#: tests: the worker drops a vertex of its cover before the check (which must then fail)
HOST_SPOIL = False


class HostWon(Exception):
    """Raised at a wait of the device path in a raced call (:meth:`HostRace.check`,
    :meth:`HostRace.wait`) once the host's matching is ready: the device path stops there."""


def _drop_segment(shm):
    """Unlink the shared-memory segment ``shm`` (first: a mapping still in use cannot keep
    the name alive) and close this process's mapping."""
    for step in (shm.unlink, shm.close):
        try:
            step()
        except (OSError, BufferError):
            pass


def _align(n):
    return -(-int(n) // 64) * 64


class HostWorker:
    """The process's race worker (one, :meth:`get`): start, segment, jobs, restart, exit.
    All methods are non-blocking (a dead or stuck worker never holds a call up) and
    thread-safe (a call from a second thread while a race runs finds the worker busy)."""

    _one = None
    _make = threading.Lock()

    @classmethod
    def get(cls):
        with cls._make:
            if cls._one is None or cls._one.pid != os.getpid():   # (a forked child: its own)
                cls._one = cls()
                atexit.register(cls._one.close)
            return cls._one

    def __init__(self):
        self.lock = threading.RLock()
        self.proc = self.requests = self.replies = None
        self.state = "off"        # off | booting | idle | busy
        self.started_at = None
        self.boot_seconds = None  # measured start-up (imports) of the last worker
        self.shm = None
        self.job = 0
        self.busy_job = self.busy_since = None
        self.reply = None         # the reply to busy_job once it came
        self.starts = 0           # workers started (counters and tests)
        self.supported = os.name == "posix"
        self.pid = os.getpid()

    # -- life ----------------------------------------------------------------------------
    def start(self):
        """Start a worker in the background (returns at once; ``state`` "booting" until its
        ready message). False where none can be started."""
        from multiprocessing.connection import Connection
        with self.lock:
            if not self.supported:
                return False
            self._drop_process()
            try:
                path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "hk_worker.py")
                self.proc = subprocess.Popen([sys.executable, path], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, close_fds=True)
            except (OSError, ValueError):
                self.supported = False      # (no interpreter to start: never race)
                return False
            self.requests = Connection(os.dup(self.proc.stdin.fileno()), readable=False)
            self.replies = Connection(os.dup(self.proc.stdout.fileno()), writable=False)
            # (one poll object for the replies: Connection.poll builds a selector per call,
            # at every look of a raced call)
            self._poller = select.poll()
            self._poller.register(self.replies.fileno(), select.POLLIN)
            self.proc.stdin.close()
            self.proc.stdout.close()
            self.state, self.started_at, self.starts = "booting", time.perf_counter(), \
                self.starts + 1
            self.busy_job = self.busy_since = self.reply = None
            return True

    def _drop_process(self):
        """Kill the worker (if any) and forget it; the segment stays for the next one."""
        proc, self.proc = self.proc, None
        for conn in (self.requests, self.replies):
            if conn is not None:
                try:
                    conn.close()
                except OSError:
                    pass
        self.requests = self.replies = None
        self.state = "off"
        self.busy_job = self.busy_since = self.reply = None
        if proc is not None and proc.poll() is None:
            proc.kill()
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass

    def close(self):
        """Interpreter exit: stop the worker (a quit message, then a kill) and unlink the
        segment."""
        if self.pid != os.getpid():    # (a forked child: the worker is its parent's)
            return
        with self.lock:
            proc = self.proc
            if proc is not None and proc.poll() is None and self.state in ("idle", "booting"):
                try:
                    self.requests.send(("quit",))
                    proc.wait(timeout=0.5)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._drop_process()
            if self.shm is not None:
                _drop_segment(self.shm)
                self.shm = None

    # -- messages --------------------------------------------------------------------------
    def _take(self, msg):
        if msg[0] == "ready":
            self.boot_seconds = time.perf_counter() - self.started_at
            self.state = "idle"
        elif msg[1] == self.busy_job:
            self.reply = msg
            self.state = "idle"
        elif self.state == "busy" and self.busy_job is None:   # an abandoned job's reply
            self.state = "idle"

    def pump(self, timeout=0.0):
        """Take the worker's replies that have come (waiting up to ``timeout`` seconds for
        the first); a closed pipe or a dead worker drops it. Returns whether any came."""
        with self.lock:
            if self.replies is None:
                return False
            got = False
            try:
                while self._poller.poll(0 if got else 1e3 * timeout):
                    self._take(self.replies.recv())
                    got = True
            except (EOFError, OSError):
                self._drop_process()
            return got

    def available(self):
        """Whether a race can start now: an idle worker. Starts one in the background where
        there is none (or it died), and kills a worker whose abandoned host attempt has run
        longer than a restart takes (then starts a fresh one, also in the background)."""
        with self.lock:
            if not self.supported:
                return False
            if self.proc is not None and self.proc.poll() is not None:
                self._drop_process()
            self.pump()
            if self.state == "off":
                self.start()
                return False
            if self.state == "busy" and self.busy_job is None:   # an abandoned attempt
                boot = 0.5 if self.boot_seconds is None else self.boot_seconds
                if time.perf_counter() - self.busy_since > boot:
                    self.start()
                return False
            return self.state == "idle"

    # -- jobs --------------------------------------------------------------------------------
    def _segment(self, nbytes):
        from multiprocessing import shared_memory
        if self.shm is None or self.shm.size < nbytes:
            size = max(1 << 20, 1 << (int(nbytes) - 1).bit_length())
            new = shared_memory.SharedMemory(create=True, size=size)
            if self.shm is not None:
                _drop_segment(self.shm)
            self.shm = new
        return self.shm

    def submit(self, graph, check=False, spin=0.0):
        """Hand ``graph``'s stored lists (checked by the intake) to the idle worker (which
        with ``check`` also checks its answer's certificate, and keeps polling for the next
        job ``spin`` seconds after its reply); returns the job number, or None when the
        worker could not take it."""
        with self.lock:
            if self.state != "idle":
                return None
            ptr, ind = np.asarray(graph.indptr), np.asarray(graph.indices)
            n_major, n_minor = graph.major
            at_ind = _align(ptr.nbytes)
            at_out = at_ind + _align(ind.nbytes)
            need = at_out + 4 * (n_major + n_minor + min(n_major, n_minor)) + 64
            try:
                shm = self._segment(need)
                np.frombuffer(shm.buf, ptr.dtype, ptr.size, 0)[:] = ptr
                np.frombuffer(shm.buf, ind.dtype, ind.size, at_ind)[:] = ind
                layout = {"ptr": (0, ptr.dtype.str, ptr.size),
                          "ind": (at_ind, ind.dtype.str, ind.size),
                          "out": at_out, "major": (int(n_major), int(n_minor)),
                          "check": bool(check), "spoil": HOST_SPOIL,
                          "spin": float(spin)}
                self.job += 1
                self.requests.send(("solve", self.job, shm.name, layout, HOST_DELAY))
            except (OSError, ValueError):
                self._drop_process()
                return None
            self.state, self.busy_job, self.busy_since = "busy", self.job, time.perf_counter()
            self.reply = None
            self.layout = layout
            return self.job

    def result(self, job):
        """The reply to ``job`` when it came (None before, or once it is no longer ours)."""
        with self.lock:
            if self.busy_job == job and self.reply is not None:
                return self.reply
            return None

    def read(self, job):
        """``(row-or-col mates of the major side, of the minor side, cover lists, seconds)``
        of the finished ``job``, copied out of the segment."""
        with self.lock:
            _, _, kr, kc, seconds, _ = self.reply
            n_major, n_minor = self.layout["major"]
            out = np.frombuffer(self.shm.buf, np.int32, n_major + n_minor + kr + kc,
                                self.layout["out"]).copy()
            self.busy_job = self.reply = None
        a, b, c = n_major, n_major + n_minor, n_major + n_minor + kr
        return out[:a], out[a:b], out[b:c], out[c:], seconds

    def abandon(self, job):
        """The device won ``job``: its host attempt runs on; its reply will free the worker."""
        with self.lock:
            if self.busy_job == job:
                if self.reply is not None:       # (it had finished after all)
                    self.state = "idle"
                self.busy_job = self.reply = None


class HostRace:
    """One raced call's host side: the graph handed to the idle worker at construction
    (``started`` False when the worker was not available: the call runs on the device
    alone, ``why`` says why). The device path calls :meth:`check` and :meth:`wait`
    (through the :class:`~pyclmatch.engine.scheduler.Scheduler`); :meth:`solved` gives the
    host's answer once it has won. ``gpu``: the device is a GPU (the worker stays awake
    ``WORKER_SPIN_S`` after its reply; against a CPU device it does not)."""

    def __init__(self, graph, worker=None, check=False, gpu=False):
        self.graph = graph
        #: whether the worker checks the host's answer (its certificate) before replying:
        #: the check then runs beside the device path instead of after the host has won
        self.checked = bool(check)
        self.worker = worker or HostWorker.get()
        self.t0 = time.perf_counter()
        self.seconds = self.noticed = self.latency = self.phases = None
        self.job = None
        self.why = None
        self.failed = None
        if not self.worker.available():
            self.why = {"off": "no race worker", "booting": "race worker starting",
                        "busy": "race worker busy (an abandoned host attempt, or another "
                                "thread's race)"}.get(self.worker.state,
                                                      "race worker unavailable")
            if not self.worker.supported:
                self.why = "no race worker on this platform"
        else:
            self.job = self.worker.submit(graph, check, WORKER_SPIN_S if gpu else 0.0)
            if self.job is None:
                self.why = "race worker could not take the graph"
        self.started = self.job is not None
        self.device_wait = 0.0
        self._glanced = self.t0

    def won(self, timeout=0.0):
        """Whether the host's answer is ready (waiting up to ``timeout`` for the worker)."""
        if not self.started or self.failed:
            return False
        reply = self.worker.result(self.job)
        if reply is None:
            self.worker.pump(timeout)
            reply = self.worker.result(self.job)
            if reply is None:
                if self.worker.state == "off":
                    self.failed = "the race worker died"
                return False
        if self.noticed is None:
            now = time.perf_counter()
            self.noticed = now - self.t0
            if reply[0] == "done":
                self.seconds = float(sum(reply[4].values()))
                self.phases = dict(reply[4])
                if sys.platform.startswith("linux"):   # (perf_counter: one clock for all)
                    self.latency = now - reply[5]
        if reply[0] != "done":
            self.failed = reply[2]
            self.worker.abandon(self.job)
            return False
        return True

    def check(self):
        """Raise :class:`HostWon` when the host has finished (a device read-back's check)."""
        if self.won():
            raise HostWon()

    def glance(self):
        """:meth:`check`, at most every ``GLANCE_S`` seconds (the scheduler's launches)."""
        now = time.perf_counter()
        if now - self._glanced >= GLANCE_S:
            self._glanced = now
            self.check()

    def wait(self, event, poll=False):
        """Wait for the device's ``event``, looking at the worker before and after: returns
        once the event has completed (or failed: the caller's next step reports it), raises
        :class:`HostWon` when the host's answer is ready at either look. The wait itself
        blocks in the driver as an unraced call's does: polling the event's status instead
        (spinning, or sleeping on the worker's pipe between looks) slows the device's queue
        itself. A host answer is therefore taken
        at the end of the device wait in progress, as in the device's own read-backs.
        ``poll=True`` (the wait for device work an earlier call abandoned, which may take
        long and whose speed no longer matters) looks at the worker every ``POLL_S`` until
        the event completes instead."""
        t0 = time.perf_counter()
        try:
            if self.won():
                raise HostWon()
            if poll and self.started and not self.failed:
                import pyopencl as cl
                complete = cl.command_execution_status.COMPLETE
                status = cl.event_info.COMMAND_EXECUTION_STATUS
                while event.get_info(status) > complete:
                    if self.won(POLL_S):
                        raise HostWon()
                    if self.failed:
                        break
            event.wait()
            if self.won():
                raise HostWon()
        finally:
            self.device_wait += time.perf_counter() - t0

    def solved(self):
        """The host's answer as :func:`pyclmatch.bipartite.host.solve` returns it."""
        return oriented(self.graph, *self.worker.read(self.job))

    def lost(self):
        """The device answered: the host attempt (if still running) is abandoned."""
        if self.started and not self.failed:
            self.won()          # (an answer that came meanwhile: its seconds)
            self.worker.abandon(self.job)

    def record(self, winner):
        """What ``res.choice["race"]`` reports: the winner, whether the host attempt started
        (and why not), the host's seconds (its matching, cover and check in the worker, in
        total and per phase; None while it still runs), when its answer was taken (seconds
        after the hand-over) and the seconds the device path spent in its raced waits; on
        Linux also how long the host's answer waited before the device path took it."""
        out = {"winner": winner, "host_started": self.started,
               "host_seconds": self.seconds, "host_answer_taken_s": self.noticed,
               "device_wait_s": self.device_wait}
        if self.latency is not None:
            out["host_answer_latency_s"] = self.latency
        if self.phases:
            out["host_phases_s"] = self.phases
        if self.why:
            out["why_not"] = self.why
        if self.failed:
            out["host_failed"] = self.failed
        return out
