"""Keep pyopencl's two-level scans within what their second level can scan.

``pyopencl.scan.GenericScanKernel`` (under ``RadixSort``, ``copy_if``, ``unique`` and every
scan pyclmatch builds) splits ``n`` items into at most ``3 * max_compute_units`` intervals,
each a multiple of the first level's unit (work-group size times items per work-item), and
then scans the per-interval sums in one interval: it asserts ``interval_size >=
num_intervals``. Where the unit is smaller than three times the device's compute units, that
fails for a band of sizes: on the H100 (132 units, 396 intervals) pyopencl's ``RadixSort`` of
pyclmatch's 64-bit intake keys raised ``AssertionError`` on an unsorted 98,256-entry matrix
(delaunay-14 with its rows and columns permuted). A scan of fewer intervals is still correct
and only a little less parallel, so each scan kernel sees at most ``unit // 3`` compute units
(:func:`bound`), which makes ``3 * units <= unit`` and the assertion always hold (for a
unit of at least 3 items; pyopencl's are 16 or more).

:func:`install` wraps ``GenericScanKernel.__init__`` once, so the scans pyopencl builds
inside its own algorithms are bounded too. Only the interval count changes: after
construction ``GenericScanKernel`` reads its ``devices`` for ``max_compute_units`` alone.
"""
import functools


class _FewerUnits:
    """A device as a scan kernel sees it: ``max_compute_units`` at most ``cap``, every other
    attribute the device's."""
    __slots__ = ("_dev", "_cap")

    def __init__(self, dev, cap):
        self._dev, self._cap = dev, cap

    @property
    def max_compute_units(self):
        return min(self._dev.max_compute_units, self._cap)

    def __getattr__(self, name):
        return getattr(self._dev, name)


def bound(knl):
    """Bound the interval count of the scan kernel ``knl`` by its first level's unit (a
    kernel without those attributes, from another pyopencl, is left as it is)."""
    info = getattr(knl, "first_level_scan_info", None)
    devs = getattr(knl, "devices", None)
    if info is None or not devs:
        return knl
    cap = max(1, int(info.wg_size) * int(info.k_group_size) // 3)
    if any(d.max_compute_units > cap for d in devs):
        knl.devices = [_FewerUnits(d, cap) for d in devs]
    return knl


def install():
    """Wrap ``pyopencl.scan.GenericScanKernel.__init__`` with :func:`bound` (once)."""
    try:
        from pyopencl.scan import GenericScanKernel
    except ImportError:      # pragma: no cover - pyopencl always has it
        return
    init = GenericScanKernel.__init__
    if getattr(init, "_pyclmatch_bound", False):
        return

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        bound(self)
    __init__._pyclmatch_bound = True
    GenericScanKernel.__init__ = __init__
