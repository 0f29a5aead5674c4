"""Keep pyopencl's two-level scans within what their second level can scan.

``pyopencl.scan.GenericScanKernel`` (under ``RadixSort``, ``copy_if``, ``unique`` and every
scan pyclmatch builds) splits ``n`` items into at most ``3 * max_compute_units`` intervals,
each a multiple of the first level's unit (work-group size times items per work-item), and
then scans the per-interval sums in one interval: it asserts ``interval_size >=
num_intervals``. Where the unit is smaller than three times the device's compute units, that
fails for a band of sizes: on a GPU of 132 compute units (396 intervals) pyopencl's
``RadixSort`` (unit 256) of pyclmatch's 64-bit intake keys raises ``AssertionError`` for
unsorted inputs of about 66,000 to 100,500 entries.

:func:`install` wraps ``GenericScanKernel.__call__`` once, so the scans pyopencl builds inside
its own algorithms are covered too: a call whose size would fail the assertion runs with the
kernel's devices reporting at most ``unit // 3`` compute units (then ``3 * units <= unit``
and the assertion holds, for a unit of at least 3 items; pyopencl's are 16 or more); every
other call runs as pyopencl made it (bounding every call would slow the large sorts, which
then run in fewer intervals). After
construction ``GenericScanKernel`` reads its ``devices`` for ``max_compute_units`` alone. The
helpers pyclmatch memoizes per device are called under the device's lock, so the swap of
``devices`` for one call is not seen by another.
"""
import functools

from pyopencl.scan import GenericScanKernel
from pytools import uniform_interval_splitting


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


def split_fails(n, unit, units):
    """Whether pyopencl's split of ``n`` items into intervals (multiples of ``unit``, at most
    ``3 * units`` of them; pytools' ``uniform_interval_splitting``, as pyopencl calls it)
    leaves more intervals than one interval holds."""
    size, count = uniform_interval_splitting(int(n), int(unit), 3 * int(units))
    return size < count


def units_for(n, unit, units):
    """The compute units a scan of ``n`` items with first-level ``unit`` should see on
    devices of ``units``: ``units`` unless that split fails, else ``max(1, unit // 3)``."""
    return max(1, unit // 3) if split_fails(n, unit, units) else units


def install():
    """Wrap ``pyopencl.scan.GenericScanKernel.__call__`` (once)."""
    call = GenericScanKernel.__call__
    if getattr(call, "_pyclmatch_bound", False):
        return

    @functools.wraps(call)
    def __call__(self, *args, **kwargs):
        info = getattr(self, "first_level_scan_info", None)
        devs = getattr(self, "devices", None)
        n = kwargs.get("size")
        if n is None:
            try:
                n = args[self.first_array_idx].shape[0]
            except (AttributeError, IndexError, TypeError):
                n = None
        if info is None or not devs or not n:
            return call(self, *args, **kwargs)
        unit = int(info.wg_size) * int(info.k_group_size)
        units = max(d.max_compute_units for d in devs)
        cap = units_for(n, unit, units)
        if cap >= units:
            return call(self, *args, **kwargs)
        self.devices = [_FewerUnits(d, cap) for d in devs]
        try:
            return call(self, *args, **kwargs)
        finally:
            self.devices = devs
    __call__._pyclmatch_bound = True
    GenericScanKernel.__call__ = __call__
