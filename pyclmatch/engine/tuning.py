"""Per-user cache of tuned template values, per device and algorithm family.

``examples/autotune.py`` sweeps a family's parameters on one device and calls :func:`store`
with the best; later calls (e.g. :func:`pyclmatch.maximum_matching`) apply
:func:`tuned_params` as defaults for the parameters the caller did not pass.

Location: ``$PYCLMATCH_TUNING`` if it names a file, else the platformdirs user cache dir
(``pyclmatch/tuning.json``), else ``~/.cache/pyclmatch/tuning.json``.
``PYCLMATCH_TUNING=off`` (or ``0``/``no``/``false``) disables reading and writing.
Keys: ``"<platform> | <device> | <driver>"`` -> family -> ``{"params": ..., "timings": ...,
"date": ...}``.  A missing or corrupt file reads as empty (never an error).
"""
import datetime
import copy
import functools
import json
import os
import tempfile

__all__ = ["cache_path", "enabled", "device_key", "tuned_params", "store", "load"]

_OFF = {"off", "0", "no", "false", "disable", "disabled"}


def enabled():
    return os.environ.get("PYCLMATCH_TUNING", "").strip().lower() not in _OFF


def cache_path():
    env = os.environ.get("PYCLMATCH_TUNING", "").strip()
    if env and env.lower() not in _OFF:
        return os.path.expanduser(env)
    return _default_path(os.environ.get("HOME", ""), os.environ.get("XDG_CACHE_HOME", ""))


@functools.lru_cache(maxsize=8)
def _default_path(home, xdg_cache):
    """The default cache file for these ``HOME`` / ``XDG_CACHE_HOME`` values (platformdirs'
    user cache dir; computed once per pair)."""
    try:
        import platformdirs
        base = platformdirs.user_cache_dir("pyclmatch")
    except ImportError:
        base = os.path.join(os.path.expanduser("~"), ".cache", "pyclmatch")
    return os.path.join(base, "tuning.json")


def device_key(handle):
    """``"<platform> | <device> | <driver>"`` of a device handle, or of its facts
    (:class:`~pyclmatch.engine.catalog.DeviceFacts`, which carry ``driver_version``)."""
    driver = getattr(handle, "driver_version", None)
    if driver is None:
        dev = getattr(handle, "device", None)
        driver = getattr(dev, "driver_version", "") if dev is not None else ""
    return f"{handle.platform_name} | {handle.name} | {str(driver).strip()}"


#: the last file read by :func:`load`: (path, (inode, size, mtime_ns)) -> its contents
_LOADED = {}


def load():
    """The cache's contents (``{}`` when off, missing or corrupt). The file is parsed again
    only when its path, inode, size or modification time changed since the last read (one
    ``stat`` per call otherwise: every ``maximum_matching`` call consults the cache)."""
    if not enabled():
        return {}
    path = cache_path()
    try:
        st = os.stat(path)
    except OSError:
        return {}
    stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
    hit = _LOADED.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        with open(path) as fh:
            data = json.load(fh)
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    _LOADED.clear()
    _LOADED[path] = (stamp, data)
    return data


def tuned_params(handle, family):
    """The stored best parameters of ``family`` on ``handle``'s device (``{}`` if none/off)."""
    entry = load().get(device_key(handle), {}).get(family)
    if not isinstance(entry, dict):
        return {}
    params = entry.get("params")
    return dict(params) if isinstance(params, dict) else {}


def store(handle, family, params, timings=None):
    """Record ``params`` as the best for ``family`` on ``handle``'s device. Returns the path
    written, or ``None`` when tuning is off."""
    if not enabled():
        return None
    path = cache_path()
    data = copy.deepcopy(load())
    data.setdefault(device_key(handle), {})[family] = {
        "params": dict(params), "timings": timings or {},
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, default=str)
    os.replace(tmp, path)
    return path
