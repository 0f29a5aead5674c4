"""Size checks made before anything is allocated: what a call will need of the device and of
the host, from the input's declared sizes alone (shape, entry count), against what the device
(``CL_DEVICE_MAX_MEM_ALLOC_SIZE`` per buffer, ``CL_DEVICE_GLOBAL_MEM_SIZE`` in all) and the host
(available memory) can hold.

Every family calls :func:`check` with its footprint (:func:`bipartite_footprint`,
:func:`weighted_footprint`, :func:`louvain_footprint`) as soon as it knows the sizes, in O(1),
before converting the input or allocating a result, so that a declared size the machine cannot
hold (``scipy.sparse.csr_matrix((2**31 - 1, 2**31 - 1))``, a Matrix Market header declaring
10^12 rows) is refused at once with an error naming the sizes, instead of a long allocation, a
swap storm or numpy's ``MemoryError``. The families' own ``check_fits`` calls stay where the
exact buffers are known (after the device intake has merged duplicates, say).

The footprints are upper estimates of the buffers each family allocates (listed by name in the
errors). Host results (matchings, memberships: arrays of one entry per vertex) are answered
when they fit into :data:`HOST_FRACTION` of the host's available memory, and refused otherwise:
an empty graph of 2**31 - 1 vertices per side is answered on a host with 32 GiB available
(its two int32 matchings take 16 GiB) and refused on a smaller one.
"""
import os

import numpy as np

from ..errors import DeviceMemoryError, HostMemoryError
from .units import fmt_bytes as _fmt_bytes

#: the largest vertex count per side and (with 32-bit offsets) edge count: ids are int32
INDEX_MAX = int(np.iinfo(np.int32).max)

#: host needs below this many bytes are not checked (the check reads /proc/meminfo and the
#: cgroup files, tens of microseconds that a small graph's whole call should not pay)
HOST_CHECK_MIN = 64 << 20

#: the share of the host's available memory one call may fill with its results and host
#: conversions (the rest stays for the caller's own data and the other processes)
HOST_FRACTION = 0.5


def _read_int(path):
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def host_available():
    """Bytes of host memory available to this process: ``MemAvailable`` of /proc/meminfo,
    lowered to what the cgroup (container) limit leaves, else physical memory."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    if avail is None:
        try:
            avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            return 1 << 62                  # unknown: no host limit
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_int(limit_file), _read_int(usage_file)
        if limit is not None and usage is not None and limit < (1 << 60):
            avail = min(avail, max(0, limit - usage))
            break
    return avail


def host_budget():
    """Bytes one call may allocate on the host: :data:`HOST_FRACTION` of :func:`host_available`."""
    return int(host_available() * HOST_FRACTION)


def _total(buffers):
    """(sum of bytes, largest single buffer) of ``{name: bytes or (count, bytes each)}``."""
    total = largest = 0
    for v in buffers.values():
        count, each = v if isinstance(v, tuple) else (1, v)
        total += int(count) * int(each)
        largest = max(largest, int(each))
    return total, largest


def _listing(buffers, limit=4):
    """The largest buffers, by name, for an error message."""
    items = sorted(((int(v[0]) * int(v[1]) if isinstance(v, tuple) else int(v), k)
                    for k, v in buffers.items()), reverse=True)
    return ", ".join(f"{k} {_fmt_bytes(b)}" for b, k in items[:limit] if b)


def check(handle, what, sizes, device=None, host=None):
    """Raise unless a call fits: :class:`DeviceMemoryError` when a buffer of ``device``
    (``{name: bytes}`` or ``{name: (count, bytes each)}``) exceeds the device's largest
    allocation or all of them its global memory; :class:`HostMemoryError` when ``host`` exceeds
    :func:`host_budget` (needs under :data:`HOST_CHECK_MIN` pass unchecked). ``what`` names
    the call, ``sizes`` the input's sizes (both in the message; ``sizes`` may be empty).
    ``handle`` may be ``None`` (host only: the readers)."""
    what = f"{what} of {sizes}" if sizes else what
    if device and handle is not None:
        total, largest = _total(device)
        big = max(device, key=lambda k: int((device[k][1] if isinstance(device[k], tuple)
                                             else device[k])))
        if largest > handle.max_alloc:
            raise DeviceMemoryError(
                f"{what} does not fit device {handle.label}: buffer {big!r} needs "
                f"{_fmt_bytes(largest)} but the device's max allocation "
                f"(CL_DEVICE_MAX_MEM_ALLOC_SIZE) is {_fmt_bytes(handle.max_alloc)}")
        if total > handle.global_mem:
            raise DeviceMemoryError(
                f"{what} does not fit device {handle.label}: it needs "
                f"{_fmt_bytes(total)} of device memory ({_listing(device)}, ...) but the "
                f"device has {_fmt_bytes(handle.global_mem)} (CL_DEVICE_GLOBAL_MEM_SIZE)")
    if host:
        total, _ = _total(host)
        if total < HOST_CHECK_MIN:
            return
        budget = host_budget()
        if total > budget:
            raise HostMemoryError(
                f"{what} needs {_fmt_bytes(total)} of host memory "
                f"({_listing(host)}) but a call may use {_fmt_bytes(budget)} "
                f"({HOST_FRACTION:.0%} of the {_fmt_bytes(host_available())} available)")


def sizes_text(n_rows, n_cols=None, nnz=None, entries="edges"):
    """``"2147483647 x 2147483647 vertices, 0 edges"`` (for the messages)."""
    shape = f"{n_rows:,}" if n_cols is None else f"{n_rows:,} x {n_cols:,}"
    text = f"a graph of {shape} vertices"
    return text if nnz is None else f"{text} and {nnz:,} {entries}"


# -- footprints: the buffers of one call, from the sizes alone ----------------------------------

def bipartite_footprint(n_rows, n_cols, nnz, input_index_bytes=4):
    """maximum_matching: ``(device, host)`` buffers of a graph of ``n_rows`` x ``n_cols``
    vertices and ``nnz`` stored entries (both adjacencies, the intake's transpose counters, the
    matchings, Karp-Sipser degrees, the BFS arrays and cover flags; on the host the two
    matchings and the cover). With no entries nothing goes to the device."""
    nr, nc, m = int(n_rows), int(n_cols), int(nnz)
    o = 8 if m > INDEX_MAX else 4
    host = {"row matching": nr * 4, "column matching": nc * 4,
            "cover": 2 * min(nr, nc, m) * 4}
    if m == 0:
        return {}, host
    dev = {"row offsets": (nr + 1) * o, "column offsets": (nc + 1) * o,
           "row adjacency": m * 4, "column adjacency": m * 4,
           "transpose counters": (2, max(nr, nc, 1) * 4),
           "row vertex arrays": (4, max(nr, 1) * 4),      # rmatch, degrees, predecessor, cover
           "column vertex arrays": (5, max(nc, 1) * 4)}   # cmatch, degrees, bfs, root, cover
    if input_index_bytes != 4:
        dev["input indices"] = m * int(input_index_bytes)
    return dev, host


def weighted_footprint(n, nnz, b=None, weight_bytes=8):
    """weighted_matching (``b=None``) and b_matching (``b``: the sum of the b values):
    ``(device, host)`` buffers of a symmetric graph of ``n`` vertices and ``nnz`` stored
    entries (CSR, weights up to ``weight_bytes`` each, edge tails, the intake's twin and
    position arrays, the per-vertex arrays of Suitor or b-Suitor; on the host the mates and the
    matched pairs)."""
    n, m = int(n), int(nnz)
    host = {"mates": n * 8, "matched pairs": min(n, m) * 8}
    if m == 0:
        return {}, host
    dev = {"row offsets": (n + 1) * 4, "adjacency": m * 4, "weights": m * int(weight_bytes),
           "edge tails": m * 4, "intake twins and positions": (2, m * 4),
           "vertex arrays": (6, max(n, 1) * 8)}
    if b is not None:
        dev.update({"reverse edges": m * 4, "proposals": m * 4,
                    "suitor lists": max(int(b), 1) * 4, "b-Suitor state": (8, max(n, 1) * 4)})
        host["matched pairs"] = min(int(b), m) * 16
    return dev, host


def louvain_footprint(n, nnz, weight_bytes=8):
    """louvain: ``(device, host)`` buffers of a symmetric graph of ``n`` vertices and ``nnz``
    stored entries (the graph, its input weights, the aggregation's edge arrays and the next
    level's graph, sixteen per-vertex arrays, the scratch of the sort by community; on the
    host the membership, the seed's permuted copy and the level memberships)."""
    n, m = int(n), int(nnz)
    host = {"membership": n * 8, "levels": n * 8}
    if m == 0:
        return {}, host
    dev = {"vertices": (n + 1) * 4, "edges": m * 4, "weights": m * 4,
           "input weights": m * int(weight_bytes), "row index": m * 4,
           "aggregation edges": (2, m * 8), "new graph": (2, m * 8),
           "vertex arrays": (16, max(n, 1) * 4),
           "community sort scratch": max(n, 1) * 16}   # RadixSort: 4 int counters per key
    return dev, host


def capacity(handle, family="maximum_matching", degree=16, host=False):
    """The largest graph of ``family`` whose declared-size check passes on ``handle`` (and,
    with ``host=True``, on this host): ``(vertices per side, stored entries)`` for graphs of
    ``degree`` stored entries per vertex (symmetric families store each edge twice). A
    bisection over :func:`check` (and, except for maximum_matching, 2**31-1 stored entries
    at most)."""
    fp = {"maximum_matching": lambda n: bipartite_footprint(n, n, n * degree),
          "weighted_matching": lambda n: weighted_footprint(n, n * degree),
          "b_matching": lambda n: weighted_footprint(n, n * degree, b=2 * n),
          "louvain": lambda n: louvain_footprint(n, n * degree)}[family]
    lo, hi = 0, INDEX_MAX
    while lo < hi:
        mid = (lo + hi + 1) // 2
        dev, host_bytes = fp(mid)
        if family != "maximum_matching" and mid * degree > INDEX_MAX:
            hi = mid - 1                    # (32-bit edge offsets only: an InputError)
            continue
        try:
            check(handle, family, "", dev, host_bytes if host else None)
            lo = mid
        except DeviceMemoryError:
            hi = mid - 1
    return lo, lo * degree


FAMILIES = ("maximum_matching", "weighted_matching", "b_matching", "louvain")


def limits_table(handle, degrees=(2, 16, 64)):
    """Rows ``(family, degree, vertices, stored entries)``: :func:`capacity` of every family
    on ``handle`` (anything with ``max_alloc`` and ``global_mem``) at each average degree."""
    return [(fam, d, *capacity(handle, fam, d)) for fam in FAMILIES for d in degrees]
