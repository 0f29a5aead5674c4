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


def main():
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
    import time
    import numpy as np
    replies.send(("ready", os.getpid()))
    seg, seg_name = None, None
    while True:
        try:
            msg = requests.recv()
        except (EOFError, OSError):
            break
        if msg[0] != "solve":
            break
        _, job, name, layout, delay = msg
        ptr = ind = out = None
        try:
            if name != seg_name:
                _release(seg)
                seg, seg_name = None, None
                seg, seg_name = _attach(name), name
            if delay:
                time.sleep(delay)
            buf = seg[1]
            ptr = np.frombuffer(buf, layout["ptr"][1], layout["ptr"][2], layout["ptr"][0])
            ind = np.frombuffer(buf, layout["ind"][1], layout["ind"][2], layout["ind"][0])
            n_major, n_minor = layout["major"]
            mj, mn, cj, cn, seconds = core.match_and_cover(ptr, ind, n_major, n_minor)
            if layout.get("spoil"):       # (tests: an answer whose check must fail)
                cj, cn = (cj[1:], cn) if cj.size else (cj, cn[1:])
            if layout.get("check"):
                t0 = time.perf_counter()
                problem = core.check_matching_and_cover(ptr, ind, n_major, n_minor, mj, mn,
                                                        cj, cn)
                seconds["verify"] = time.perf_counter() - t0
                if problem is not None:
                    raise AssertionError(f"the host answer failed its check: {problem}")
            out = np.frombuffer(buf, np.int32, n_major + n_minor + cj.size + cn.size,
                                layout["out"])
            np.concatenate((mj, mn, cj, cn), out=out)
            reply = ("done", job, int(cj.size), int(cn.size), seconds)
        except Exception as exc:      # (the caller's device answer stands)
            reply = ("error", job, f"{type(exc).__name__}: {exc}")
        ptr = ind = out = None        # (no view of the segment outlives the job)
        try:
            replies.send(reply + (time.perf_counter(),))
        except OSError:
            break
        spin = layout.get("spin", 0.0)
        if spin:      # (stay awake for the next job: see race.WORKER_SPIN_S)
            end = time.perf_counter() + spin
            while time.perf_counter() < end and not requests.poll(0):
                pass
    _release(seg)


if __name__ == "__main__":
    main()
