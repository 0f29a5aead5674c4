"""pyopencl's two-level scan asserts ``interval_size >= num_intervals``, which fails for a
band of sizes where the device has more than a third as many compute units as the scan's
first-level unit (the H100 with pyopencl's RadixSort: an unsorted 98,256-entry matrix).
:mod:`pyclmatch.engine.scan_intervals` bounds the units every scan kernel sees. The band
starts above unit**2 entries (16.7M on PoCL, whose unit is 4096), so the scans themselves
run under ``-m slow``; the interval arithmetic is checked for every size here."""
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


def _fails(n, unit, units):
    size, count = uniform_interval_splitting(n, unit, 3 * units)
    return size < count


def _many_units(knl, units):
    knl.devices = [_ManyUnits(getattr(d, "_dev", d), units) for d in knl.devices]
    return knl


def test_every_scan_kernel_is_bounded(device):
    """Kernels built after pyclmatch's import (here and inside pyopencl's algorithms) see at
    most unit // 3 compute units."""
    for knl in (_scan(device.context), RadixSort(
            device.context, "__global unsigned *keys", key_expr="keys[i]",
            sort_arg_names=["keys"], key_dtype=np.uint32).scan_kernel):
        assert 3 * max(d.max_compute_units for d in knl.devices) <= max(_unit(knl), 3)


@settings(max_examples=300, deadline=None)
@given(unit_log=st.integers(2, 13), units=st.integers(1, 100_000),
       n=st.integers(1, 2 ** 34))
def test_bounded_units_never_split_past_the_second_level(unit_log, units, n):
    unit = 1 << unit_log

    class Info:
        wg_size, k_group_size = unit, 1

    class Knl:
        first_level_scan_info = Info

    knl = Knl()
    knl.devices = [_ManyUnits(object(), units)]
    scan_intervals.bound(knl)
    assert not _fails(n, unit, max(d.max_compute_units for d in knl.devices))


def test_the_band_exists_without_the_bound(device):
    """(Why the bound is there: the H100's 132 units and RadixSort's unit of 256 fail for
    98,256 entries.)"""
    assert _fails(98_256, 256, 132)
    knl = _many_units(_scan(device.context), 10 ** 6)
    assert any(_fails(n, _unit(knl), 10 ** 6) for n in (_unit(knl) ** 2 + 1,))


@pytest.mark.slow
def test_scan_and_sort_in_the_band(device):
    ctx, q = device.context, device.queue
    knl = _many_units(_scan(ctx), 10 ** 6)
    n = _unit(knl) ** 2 + 12_345
    assert _fails(n, _unit(knl), 10 ** 6)
    x = np.random.default_rng(0).integers(-5, 5, n).astype(np.int32)
    a = cl_array.to_device(q, x)
    with pytest.raises(AssertionError):        # (pyopencl's own behaviour, unbounded)
        knl(a, cl_array.empty_like(a), queue=q)
    scan_intervals.bound(knl)
    out = cl_array.empty_like(a)
    knl(a, out, queue=q)
    assert np.array_equal(out.get(), np.cumsum(x, dtype=np.int32))
    sort = RadixSort(ctx, "__global unsigned *keys", key_expr="keys[i]",
                     sort_arg_names=["keys"], key_dtype=np.uint32)
    _many_units(sort.scan_kernel, 10 ** 6)
    m = _unit(sort.scan_kernel) ** 2 + 777
    scan_intervals.bound(sort.scan_kernel)
    y = np.random.default_rng(1).integers(0, 2 ** 20, m).astype(np.uint32)
    (got,), _ = sort(cl_array.to_device(q, y), key_bits=20, queue=q)
    assert np.array_equal(got.get(), np.sort(y))
