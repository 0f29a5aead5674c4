"""pyclmatch.distributed on a LocalCluster of 2 PoCL worker processes (one cluster for the
module): results equal the serial calls, a bad graph comes back as its error while the others
finish, paths and matrices both work, ``bench --dask``; and the ImportError without the extra."""
import importlib
import json
import os
import sys

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import pyclmatch
from pyclmatch import generators


def test_import_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)   # as if not installed
    monkeypatch.delitem(sys.modules, "pyclmatch.distributed", raising=False)
    with pytest.raises(ImportError, match=r"pyclmatch\[dask\]"):
        importlib.import_module("pyclmatch.distributed")
    monkeypatch.delitem(sys.modules, "pyclmatch.distributed", raising=False)


distributed = pytest.importorskip("distributed", reason="needs pyclmatch[dask]")


@pytest.mark.parametrize("name", ["maximum_matching", "dulmage_mendelsohn",
                                  "weighted_matching", "b_matching", "stable_marriage",
                                  "louvain", "modularity"])
def test_calls_by_name_are_the_public_functions(name):
    from pyclmatch.distributed import _resolve
    assert _resolve(name) is getattr(pyclmatch, name)


@pytest.fixture(scope="module")
def client():
    from pyclmatch.distributed import local_cluster
    cluster = local_cluster("cpu", n_workers=2, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _graphs():
    return [A for _, A in generators.suite(["kron-10", "grid-64", "delaunay-10"], small=True)]


def test_workers_announce_their_devices(client):
    from pyclmatch.distributed import worker_devices
    b = worker_devices(client)
    assert len(b) == 2
    for info in b.values():
        assert info["type"] == "cpu" and info["how"] == "assigned" and info["problem"] is None
        assert info["spec"] == "0:0" or ":" in info["spec"]


def test_workers_keep_glibc_dynamic_malloc_thresholds(client):
    # Dask's MALLOC_TRIM_THRESHOLD_ would make every large array of a call fault in afresh;
    # the other pre-spawn variables (one OpenMP thread) stay
    env = client.run(lambda: (os.environ.get("MALLOC_TRIM_THRESHOLD_"),
                              os.environ.get("OMP_NUM_THREADS")))
    assert len(env) == 2
    for trim, omp in env.values():
        assert trim is None and omp == "1"


def test_results_equal_serial(client, device):
    from pyclmatch.distributed import map_graphs
    from pyclmatch.weighted import with_random_weights
    gs = _graphs()
    res = map_graphs(pyclmatch.maximum_matching, gs, client=client, devices="cpu")
    for A, r in zip(gs, res):
        s = pyclmatch.maximum_matching(A, device=device)
        assert r.verified and r.cardinality == s.cardinality
    ws = [with_random_weights(A, seed=0) for A in gs]
    res = map_graphs("weighted_matching", ws, client=client, devices="cpu")
    for W, r in zip(ws, res):
        s = pyclmatch.weighted_matching(W, device=device)
        assert np.array_equal(r.mate, s.mate) and r.weight == pytest.approx(s.weight)
    Ps = [((A + A.T) > 0).astype(np.float64) for A in gs[:2]]
    res = map_graphs(pyclmatch.louvain, Ps, client=client, devices="cpu", deterministic=True,
                     seed=0)
    for P, r in zip(Ps, res):
        s = pyclmatch.louvain(P, device=device, deterministic=True, seed=0)
        assert np.array_equal(r.membership, s.membership)
        assert r.modularity == pytest.approx(s.modularity)


def test_paths_matrices_and_a_bad_graph(client, tmp_path, device):
    from pyclmatch.distributed import map_graphs
    gs = _graphs()
    path = tmp_path / "kron-10.mtx"
    scipy.io.mmwrite(str(path), gs[0])
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n9 2\n")
    batch = [str(path), gs[1], str(bad), os.fspath(path), gs[2], str(tmp_path / "missing.mtx")]
    res = map_graphs("maximum_matching", batch, client=client, devices="cpu")
    assert len(res) == len(batch)
    assert isinstance(res[2], pyclmatch.InputError) and res[2].graph_index == 2
    assert isinstance(res[5], FileNotFoundError) and res[5].graph_index == 5
    want = [pyclmatch.maximum_matching(A, device=device).cardinality for A in gs]
    assert [res[i].cardinality for i in (0, 1, 3, 4)] == [want[0], want[1], want[0], want[2]]


def test_arguments_checked(client):
    from pyclmatch.distributed import map_graphs
    with pytest.raises(pyclmatch.InputError, match="devices="):
        map_graphs("maximum_matching", _graphs()[:1], client=client, device="cpu")
    with pytest.raises(pyclmatch.InputError, match="unknown pyclmatch call"):
        map_graphs("no_such_call", _graphs()[:1], client=client, devices="cpu")
    if not any(b["type"] == "gpu" for b in
               __import__("pyclmatch.distributed").distributed.worker_devices(client).values()):
        with pytest.raises(pyclmatch.DeviceError, match="devices='cpu'"):
            map_graphs("maximum_matching", _graphs()[:1], client=client, devices="gpu")
    assert map_graphs("maximum_matching", [], client=client, devices="cpu") == []


def test_bench_dask(client, tmp_path):
    from pyclmatch import cli
    from pyclmatch.bench import RECORD_KEYS
    out = tmp_path / "bench"
    rc = cli.main(["bench", "--suite", "small", "--graphs", "kron-10,grid-64",
                   "--algorithms", "bipartite:apfb-gpubfs-ct,weighted:suitor", "--devices", "cpu",
                   "--baselines", "--repeat", "1", "--out", str(out), "--no-progress",
                   "--dask", client.scheduler.address])
    assert rc == 0
    recs = [json.loads(line) for line in open(out / "results.jsonl")]
    assert all(tuple(r) == RECORD_KEYS for r in recs)
    dev = [r for r in recs if r["device"] != "host"]
    assert len(dev) == 2 * 2 and all(r["verified"] is True for r in dev)
    assert all(r["host"] and r["worker"] in client.scheduler_info()["workers"] for r in recs)
    host = [r for r in recs if r["device"] == "host" and not r["skipped"]]
    assert host and all(r["verified"] is True for r in host)
    meta = json.load(open(out / "meta.json"))
    assert "--dask" in meta["command"] and meta["dask"]["workers"] and meta["devices"]


@pytest.mark.parametrize("as_path", [False, True])
def test_lost_worker_rerun(client, tmp_path, device, as_path):
    from pyclmatch.distributed import map_graphs
    from dask_tasks import matching_dying_once
    gs = _graphs()
    batch = gs
    if as_path:
        batch = []
        for k, A in enumerate(gs):
            scipy.io.mmwrite(str(tmp_path / f"g{k}.mtx"), A)
            batch.append(str(tmp_path / f"g{k}.mtx"))
    res = map_graphs(matching_dying_once, batch, client=client, devices="cpu",
                     marker=str(tmp_path / "died"))
    assert os.path.exists(tmp_path / "died")     # one worker was lost
    assert res == [pyclmatch.maximum_matching(A, device=device).cardinality for A in gs]


def test_host_function_without_device(client):
    """modularity takes no device=: map_graphs calls it without one (it failed on every
    graph with a TypeError)."""
    from pyclmatch.distributed import map_graphs
    K = sp.csr_matrix(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 1, 0]], float))
    res = map_graphs("modularity", [K, K], client=client, devices="cpu",
                     membership=[0, 0, 0, 1])
    assert res == [pytest.approx(pyclmatch.modularity(K, [0, 0, 0, 1]))] * 2
