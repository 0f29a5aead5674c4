"""pyopencl's two-level scan asserts ``interval_size >= num_intervals``, which fails for a
band of sizes where the device has more than a third as many compute units as the scan's
first-level unit (the H100 with pyopencl's RadixSort: unsorted inputs of 66,000 to 100,500
entries). :mod:`pyclmatch.engine.scan_intervals` gives such calls fewer compute units. The
band starts above unit**2 entries (16.7M on PoCL, whose unit is 4096), so the scans
themselves run under ``-m slow``; the interval arithmetic is checked for every size here."""
import numpy as np
import pyopencl.array as cl_array
import pytest
from hypothesis import given, settings, strategies as st
from pyopencl.algorithm import RadixSort
from pyopencl.scan import GenericScanKernel
from pytools import uniform_interval_splitting

from pyclmatch.engine import scan_intervals


class _ManyUnits:
    def __init__(self, dev, units):
        self._dev, self.max_compute_units = dev, units

    def __getattr__(self, name):
        return getattr(self._dev, name)


def _scan(ctx):
    return GenericScanKernel(ctx, np.int32, arguments="__global int *a, __global int *out",
                             input_expr="a[i]", scan_expr="a+b", neutral="0",
                             output_statement="out[i] = item;")


def _unit(knl):
    return knl.first_level_scan_info.wg_size * knl.first_level_scan_info.k_group_size


def _pyopencl_fails(n, unit, units):
    size, count = uniform_interval_splitting(n, unit, 3 * units)
    return size < count


def _many_units(knl, units):
    knl.devices = [_ManyUnits(d, units) for d in knl.devices]
    return knl


def test_the_wrapper_is_installed():
    assert getattr(GenericScanKernel.__call__, "_pyclmatch_bound", False)
    assert scan_intervals.split_fails(98_256, 256, 132)      # (the H100 case)
    assert scan_intervals.units_for(98_256, 256, 132) == 85
    assert scan_intervals.units_for(16_777_216, 256, 132) == 132   # (outside the band)


@settings(max_examples=400, deadline=None)
@given(unit_log=st.integers(2, 13), units=st.integers(1, 100_000), n=st.integers(1, 2 ** 34))
def test_the_units_given_never_fail(unit_log, units, n):
    unit = 1 << unit_log
    given_units = scan_intervals.units_for(n, unit, units)
    assert not _pyopencl_fails(n, unit, given_units)
    assert given_units == units or scan_intervals.split_fails(n, unit, units)


@pytest.mark.slow
def test_scan_and_sort_in_the_band(device):
    ctx, q = device.context, device.queue
    knl = _many_units(_scan(ctx), 10 ** 6)
    n = _unit(knl) ** 2 + 12_345
    assert _pyopencl_fails(n, _unit(knl), 10 ** 6)
    x = np.random.default_rng(0).integers(-5, 5, n).astype(np.int32)
    a = cl_array.to_device(q, x)
    with pytest.raises(AssertionError):        # (pyopencl's own call)
        GenericScanKernel.__call__.__wrapped__(knl, a, cl_array.empty_like(a), queue=q)
    out = cl_array.empty_like(a)
    knl(a, out, queue=q)
    assert np.array_equal(out.get(), np.cumsum(x, dtype=np.int32))
    assert all(d.max_compute_units == 10 ** 6 for d in knl.devices)   # (restored)
    sort = RadixSort(ctx, "__global unsigned *keys", key_expr="keys[i]",
                     sort_arg_names=["keys"], key_dtype=np.uint32)
    _many_units(sort.scan_kernel, 10 ** 6)
    m = _unit(sort.scan_kernel) ** 2 + 777
    y = np.random.default_rng(1).integers(0, 2 ** 20, m).astype(np.uint32)
    (got,), _ = sort(cl_array.to_device(q, y), key_bits=20, queue=q)
    assert np.array_equal(got.get(), np.sort(y))
