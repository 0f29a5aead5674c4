"""The OpenCL devices as facts (names, types, compute units, driver), kept on disk so that
``auto``'s choice (:func:`pyclmatch.bipartite.choice.host_choice`) can tell, without loading
pyopencl, whether every device a name may select sends a graph to the host family.

:func:`pyclmatch.engine.devices.candidates` enumerates the devices (pyopencl, no context) and
writes their facts with :func:`remember`; :func:`cached_candidates` reads them back in a
later process. The file lies next to the tuning cache
(:func:`~pyclmatch.engine.tuning.cache_path`, ``-devices`` added to its name) and is off
when the tuning cache is. It is valid only while its :func:`stamp` holds: the OpenCL loader's
vendor files (names, times of change, the libraries they name), the environment variables
that steer loaders and drivers, the installed pyopencl and ``pocl-binary-distribution``
(the times of change of their files), the processors this process may use and the boot; a
file written under another stamp reads as no cache, and the devices are enumerated again.
A wrong cache could change only where ``auto`` answers, never the answer: the host family
is exact.

Examples
--------
>>> from pyclmatch.engine.catalog import DeviceFacts, select
>>> facts = [DeviceFacts((0, 0), "cpu-x", "Portable Computing Language", ["cpu"], 2, "5.0")]
>>> [f.index for f in select("cpu", facts)], select("gpu", facts), select("0:0", facts)[0].type
([(0, 0)], [], 'cpu')
"""
import importlib.util
import json
import os
import tempfile

from . import tuning

#: the device types in the order ``get_device("auto")`` tries them
TYPE_ORDER = ("gpu", "accelerator", "cpu")
#: environment variables (by prefix) that change which devices a process sees
_ENV_PREFIXES = ("OCL_ICD", "OPENCL_", "POCL_", "CUDA_VISIBLE", "ROCR_VISIBLE",
                 "HIP_VISIBLE", "GPU_DEVICE_ORDINAL", "ZE_AFFINITY")
_VERSION = 1


class DeviceFacts:
    """What ``auto``'s device profile and device selection read of one device: ``index``
    (platform, device), ``name``, ``platform_name``, ``types`` (its type names among
    :data:`TYPE_ORDER`), ``compute_units`` and ``driver_version`` (the tuning cache's key).

    Examples
    --------
    >>> from pyclmatch.engine.catalog import DeviceFacts
    >>> DeviceFacts((0, 1), "gpu-y", "NVIDIA CUDA", ["gpu"], 132, "550.1").type
    'gpu'
    """

    def __init__(self, index, name, platform_name, types, compute_units, driver_version):
        self.index = tuple(index)
        self.name, self.platform_name = name, platform_name
        self.types = list(types)
        self.compute_units, self.driver_version = int(compute_units), driver_version

    @property
    def type(self):
        return self.types[0] if self.types else "other"

    def to_json(self):
        return {"index": list(self.index), "name": self.name,
                "platform_name": self.platform_name, "types": self.types,
                "compute_units": self.compute_units, "driver_version": self.driver_version}

    def __repr__(self):
        return f"<device facts {self.index} {self.name!r} ({self.type})>"


def default_spec(spec):
    """``spec`` with ``None`` read as ``$PYCLMATCH_DEVICE`` or ``"auto"``."""
    if spec is None:
        spec = os.environ.get("PYCLMATCH_DEVICE", "").strip() or "auto"
    return spec


def select(spec, facts):
    """The members of ``facts`` (in order) that :func:`~pyclmatch.get_device` may select for
    the name ``spec``: every device of the named type(s) (``"auto"``: GPUs, accelerators,
    then CPUs), the ``"P:D"`` device, or those whose device or platform name contains it."""
    s = default_spec(spec).strip().lower()
    if s == "auto" or s in TYPE_ORDER:
        return [f for t in TYPE_ORDER if s in ("auto", t) for f in facts if t in f.types]
    if ":" in s and all(part.strip().isdigit() for part in s.split(":", 1)):
        want = tuple(int(x) for x in s.split(":", 1))
        return [f for f in facts if f.index == want]
    return [f for f in facts if s in f.name.lower() or s in f.platform_name.lower()]


def cache_file():
    """The device cache's path, or None when the tuning cache is off."""
    if not tuning.enabled():
        return None
    root, ext = os.path.splitext(tuning.cache_path())
    return root + "-devices" + (ext or ".json")


def _mtime(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _listing(directory, suffix=""):
    try:
        names = sorted(n for n in os.listdir(directory)
                       if n.endswith(suffix) and n != "__pycache__")
    except OSError:
        return None
    return [[n, _mtime(os.path.join(directory, n))] for n in names]


def _vendor_files():
    """The ICD loader's vendor files, each with its time of change and the library it names
    (and that library's, when the path is absolute)."""
    out = []
    dirs = [os.environ.get(k) for k in ("OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH")]
    for d in [d for d in dirs if d] + ["/etc/OpenCL/vendors"]:
        paths = [d] if os.path.isfile(d) else \
            [os.path.join(d, n) for n, _ in _listing(d, ".icd") or []]
        for path in paths:
            try:
                with open(path) as fh:
                    lib = fh.read(4096).strip()
            except OSError:
                lib = None
            out.append([path, _mtime(path), lib,
                        _mtime(lib) if lib and os.path.isabs(lib) else None])
    return out


def _package(name):
    """Times of change of an installed package's files (None when it is not installed):
    found without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    where = list(spec.submodule_search_locations)[0]
    return [where, _listing(where), _listing(os.path.join(where, ".libs"))]


def _boot_id():
    try:
        with open("/proc/sys/kernel/random/boot_id") as fh:
            return fh.read().strip()
    except OSError:
        return None


#: this process's last stamp and cache read: {"stamp": (env, stamp), "facts": (file's path
#: and times, stamp, facts)}
_MEMO = {}


def stamp():
    """What a valid cache must have been written under (module docstring): a few ``stat``
    calls, no import. Taken once per process (an OpenCL loader reads its vendor files once
    per process), again when the environment variables it holds change."""
    env = sorted([k, v] for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES))
    hit = _MEMO.get("stamp")
    if hit is not None and hit[0] == env:
        return hit[1]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    out = json.loads(json.dumps({
        "vendors": _vendor_files(), "env": env, "pyopencl": _package("pyopencl"),
        "pocl": _package("pocl_binary_distribution"), "cpus": [os.cpu_count(), cpus],
        "boot": _boot_id(), "version": _VERSION}))     # (as read back from the file)
    _MEMO["stamp"] = (env, out)
    return out


def _read(path):
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def cached_facts():
    """The cached :class:`DeviceFacts` of every device, or None (no cache, off, stale or
    unreadable). The file is parsed again only when it or the :func:`stamp` changed."""
    path = cache_file()
    if path is None:
        return None
    now, key = stamp(), (path, _mtime(path))
    hit = _MEMO.get("facts")
    if hit is not None and hit[0] == key and hit[1] is now:
        return hit[2]
    data = _read(path)
    facts = None
    if data is not None and data.get("stamp") == now:
        try:
            facts = [DeviceFacts(**d) for d in data["devices"]]
        except (KeyError, TypeError, ValueError):
            facts = None
    _MEMO["facts"] = (key, now, facts)
    return facts


def cached_candidates(spec):
    """:func:`select` over the cached facts, or None when there is no valid cache."""
    facts = cached_facts()
    return None if facts is None else select(spec, facts)


def remember(facts):
    """Write ``facts`` (every device, :class:`DeviceFacts`) to the cache under the current
    :func:`stamp`, unless it holds them already; a cache that cannot be written is left out
    silently (the devices are then enumerated in every process)."""
    path = cache_file()
    if path is None:
        return
    data = {"stamp": stamp(), "devices": [f.to_json() for f in facts]}
    if _read(path) == json.loads(json.dumps(data)):
        return
    _MEMO.pop("facts", None)
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, indent=1)
        os.replace(tmp, path)
    except OSError:
        pass
