"""The library's public calls and the devices they hold: :func:`device_call` (the decorator
of every function that may run on a device) and the one lock per OpenCL device it takes
(:func:`device_lock`), as the threads section of :mod:`pyclmatch.engine.devices` describes.
No pyopencl: a call answered on the host passes through it without loading the device
library."""
import functools
import inspect
import threading

from . import args as _args


#: one lock per OpenCL device (by its ``cl_device_id``), held by the library's calls
_DEVICE_LOCKS = {}
_DEVICE_LOCKS_LOCK = threading.Lock()
#: per thread: the depth of nested :func:`device_call` calls and the device locks they hold
_calls = threading.local()


def device_lock(device):
    """The lock that the library's calls on the OpenCL device ``device`` hold (one per
    device, shared by every handle and context of it)."""
    key = device.int_ptr
    with _DEVICE_LOCKS_LOCK:
        lock = _DEVICE_LOCKS.get(key)
        if lock is None:
            lock = _DEVICE_LOCKS[key] = threading.Lock()
        return lock


def device_call(fn):
    """Decorator of the library's public functions that run on a device: every device the
    call resolves through :func:`get_device` is held (:func:`device_lock`) until the call
    returns, so calls on one device from several threads run one at a time (module
    docstring). Nested calls (a function of the library calling another) hold each device
    once. A keyword argument the function does not take is refused as an
    :class:`~pyclmatch.errors.InputError` naming it (:func:`~pyclmatch.engine.args.no_unknown`),
    as those of its ``**params`` are."""
    sig = inspect.signature(fn).parameters
    named = None if any(p.kind is p.VAR_KEYWORD for p in sig.values()) else \
        {k for k, p in sig.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if named is not None and not named.issuperset(kwargs):
            _args.no_unknown(fn.__name__, {k: v for k, v in kwargs.items() if k not in named},
                             named)
        held = _calls.__dict__.setdefault("held", [])
        depth = getattr(_calls, "depth", 0)
        mark = len(held)
        _calls.depth = depth + 1
        try:
            return fn(*args, **kwargs)
        finally:
            _calls.depth = depth
            while len(held) > mark:
                held.pop().release()
    return call


def hold(handle):
    """Inside a :func:`device_call`: hold ``handle``'s device for the rest of the call."""
    if getattr(_calls, "depth", 0):
        lock = device_lock(handle.device)
        held = _calls.__dict__.setdefault("held", [])
        if lock not in held:
            lock.acquire()
            held.append(lock)
    return handle
