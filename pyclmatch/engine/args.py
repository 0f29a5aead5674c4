"""The one argument checker: every public function and the CLI check their parameters here,
before any work, and every refusal is an :class:`~pyclmatch.errors.InputError` that names the
argument (``exc.argument``), shows the value as the caller wrote it and says what is allowed.

A leaf module (numpy and the errors only). Each checker returns the value in the type the
library works with (a Python ``int``, ``float``, ``bool`` or ``str``), so that a caller writes
``wg = args.integer("work_group_size", wg, low=1)`` and uses ``wg`` from there on. Values are
shown as written: a numpy ``uint64`` stays unsigned, a string keeps its quotes.

Examples
--------
>>> from pyclmatch.engine import args
>>> args.integer("max_level", 3, low=1)
3
>>> try:
...     args.integer("work_group_size", "64", low=1)
... except ValueError as exc:
...     print(exc.argument, "|", exc)
work_group_size | work_group_size='64' is not allowed: it must be an integer >= 1
>>> args.number("resolution", 0.5, low=0)
0.5
>>> args.choice("verify", "HOST", ("device", "host"))
'host'
"""
import functools
import math
import numbers
import operator

import numpy as np

from ..errors import InputError

#: largest value an unsigned 64-bit seed takes
SEED_MAX = 2**64 - 1
#: largest signed 32-bit integer (what the kernels' counters and sizes hold)
INT32_MAX = 2**31 - 1


def shown(value, limit=80):
    """``value`` as the caller wrote it, for a message: ``repr`` for Python scalars and
    strings, the exact integer of a numpy integer (``uint64`` stays unsigned), a short
    description of arrays and other objects.

    Examples
    --------
    >>> import numpy as np
    >>> shown(np.uint64(2**63)), shown("64"), shown(np.zeros((2, 3)))
    ('9223372036854775808', "'64'", 'an array of shape (2, 3) and dtype float64')
    """
    if isinstance(value, np.generic) and not isinstance(value, np.ndarray):
        value = value.item()
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        text = repr(value)
    elif isinstance(value, (list, tuple)) and len(value) <= 8:
        text = repr(value)
    else:
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def refuse(name, value, allowed):
    """Raise the :class:`InputError` of argument ``name``: its value and what is allowed.

    Examples
    --------
    >>> try:
    ...     refuse("b", -1, "a non-negative integer or an array of them")
    ... except ValueError as exc:
    ...     print(exc)
    b=-1 is not allowed: it must be a non-negative integer or an array of them
    """
    raise InputError(f"{name}={shown(value)} is not allowed: it must be {allowed}",
                     argument=name)


def _bounds_text(low, high):
    if low is not None and high is not None:
        return f" between {low} and {high}"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""


def integer(name, value, *, low=None, high=None, none=False, what="an integer"):
    """``value`` as a Python int in ``[low, high]``; ``none=True`` lets None through. Bools,
    floats (even integral ones), strings and arrays are refused: an integer parameter takes
    ``int`` or a numpy integer scalar.

    Examples
    --------
    >>> integer("seed", np.uint64(2**64 - 1), low=0)
    18446744073709551615
    >>> integer("max_level", None, low=1, none=True) is None
    True
    """
    if value is None and none:
        return None
    allowed = what + _bounds_text(low, high) + (", or None" if none else "")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        refuse(name, value, allowed)
    v = operator.index(value)
    if (low is not None and v < low) or (high is not None and v > high):
        refuse(name, value, allowed)
    return v


def number(name, value, *, low=None, high=None, low_open=False, none=False,
           what="a finite real number"):
    """``value`` as a finite Python float in ``[low, high]`` (``(low, high]`` with
    ``low_open``); ints and numpy reals accepted, bools, NaN, infinities, complex numbers and
    strings refused.

    Examples
    --------
    >>> number("resolution", 1, low=0)
    1.0
    >>> try:
    ...     number("resolution", float("nan"), low=0)
    ... except ValueError as exc:
    ...     print(exc)
    resolution=nan is not allowed: it must be a finite real number >= 0
    """
    if value is None and none:
        return None
    bounds = _bounds_text(low, high)
    if low_open and low is not None:
        bounds = bounds.replace(f">= {low}", f"> {low}")
    allowed = what + bounds + (", or None" if none else "")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        refuse(name, value, allowed)
    try:
        v = float(value)
    except (OverflowError, ValueError):
        refuse(name, value, allowed)
    if not math.isfinite(v) or (low is not None and (v <= low if low_open else v < low)) \
            or (high is not None and v > high):
        refuse(name, value, allowed)
    return v


def boolean(name, value):
    """``value`` as a bool: ``True``/``False`` (or numpy's), nothing else (a string
    ``"False"`` would be true).

    Examples
    --------
    >>> boolean("deterministic", np.True_)
    True
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    refuse(name, value, "True or False")


def choice(name, value, options, *, case=False, none=False):
    """``value`` as one of the strings ``options`` (compared case-insensitively unless
    ``case``); ``none=True`` lets None through; the message lists them all.

    Examples
    --------
    >>> choice("perm_type", "row", ("row", "column"))
    'row'
    """
    if value is None and none:
        return None
    opts = ", ".join(repr(o) for o in options) + (", or None" if none else "")
    if isinstance(value, str):
        key = value if case else value.strip().lower()
        for o in options:
            if key == (o if case else o.lower()):
                return o
    refuse(name, value, f"one of {opts}")


def seed(name, value):
    """A random seed: None, or an integer in ``[0, 2**64 - 1]`` (what numpy's generators
    take).

    Examples
    --------
    >>> seed("seed", 7), seed("seed", None)
    (7, None)
    """
    return integer(name, value, low=0, high=SEED_MAX, none=True)


def work_group_size(name, value, device_max=None, *, low=1, power_of_two=False):
    """A work-group size: None (the family's default), or an integer in ``[low,
    device_max]`` (``device_max``: the device's ``max_work_group_size``; None before the
    device is known, when only the type and ``low`` are checked), a power of two where the
    family's kernels reduce over the group by halving it (``power_of_two=True``).

    Examples
    --------
    >>> work_group_size("work_group_size", 48, 1024)
    48
    >>> try:
    ...     work_group_size("work_group_size", 10**9, 1024, power_of_two=True)
    ... except ValueError as exc:
    ...     print(exc)
    work_group_size=1000000000 is not allowed: it must be a power of two between 1 and 1024 (this device's largest work-group), or None
    """
    if value is None:
        return None
    what = "a power of two" if power_of_two else "an integer"
    if device_max is None:
        allowed = f"{what} >= {low}, or None"
    else:
        allowed = (f"{what} between {low} and {device_max} (this device's largest "
                   f"work-group), or None")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        refuse(name, value, allowed)
    v = operator.index(value)
    if v < low or (device_max is not None and v > device_max) or \
            (power_of_two and v & (v - 1)):
        refuse(name, value, allowed)
    return v


def verify(name, value, modes=("device", "host")):
    """A ``verify`` argument: True, False (or numpy's) or one of the strings ``modes``
    (case-insensitive); returned as a bool or the mode's name. Integers, None and other
    strings are refused.

    Examples
    --------
    >>> verify("verify", "HOST"), verify("verify", np.False_)
    ('host', False)
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        for m in modes:
            if value.strip().lower() == m:
                return m
    refuse(name, value, "True, False or one of " + ", ".join(repr(m) for m in modes))


def progress(name, value):
    """A ``progress`` argument: None, True/False, or a callable taking the reports.

    Examples
    --------
    >>> progress("progress", None), progress("progress", np.True_)
    (None, True)
    """
    if value is None or callable(value):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    refuse(name, value, "None, True, False or a callable")


def count(name, value):
    """An optional count: None (the default) or an integer >= 1.

    Examples
    --------
    >>> count("batch_rounds", 4), count("batch_rounds", None)
    (4, None)
    """
    return integer(name, value, low=1, high=INT32_MAX, none=True)


#: the most launches a batch parameter may enqueue between two read-backs
BATCH_MAX = 4096
#: the most timed repetitions a benchmark run takes (``pyclmatch bench --repeat``)
REPEAT_MAX = 1000


def batch(name, value):
    """An optional batch of launches enqueued between two read-backs (``batch_rounds``,
    ``batch_levels``, ...): None (the default) or an integer in ``[1, BATCH_MAX]``.

    Examples
    --------
    >>> batch("batch_rounds", 8)
    8
    """
    return integer(name, value, low=1, high=BATCH_MAX, none=True)


def size(name, value):
    """An optional size or bound: None (the default) or an integer >= 0.

    Examples
    --------
    >>> size("one_group_edges", 0)
    0
    """
    return integer(name, value, low=0, none=True)


def signed(name, value):
    """An optional integer of any sign (a negative value turns a feature off) that fits in
    32 bits, or None.

    Examples
    --------
    >>> signed("heavy_degree", -1)
    -1
    """
    return integer(name, value, low=-INT32_MAX - 1, high=INT32_MAX, none=True)


def options(func, params, specs):
    """The keyword arguments ``params`` of ``func`` (a function's name) checked against
    ``specs`` (name -> checker ``f(name, value)``, or None where the family checks the value
    itself): unknown names are refused (:func:`no_unknown`), each value goes through its
    checker. Returns the checked values in a new dict.

    Examples
    --------
    >>> options("f", {"batch_rounds": np.int64(3)}, {"batch_rounds": count})
    {'batch_rounds': 3}
    """
    no_unknown(func, params, specs)
    return {k: (v if specs[k] is None else specs[k](k, v)) for k, v in params.items()}


def buckets(name, value, *, none=True):
    """Degree buckets (:func:`pyclmatch.louvain`'s ``move_buckets`` / ``merge_buckets``):
    None (the defaults), or a sequence of ``(lowest degree, highest degree or None,
    work-items per vertex or None)`` triples covering the degrees from 1 up, each bucket
    starting one past the last one's highest degree, only the last one open-ended (highest
    None), work-items a power of two (or None: the whole work-group). Returned as a tuple of
    tuples of ints.

    Examples
    --------
    >>> buckets("move_buckets", [(1, 16, 16), (17, None, None)])
    ((1, 16, 16), (17, None, None))
    >>> try:
    ...     buckets("move_buckets", [5, 3, -1])
    ... except ValueError as exc:
    ...     print(exc)
    move_buckets=[5, 3, -1] is not allowed: it must be None or a sequence of (lowest degree, highest degree or None, work-items per vertex or None) triples: the first starting at 1, each next one at the last one's highest + 1, only the last one's highest None, work-items a power of two or None (at most 14)
    """
    allowed = ("None or a sequence of (lowest degree, highest degree or None, work-items per "
               "vertex or None) triples: the first starting at 1, each next one at the last "
               "one's highest + 1, only the last one's highest None, work-items a power of "
               "two or None (at most 14)")
    if value is None and none:
        return None
    if isinstance(value, (str, bytes, np.ndarray)) or not isinstance(value, (list, tuple)) \
            or not 1 <= len(value) <= 14:
        refuse(name, value, allowed)
    out, start = [], 1
    for i, b in enumerate(value):
        if isinstance(b, (str, bytes)) or not isinstance(b, (list, tuple, np.ndarray)) \
                or len(b) != 3:
            refuse(name, value, allowed)
        try:
            lo = integer(name, b[0], low=start, high=start)
            hi = integer(name, b[1], low=lo, high=INT32_MAX, none=True)
            t = integer(name, b[2], low=1, high=INT32_MAX, none=True)
        except InputError:
            refuse(name, value, allowed)
        if (hi is None) != (i == len(value) - 1) or (t is not None and t & (t - 1)):
            refuse(name, value, allowed)
        out.append((lo, hi, t))
        start = None if hi is None else hi + 1
    return tuple(out)


def shape(name, value, *, high=None):
    """A matrix shape: a pair of non-negative integers (each at most ``high``).

    Examples
    --------
    >>> shape("shape", (3, np.int64(4)))
    (3, 4)
    """
    allowed = "a pair of non-negative integers" + (f" each at most {high}" if high else "")
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        refuse(name, value, allowed)
    out = []
    for x in value:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
            refuse(name, value, allowed)
        x = operator.index(x)
        if x < 0 or (high is not None and x > high):
            refuse(name, value, allowed)
        out.append(x)
    return tuple(out)


def integer_array(name, value, *, low=None, high=None, size=None, what="integers"):
    """``value`` as a 1-D int64 array of integers in ``[low, high]`` (``size`` elements when
    given). Integral floats are taken; NaN, fractions, strings, objects and values past int64
    are refused, the offending value shown as written (a ``uint64`` stays unsigned).

    Examples
    --------
    >>> integer_array("b", [1, 2.0, 3], low=0).tolist()
    [1, 2, 3]
    >>> try:
    ...     integer_array("ids", np.array([2**63], np.uint64), low=0)
    ... except ValueError as exc:
    ...     print(exc)
    ids holds 9223372036854775808 at position 0: it must hold integers between 0 and 9223372036854775807
    """
    hi = np.iinfo(np.int64).max if high is None else high
    allowed = what + _bounds_text(low, hi)
    try:
        a = np.asarray(value)
    except Exception:
        refuse(name, value, f"a 1-D array of {allowed}")
    if a.ndim != 1 or (size is not None and a.size != size):
        want = f"a 1-D array of {size} {what}" if size is not None else f"a 1-D array of {what}"
        raise InputError(f"{name} has shape {a.shape}: it must be {want}", argument=name)
    if a.dtype.kind == "O":        # (Python ints past int64, or ints held as objects)
        a = _object_integers(name, a, allowed)
    if a.dtype.kind == "b" or a.dtype.kind not in "iuf":
        refuse(name, value, f"a 1-D array of {allowed}")
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (a != np.round(a))
        bad |= ~bad & ((a < -2.0**63) | (a >= 2.0**63))
        _first_bad(name, a, bad, allowed)
        if not isinstance(value, np.ndarray) and np.abs(a).max(initial=0) >= 2.0**53:
            # (a sequence mixing floats and ints past 2**53: its ints, exactly as written)
            a = np.fromiter((int(x) for x in np.asarray(value, dtype=object)), np.int64,
                            a.size)
    elif a.dtype == np.uint64:
        _first_bad(name, a, a > np.uint64(np.iinfo(np.int64).max), allowed)
    a = a.astype(np.int64, copy=False)
    if a.size:
        bad = np.zeros(a.shape, bool)
        if low is not None:
            bad |= a < low
        if high is not None:
            bad |= a > high
        _first_bad(name, a, bad, allowed)
    return a


def attribute(name, value):
    """An edge attribute's name (networkx's ``weight``): None or any hashable key.

    Examples
    --------
    >>> attribute("weight", "w"), attribute("weight", None)
    ('w', None)
    """
    try:
        hash(value)
    except TypeError:
        refuse(name, value, "None or an edge attribute's name (a hashable key)")
    return value


def vertex_ids(name, value, graph):
    """The vertex ids of edge array ``name`` as int64 (:func:`integer_array`: non-negative
    integers, a uint64 id past int64 shown unsigned); a refusal names ``graph``, the
    argument the edge arrays belong to.

    Examples
    --------
    >>> try:
    ...     vertex_ids("rows", [0, -1], "A")
    ... except ValueError as exc:
    ...     print(exc.argument, "|", exc)
    A | rows holds -1 at position 1: it must hold vertex ids (non-negative integers) between 0 and 9223372036854775807
    """
    with blame(graph, instead=name):
        return integer_array(name, value, low=0, what="vertex ids (non-negative integers)")


def _object_integers(name, a, allowed):
    """An object array of integers as int64, refused at the first element that is no integer
    (or a bool) or lies outside int64."""
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    for i, x in enumerate(a.tolist()):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral) \
                or not lo <= x <= hi:
            raise InputError(f"{name} holds {shown(x)} at position {i}: it must hold "
                             f"{allowed}", argument=name)
    return a.astype(np.int64)


def _first_bad(name, a, bad, allowed):
    """Refuse array ``name`` at its first flagged position, its value shown as stored."""
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{name} holds {shown(a[i])} at position {i}: it must hold "
                         f"{allowed}", argument=name)


def no_unknown(name, params, accepted):
    """Refuse keyword arguments of ``name`` (a function's name, or a phrase such as
    ``"maximum_matching(algorithm='gpr')"``) outside ``accepted``, listing them.

    Examples
    --------
    >>> try:
    ...     no_unknown("louvain", {"colour": 1}, ("seed", "resolution"))
    ... except ValueError as exc:
    ...     print(exc.argument, "|", exc)
    colour | louvain() got an unknown parameter colour=1; accepted: resolution, seed
    """
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        bad = unknown[0]
        label = f"{name}()" if name.isidentifier() else name
        raise InputError(f"{label} got an unknown parameter {bad}={shown(params[bad])}"
                         f"{' (and ' + ', '.join(unknown[1:]) + ')' if unknown[1:] else ''}"
                         f"; accepted: {', '.join(sorted(accepted))}", argument=bad)


class blame:
    """Context manager: an :class:`InputError` raised inside that names no argument is given
    ``argument`` (the graph intake's checks are about the graph argument, whichever helper
    raises them). ``instead``: an argument name of the functions called inside that is
    renamed ``argument`` too (a public function whose graph parameter is ``graph`` calling
    one whose graph parameter is ``A``). Usable as a decorator ``@blame("G")`` too.

    Examples
    --------
    >>> from pyclmatch.errors import InputError
    >>> try:
    ...     with blame("G"):
    ...         raise InputError("the matrix must be square")
    ... except ValueError as exc:
    ...     print(exc.argument)
    G
    >>> try:
    ...     with blame("graph", instead="A"):
    ...         raise InputError("the matrix must be 2-D", argument="A")
    ... except ValueError as exc:
    ...     print(exc.argument)
    graph
    """

    def __init__(self, argument, *, instead=None):
        self.argument, self.instead = argument, instead

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if isinstance(exc, InputError) and (exc.argument is None or
                                            (self.instead is not None
                                             and exc.argument == self.instead)):
            exc.argument = self.argument
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapped(*a, **kw):
            with blame(self.argument, instead=self.instead):
                return func(*a, **kw)
        return wrapped


def shape_of(name, value, want):
    """Refuse a matrix ``value`` whose ``shape`` is not ``want`` (a result checked against
    another matrix than the one it was computed on).

    Examples
    --------
    >>> import numpy as np
    >>> try:
    ...     shape_of("A", np.eye(2), (3, 3))
    ... except ValueError as exc:
    ...     print(exc)
    A has shape (2, 2): it must be (3, 3), the shape of the matrix the result was computed on
    """
    got = tuple(int(x) for x in value.shape)
    if got != tuple(want):
        raise InputError(f"{name} has shape {got}: it must be {tuple(want)}, the shape of the "
                         f"matrix the result was computed on", argument=name)
