"""The race worker: a separate Python process that runs the host family's Hopcroft-Karp and
König cover (:func:`pyclmatch.bipartite.hk_core.match_and_cover`) for ``auto``'s race
(:mod:`pyclmatch.bipartite.race`), so that scipy's routine, which holds its interpreter's GIL
for its whole run, never stalls the device path of the caller's process.

Started by :class:`~pyclmatch.bipartite.race.HostWorker` as ``python <this file>`` (by path,
not ``-m pyclmatch...``: importing the package would import pyopencl and the whole library,
about 0.7 s, where numpy and scipy take about 0.2 s; and the caller's working directory stays
off ``sys.path``). Protocol: pickled tuples over the process's stdin (requests) and stdout
(replies; the process's own prints go to stderr), the arrays in a shared-memory segment that
the caller owns (creates, grows, unlinks) and this process maps without registering it with a
resource tracker (the segment must outlive this process):

* request ``("solve", job, segment name, layout, delay)``: the stored lists at
  ``layout["ptr"]``/``layout["ind"]`` (offset, dtype, count), the side sizes, and with
  ``layout["check"]`` the certificate check of the answer too (a failed check is an
  ``"error"`` reply: the caller keeps the device answer) and ``layout["spin"]`` seconds to
  keep polling for the next request after the reply before blocking on the pipe; reply
  ``("done", job, kr, kc, seconds, sent)`` with the major and minor mates and the two cover
  lists written from ``layout["out"]`` on (int32), or ``("error", job, text, sent)``
  (``sent``: ``time.perf_counter()`` at the reply, the system-wide monotonic clock on Linux). ``delay``: seconds
  to sleep first (tests: a host attempt that loses);
* request ``("quit",)`` or end of input: exit.

The first reply, ``("ready", pid)``, says the imports are done.
"""
import os
import sys


def _attach(name):
    """(keeper, memoryview) of the shared-memory segment ``name``, mapped without the
    resource tracker (which would unlink the caller's segment when this process ends)."""
    from multiprocessing import shared_memory
    try:
        shm = shared_memory.SharedMemory(name, track=False)   # Python >= 3.13
        return shm, shm.buf
    except TypeError:
        pass
    import mmap
    import _posixshmem
    fd = _posixshmem.shm_open("/" + name, os.O_RDWR, mode=0o600)
    try:
        m = mmap.mmap(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)
    return m, memoryview(m)


def _release(seg):
    if seg is not None:
        keeper, view = seg
        view.release()
        keeper.close()


def _start():
    """The worker's setup: Ctrl-C left to the caller, a lower priority, the request and reply
    pipes (stdout goes to stderr after them), and the host core loaded by path. Sends
    ``("ready", pid)``; returns ``(requests, replies, core)``."""
    import signal
    from multiprocessing.connection import Connection
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # (the caller's Ctrl-C is the caller's)
    try:        # (a speculative attempt: the caller's device path goes first for the CPU)
        os.nice(int(os.environ.get("PYCLMATCH_RACE_NICE", "10")))
    except (OSError, ValueError):
        pass
    requests = Connection(os.dup(0), writable=False)
    replies = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)          # (stray prints must not corrupt the reply pipe)
    del sys.path[:1]       # (this file's folder: its modules are not top-level ones)
    here = os.path.dirname(os.path.abspath(__file__))
    import importlib.util
    spec = importlib.util.spec_from_file_location("_pyclmatch_hk_core",
                                                  os.path.join(here, "hk_core.py"))
    core = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(core)
    import numpy  # noqa: F401  (imported before "ready": the first job should not pay it)
    replies.send(("ready", os.getpid()))
    return requests, replies, core


def _solve(core, buf, layout):
    """One ``"solve"`` job on the segment's memory ``buf``: the answer written at
    ``layout["out"]``, checked with ``layout["check"]``. Returns ``(kr, kc, seconds)``; no
    view of the segment outlives the call (unless an exception's traceback holds it until
    the caller's ``except`` ends)."""
    import time
    import numpy as np
    ptr = np.frombuffer(buf, layout["ptr"][1], layout["ptr"][2], layout["ptr"][0])
    ind = np.frombuffer(buf, layout["ind"][1], layout["ind"][2], layout["ind"][0])
    n_major, n_minor = layout["major"]
    mj, mn, cj, cn, seconds = core.match_and_cover(ptr, ind, n_major, n_minor)
    if layout.get("spoil"):       # (tests: an answer whose check must fail)
        cj, cn = (cj[1:], cn) if cj.size else (cj, cn[1:])
    if layout.get("check"):
        t0 = time.perf_counter()
        problem = core.check_matching_and_cover(ptr, ind, n_major, n_minor, mj, mn, cj, cn)
        seconds["verify"] = time.perf_counter() - t0
        if problem is not None:
            raise AssertionError(f"the host answer failed its check: {problem}")
    out = np.frombuffer(buf, np.int32, n_major + n_minor + cj.size + cn.size, layout["out"])
    np.concatenate((mj, mn, cj, cn), out=out)
    return int(cj.size), int(cn.size), seconds


def _spin(requests, seconds):
    """Poll for the next request for ``seconds`` before blocking on the pipe (see
    ``race.WORKER_SPIN_S``: the next job starts without a wake-up)."""
    import time
    end = time.perf_counter() + seconds
    while time.perf_counter() < end and not requests.poll(0):
        pass


def main():
    """Serve ``"solve"`` requests until ``"quit"`` or the end of input (module docstring)."""
    import time
    requests, replies, core = _start()
    seg, seg_name = None, None
    while True:
        try:
            msg = requests.recv()
        except (EOFError, OSError):
            break
        if msg[0] != "solve":
            break
        _, job, name, layout, delay = msg
        try:
            if name != seg_name:
                _release(seg)
                seg, seg_name = None, None
                seg, seg_name = _attach(name), name
            if delay:
                time.sleep(delay)
            reply = ("done", job) + _solve(core, seg[1], layout)
        except Exception as exc:      # (the caller's device answer stands)
            reply = ("error", job, f"{type(exc).__name__}: {exc}")
        try:
            replies.send(reply + (time.perf_counter(),))
        except OSError:
            break
        if layout.get("spin", 0.0):
            _spin(requests, layout["spin"])
    _release(seg)


if __name__ == "__main__":
    main()
