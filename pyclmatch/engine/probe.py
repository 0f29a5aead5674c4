"""Run a kernel path once in a child process before this process relies on it.

Some OpenCL compilers abort the whole process instead of failing a build: PoCL 5.0 compiles a kernel's work-group function at its first enqueue, and its
work-item loop pass calls ``abort()`` ("Could not find a dominating alternative variable")
on Louvain's one-work-group kernels, which no Python code can catch. :func:`survives` runs a
short script that takes such a path on the same device in a child process; the answer is
kept per device and driver in the tuning cache (:mod:`pyclmatch.engine.tuning`, family
``"probe"``) and for the process, so each driver is probed once. Only PoCL devices are
probed (the compiler seen to abort); any other device, and a device without an enumerated
index (a context the caller made), counts as surviving.
"""
import os
import subprocess
import sys
import threading
import warnings

from . import tuning

#: the child process's environment variable: inside a probe, paths are taken unprobed
IN_PROBE = "PYCLMATCH_IN_PROBE"
#: seconds a probe may take (a compiler that hangs counts as failing)
PROBE_TIMEOUT_S = 300

_lock = threading.Lock()
_known = {}


def _needs_probe(handle):
    return (handle.index is not None and not os.environ.get(IN_PROBE)
            and "portable computing language" in handle.device.platform.name.lower())


def survives(handle, name, script):
    """Whether the Python ``script`` (which may use ``DEVICE``, the device spec ``"P:D"``)
    ran to its end in a child process on ``handle``'s device. ``name`` keys the answer; a
    failure warns once, naming the device, its driver and what the child printed last."""
    if not _needs_probe(handle):
        return True
    key = (tuning.device_key(handle), name)
    with _lock:
        if key in _known:
            return _known[key]
        stored = tuning.tuned_params(handle, "probe").get(name)
        if isinstance(stored, bool):
            _known[key] = stored
            return stored
        spec = f"{handle.index[0]}:{handle.index[1]}"
        env = dict(os.environ, **{IN_PROBE: "1"})
        try:
            out = subprocess.run([sys.executable, "-c", f"DEVICE = {spec!r}\n{script}"],
                                 env=env, capture_output=True, text=True,
                                 timeout=PROBE_TIMEOUT_S)
            ok, said = out.returncode == 0, (out.stderr or out.stdout).strip()
        except subprocess.TimeoutExpired:
            ok, said = False, f"no answer in {PROBE_TIMEOUT_S} s"
        except OSError:      # (no interpreter to start: nothing can be told)
            return True
        _known[key] = ok
        tuning.store(handle, "probe", dict(tuning.tuned_params(handle, "probe"), **{name: ok}))
    if not ok:
        last = said.splitlines()[-1] if said else "no message"
        warnings.warn(f"{name}: the child process that tried it on {handle.label} (driver "
                      f"{handle.device.driver_version.strip()}) failed ({last}); pyclmatch "
                      f"takes another path on this device", RuntimeWarning, stacklevel=3)
    return ok
