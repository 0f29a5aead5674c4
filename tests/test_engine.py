"""Device layer, program cache, templates and the ICD doctor."""
import os

import numpy as np
import pyopencl as cl
import pytest
import scipy.sparse as sp

import pyclmatch
from pyclmatch.engine import devices, programs
from pyclmatch.errors import KernelBuildError


def test_selection_forms(device):
    devs = pyclmatch.list_devices()
    assert devs
    p, d, dev = devs[0]
    assert pyclmatch.get_device(f"{p}:{d}").device == dev
    assert pyclmatch.get_device(dev).device == dev
    assert pyclmatch.get_device(dev.name[:6]).device.name == dev.name
    ctx = cl.Context([dev])
    h = pyclmatch.get_device(ctx)
    assert h.context is ctx
    assert pyclmatch.get_device(h) is h
    assert pyclmatch.get_device("auto") is pyclmatch.get_device("auto")  # cached handle
    kind = devices._type_name(dev)
    assert pyclmatch.get_device(kind).type == kind


def test_env_default(monkeypatch):
    p, d, dev = pyclmatch.list_devices()[0]
    monkeypatch.setenv("PYCLMATCH_DEVICE", f"{p}:{d}")
    assert pyclmatch.get_device().device == dev
    monkeypatch.setenv("PYCLMATCH_DEVICE", "no-such-device-xyz")
    with pytest.raises(pyclmatch.DeviceError):
        pyclmatch.get_device()


def test_nothing_rebuilt_on_second_call(device):
    A = sp.random(50, 50, density=0.1, random_state=1, format="csr")
    pyclmatch.maximum_matching(A, device=device)
    n_prog = len(device._programs)
    progs = dict(device._programs)
    pyclmatch.maximum_matching(A, device=device)
    assert len(device._programs) == n_prog
    assert all(device._programs[k] is v for k, v in progs.items())


def test_template_rendering_is_specialized():
    v = dict(index_t="int", offset_t="int", mode="ct", wr=True, apsb=True)
    src = programs.render_template("apfb.cl.mako", **v)
    assert "root" in src and "-neighbor_row" in src
    src2 = programs.render_template("apfb.cl.mako", **dict(v, wr=False, mode="mt"))
    assert "myRoot" not in src2
    assert programs.render_template("apfb.cl.mako", **v) is src   # rendered once


def test_build_failure_names_template_values_device(device, monkeypatch):
    monkeypatch.setattr(programs, "render_template",
                        lambda t, **v: "__kernel void broken(__global int *x) { x[0] = ; }")
    with pytest.raises(KernelBuildError) as ei:
        programs.build_program(device.context, device.label, "apfb.cl.mako",
                               {"mode": "ct", "wr": True})
    msg = str(ei.value)
    assert "apfb.cl.mako" in msg and "mode='ct'" in msg and device.label in msg


def test_missing_template_value():
    with pytest.raises(KernelBuildError, match="rendering"):
        programs.render_template("apfb.cl.mako", index_t="int")


def test_kernels_ship_in_package():
    assert os.path.exists(os.path.join(programs.KERNEL_DIR, "apfb.cl.mako"))
    assert os.path.exists(os.path.join(programs.KERNEL_DIR, "common.cl.mako"))


def test_kernels_of_this_copy():
    """The templates beside the imported package win over another copy's installed ones."""
    pkg = os.path.dirname(os.path.abspath(pyclmatch.__file__))
    assert os.path.dirname(programs.KERNEL_DIR) in (pkg, os.path.dirname(pkg))


def test_icd_doctor_diagnoses_unregistered_nvidia(monkeypatch, tmp_path):
    fake = tmp_path / "libnvidia-opencl.so.1"
    fake.write_text("")
    vendors = tmp_path / "empty-vendors"
    vendors.mkdir()
    monkeypatch.setattr(devices, "find_nvidia_opencl", lambda: str(fake))
    monkeypatch.setattr(devices, "list_devices", lambda: [])
    monkeypatch.setenv("OCL_ICD_VENDORS", str(vendors))
    rep = devices.diagnose_icd()
    assert not rep["ok"]
    assert "no vendors file names it" in rep["problem"]
    assert str(fake) in rep["fix"] and "OCL_ICD_VENDORS" in rep["fix"]
    out = tmp_path / "fixed"
    folder, export = devices.fix_icd(str(out))
    assert (out / "nvidia.icd").read_text().strip() == str(fake)
    assert export == f"export OCL_ICD_VENDORS={out}"


def test_icd_fix_without_driver(monkeypatch, tmp_path):
    monkeypatch.setattr(devices, "find_nvidia_opencl", lambda: None)
    with pytest.raises(pyclmatch.DeviceError, match="libnvidia-opencl"):
        devices.fix_icd(str(tmp_path / "x"))


def test_heavy_lists_cached_with_device_graph(device):
    """Heavy vertices (degree > threshold) of each side, from the device offsets by copy_if,
    equal numpy's; computed once per (side, threshold); none: no device list at all."""
    from pyclmatch import generators
    from pyclmatch.engine.graphs import as_bipartite, DeviceBipartite
    A = sp.csr_matrix(generators.kron(9))[:, :300]        # rectangular, power-law
    g = as_bipartite(A)
    dg = DeviceBipartite(device, g, need_csr=True)
    for side, ptr in (("cols", g.csc.indptr), ("rows", g.csr.indptr)):
        for t in (0, 5, 60):
            hl = dg.heavy(side, t)
            ref = np.flatnonzero(np.diff(ptr) > t)
            assert hl.count == ref.size > 0 and np.array_equal(hl.vertices.get(), ref)
            assert dg.heavy(side, t) is hl
        none = dg.heavy(side, int(np.diff(ptr).max()))
        assert none.count == 0 and none.vertices is None
    with pytest.raises(ValueError):     # a CSC's rows are a transpose, not built unasked
        DeviceBipartite(device, as_bipartite(A.tocsc())).heavy("rows", 3)


def test_gpu_upload_paths_on_any_device(monkeypatch):
    """The upload paths GPUs take (pooled asynchronous copies, page-locked staging) run and give
    the same answers on whatever device the tests have, by treating it as a non-CPU device."""
    import numpy as np
    from pyclmatch.engine.devices import DeviceHandle
    from pyclmatch.weighted import prepare_graph, weighted_matching, greedy_matching
    from pyclmatch.weighted.graph import with_random_weights
    from pyclmatch import generators
    h = pyclmatch.get_device(os.environ.get("PYCLMATCH_TEST_DEVICE") or None)
    g0 = with_random_weights(generators.kron(9), seed=3)
    ref = greedy_matching(g0)
    monkeypatch.setattr(DeviceHandle, "is_cpu", property(lambda self: False))
    host = np.arange(1000, dtype=np.int32)
    pinned = h.pinned_copy(host)
    assert np.array_equal(pinned, host) and pinned.ctypes.data != host.ctypes.data
    d = h.to_device(pinned)
    h.queue.finish()
    assert np.array_equal(d.get(), host)
    g = prepare_graph(g0, device=h)
    assert g.staged(h)
    monkeypatch.setattr(DeviceHandle, "DOWNLOAD_STAGE_MIN", 0)      # staged downloads too
    for _ in range(2):
        assert np.array_equal(weighted_matching(g, device=h, verify=False).mate, ref)
    # staged uploads in several chunks through the two stages taken in turn, and growing
    monkeypatch.setattr(DeviceHandle, "UPLOAD_STAGE_MIN", 0)
    monkeypatch.setattr(DeviceHandle, "STAGE_CHUNK", 1000)
    rng = np.random.default_rng(1)
    for size in (10, 5000, 20001, 3, 40000):
        a = rng.integers(-2**40, 2**40, size)
        d = h.to_device(a)
        assert np.array_equal(h.download(d), a) and np.array_equal(d.get(), a)
    assert np.array_equal(weighted_matching(g0.csr, device=h).mate, ref)
    assert pyclmatch.maximum_matching(generators.kron(8), device=h).verified


def test_download_staged_and_plain_agree():
    """``DeviceHandle.download``: the page-locked staging path (GPUs) and ``get()`` give the
    same arrays, for views with offsets, 2-D arrays, conversions and a growing stage buffer."""
    import pyopencl.array as cla
    h = pyclmatch.get_device(os.environ.get("PYCLMATCH_TEST_DEVICE") or None)
    rng = np.random.default_rng(0)
    small = rng.integers(-5, 5, 100, dtype=np.int32)
    big = rng.integers(-9, 9, (3000, 2), dtype=np.int64)
    ds, db = cla.to_device(h.queue, small), cla.to_device(h.queue, big)
    for staged in (True, False):
        for d, host in ((ds, small), (ds[17:60], small[17:60]), (db, big),
                        (db[5:2000], big[5:2000]), (ds[:0], small[:0])):
            out = h.download(d, staged=staged)
            assert out.dtype == host.dtype and np.array_equal(out, host)
            wide = h.download(d, np.int64, staged=staged)
            assert wide.dtype == np.int64 and np.array_equal(wide, host)
    first = h.download(ds, staged=True)
    h.download(db, staged=True)                 # grows the stage: earlier results stay intact
    assert np.array_equal(first, small)


def test_every_family_counts_launches_and_readbacks(device):
    """res.counters of every family holds the launches and the blocking read-backs of the
    call (the Scheduler's counts plus every download through the handle)."""
    import numpy as np
    import scipy.sparse as sp
    import pyclmatch
    A = sp.random(40, 40, density=0.1, format="csr", random_state=3)
    A.data[:] = np.arange(1, A.nnz + 1)
    S = (A + A.T).tocsr()
    S.setdiag(0)
    S.eliminate_zeros()
    results = [pyclmatch.maximum_matching(A, device=device),
               pyclmatch.maximum_matching(A, algorithm="gpr", device=device),
               pyclmatch.weighted_matching(S, device=device),
               pyclmatch.b_matching(S, 2, device=device),
               pyclmatch.louvain(S, device=device),
               pyclmatch.stable_marriage(pyclmatch.easy_instance(30, seed=1), device=device)]
    for res in results:
        c = res.counters
        assert c["launches"] > 0 and c["readbacks"] > 0, (type(res).__name__, c)


def test_staged_upload_windows(monkeypatch):
    """The GPU upload path (page-locked stages taken in turn) forced on this device: arrays
    larger than ``STAGE_MAX`` go up in windows through bounded stages, chunks split across
    host threads, and arrive whole; downloads above ``DOWNLOAD_STAGE_MAX`` are read unstaged."""
    from pyclmatch.engine.devices import DeviceHandle
    h = pyclmatch.get_device(os.environ.get("PYCLMATCH_TEST_DEVICE") or None)
    monkeypatch.setattr(DeviceHandle, "is_cpu", property(lambda self: False))
    monkeypatch.setattr(DeviceHandle, "UPLOAD_STAGE_MIN", 0)
    monkeypatch.setattr(DeviceHandle, "DOWNLOAD_STAGE_MIN", 0)
    monkeypatch.setattr(DeviceHandle, "STAGE_CHUNK", 1000)
    monkeypatch.setattr(DeviceHandle, "STAGE_MAX", 4096)
    monkeypatch.setattr(DeviceHandle, "DOWNLOAD_STAGE_MAX", 8192)
    h.queue.finish()
    for turn in (0, 1):                     # (stages grown by earlier calls go)
        h._memo.pop(("engine", "upload stage", turn), None)
    rng = np.random.default_rng(2)
    for size in (3, 511, 512, 513, 5000, 40001):
        a = rng.integers(-2**40, 2**40, size)
        d = h.to_device(a)
        assert np.array_equal(h.download(d), a)
        assert np.array_equal(d.get(), a)
    for turn in (0, 1):
        stage = h._memo.get(("engine", "upload stage", turn))
        assert stage is None or stage[0].nbytes <= 4096


_CHAIN_SRC = """
__kernel void relax(int n, int pass, __global int *x, __global int *flags)
{   /* pass p sets x[p] = x[p - 1] - 1 (a chain, one hop a pass), flags[0] = pass */
    const int i = get_global_id(0);
    if (i != pass || i >= n) return;
    const int v = x[i - 1] - 1;
    if (v > x[i]) { x[i] = v; flags[0] = pass; }
}
__kernel void scale(int n, int by, __global int *x)
{
    const int i = get_global_id(0);
    if (i < n) x[i] *= by;
}
"""


def test_converge_and_bound_launches(device):
    """Scheduler.converge stops once a pass changes nothing (however many copies are in
    flight), with the passes it needed plus at most the ones enqueued ahead; a BoundLaunch
    relaunches with only its pass changed, and sets all its arguments again after another
    launch of the same kernel object with other arguments."""
    import pyopencl.array as cla
    from pyclmatch.engine.scheduler import Scheduler
    from pyclmatch.errors import IterationLimitError
    prg = cl.Program(device.context, _CHAIN_SRC).build()
    relax, scale = cl.Kernel(prg, "relax"), cl.Kernel(prg, "scale")
    n = 40

    def chain(sched):
        x = cla.to_device(device.queue, np.r_[n, np.zeros(n - 1)].astype(np.int32))
        flags = cla.zeros(device.queue, 2, np.int32)
        bound = sched.bind("t", relax, n, 8, np.int32(n), np.int32(0), x.data, flags.data)
        count = [0]

        def step():
            count[0] += 1
            bound((1, np.int32(count[0])))
            return count[0]
        return x, flags, step
    for chunk, ahead in ((1, 1), (2, 3), (4, 2)):
        sched = Scheduler(device)
        x, flags, step = chain(sched)
        passes, host = sched.converge("t", step, flags, "chain", bound=10 * n,
                                      chunk=chunk, ahead=ahead)
        assert np.array_equal(x.get(), n - np.arange(n))
        # passes 1 .. n - 1 change something, pass n is the first that changes nothing
        assert n <= passes <= n + (ahead + 1) * chunk
        assert host[0] == n - 1
        sched.finish()
    x, flags, step = chain(sched)
    with pytest.raises(IterationLimitError):
        sched.converge("t", step, flags, "chain", bound=5)
    sched.finish()
    # a device shared with other processes: no flag copy has landed when the host looks, so
    # the passes enqueued outrun the bound; the copies in flight show the loop converged
    late = Scheduler(device)
    late.done = lambda evt: False
    x, flags, step = chain(late)
    passes, host = late.converge("t", step, flags, "chain", bound=n + 2, chunk=8, ahead=8)
    assert passes > n + 2 and host[0] == n - 1
    assert np.array_equal(x.get(), n - np.arange(n))
    late.finish()
    y = cla.to_device(device.queue, np.ones(16, np.int32))
    z = cla.to_device(device.queue, np.ones(16, np.int32))
    by2 = sched.bind("t", scale, 16, 8, np.int32(16), np.int32(2), y.data)
    by2()
    sched.launch("t", scale, 16, 8, np.int32(16), np.int32(5), z.data)
    by2()                                   # y again, by 2 (not z, not by 5)
    by2((1, np.int32(3)))
    assert np.array_equal(y.get(), np.full(16, 12)) and np.array_equal(z.get(), np.full(16, 5))


def test_select_kernels_keeps_helpers_and_the_kernels_named():
    src = ("/* } a comment { */\ninline int f(int x) { return x; }\n"
           "__kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
           "void a(__global int *x) { if (1) { x[0] = f(1); } /* } */ }\n"
           "__kernel void b(__global int *x) { x[0] = '}'; }\n")
    assert programs.kernel_names(src) == ["a", "b"]
    out = programs.select_kernels(src, ["b"])
    assert programs.kernel_names(out) == ["b"] and "inline int f" in out
    assert programs.select_kernels(src, ["a", "b"]) == src
    with pytest.raises(KeyError):
        programs.select_kernels(src, ["c"])


def test_kernel_groups_build_only_their_kernels():
    from pyclmatch.community.louvain import DeviceLouvain
    h = pyclmatch.get_device("cpu")
    dl = DeviceLouvain(h, "int")
    knl = dl.kernel("input_stats_long")
    names = set(knl.program.kernel_names.split(";"))
    assert names == {"input_stats_long", "input_convert_long", "check_symmetric", "input_total"}
    # a kernel of a program built already comes from it, not from its first group's
    built = len(h._programs)
    assert "check_symmetric" in dl.kernel("check_symmetric").program.kernel_names.split(";")
    assert len(h._programs) == built
    og = dl.kernel("optimize_level_one_group").program.kernel_names.split(";")
    assert set(og) == {"optimize_level_one_group", "aggregate_level_one_group"}
    with pytest.raises(AttributeError, match="no kernel"):
        dl.kernel("no_such_kernel")


@pytest.mark.parametrize("n", [1, 5, 1000])
def test_sized_scan_sequential_and_parallel_agree(n, monkeypatch):
    from pyclmatch.engine import devices
    h = pyclmatch.get_device("cpu")
    x = np.random.default_rng(n).integers(0, 9, n).astype(np.int32)
    outs = []
    for limit in (0, 1 << 20):
        monkeypatch.setattr(devices, "CPU_SEQUENTIAL_SCAN", limit)
        knl = devices._SizedScan(h, np.int32, dict(
            arguments="__global const int *x, __global int *out", input_expr="x[i]",
            scan_expr="a+b", neutral="0", output_statement="out[i] = prev_item;"))
        assert knl.limit == limit
        out = h.to_device(np.zeros(n, np.int32), read_only=False)
        knl(h.to_device(x), out, queue=h.queue)
        outs.append(h.download(out))
        assert list(knl._kernels) == [bool(limit)]
    assert np.array_equal(outs[0], outs[1])
    assert np.array_equal(outs[0], np.concatenate([[0], np.cumsum(x)[:-1]]))


@pytest.mark.parametrize("spec, message", [
    ("auto", r"no usable OpenCL device found; devices present: 0:0 .*Device 0:0 is unusable: "
             r"a broken compiler"),
    ("cpu", r"no usable OpenCL CPU device found; .*Device 0:0 is unusable: a broken compiler"),
    ("0:0", r"device 0:0 .* is unusable: a broken compiler"),
    ("portable", r"device 0:0 .* is unusable: a broken compiler"),
    ("no such device", r"no device matches 'no such device'"),
    ("7:7", r"no device '7:7' \(platform:device\)")])
def test_get_device_when_no_compiler_works(monkeypatch, spec, message):
    """Selection by catalog.select's rules; where every chosen device's compiler fails
    (compiler_problem), the error names each and why, per kind of name."""
    if not any("portable" in d.platform.name.lower() for _, _, d in devices.list_devices()):
        pytest.skip("the messages are written for PoCL as device 0:0")
    monkeypatch.setattr(devices, "compiler_problem", lambda dev: "a broken compiler")
    with pytest.raises(pyclmatch.DeviceError, match=message):
        devices._resolve(spec)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("shape, dtype", [(5, np.int32), ((3, 4), np.float64), (0, np.int64),
                                          ((2, 0, 3), np.uint8)])
def test_handle_empty_is_cla_empty(device, monkeypatch, fast, shape, dtype):
    """DeviceHandle.empty (pyopencl's fast constructor, or its public one where a pyopencl
    lacks it) makes the array cla.empty makes: shape, dtype, strides, size, pooled memory
    that takes a fill and reads back."""
    import pyopencl.array as cla
    monkeypatch.setattr(devices, "_FAST_ARRAYS", [fast])
    a, b = device.empty(shape, dtype), cla.empty(device.queue, shape, dtype,
                                                allocator=device.pool)
    assert (a.shape, a.dtype, a.strides, a.size, a.nbytes) == \
        (b.shape, b.dtype, b.strides, b.size, b.nbytes)
    assert a.flags.c_contiguous and a.queue is device.queue
    if a.size:
        a.fill(7)
        assert (a.get() == 7).all()


def test_kernel_times_harvested_during_reads(device):
    """The device times the read-backs' waits collect (Scheduler._harvest) are the times of
    every event once: per phase, equal to the events' own profiling times, each event
    dropped once counted, with or without harvesting on the way."""
    import pyopencl.array as cla
    from pyclmatch.engine.scheduler import Scheduler
    prg = cl.Program(device.context, _CHAIN_SRC).build()
    scale = cl.Kernel(prg, "scale")
    for harvest in (True, False):
        sched = Scheduler(device)
        sched.HARVEST = harvest
        y = cla.to_device(device.queue, np.ones(64, np.int32))
        kept, host = [], np.zeros(64, np.int32)
        for k in range(12):
            kept.append(sched.launch("a" if k % 3 else "b", scale, 64, 8, np.int32(64),
                                     np.int32(1), y.data))
            if k % 4 == 3:
                sched.read("r", host, y.data)
        sched.converge("a", lambda: 1, cla.zeros(device.queue, 1, np.int32), "none", 4)
        got = sched.kernel_times()
        want = {}
        for k, evt in enumerate(kept):
            p = "a" if k % 3 else "b"
            want[p] = want.get(p, 0.0) + (evt.profile.end - evt.profile.start) * 1e-9
        assert got["b"] == pytest.approx(want["b"], rel=1e-9)
        assert got["a"] >= want["a"] * (1 - 1e-9)          # (and converge's fill)
        assert all(e is None for e in sched._events)
