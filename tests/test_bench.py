"""`pyclmatch bench` on tiny suites (PoCL): verified records, stable schema, headless report,
memory-estimate skips."""
import json
import os

import pytest

from pyclmatch import cli
from pyclmatch.bench import RECORD_KEYS, SCHEMA_VERSION, families, run_bench
from pyclmatch.bench.harness import measure_bandwidth, aggregate
import pyclmatch

ALGS = "bipartite:apfb-gpubfs-ct,apsb-gpubfs-wr-mt"


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    rc = cli.main(["bench", "--suite", "small", "--graphs", "kron-10,grid-64",
                   "--algorithms", ALGS, "--devices", "all", "--baselines", "--repeat", "2",
                   "--rcp", "both", "--out", str(out), "--no-progress"])
    assert rc == 0
    return out


def _records(d):
    return [json.loads(l) for l in open(os.path.join(d, "results.jsonl"))]


def test_every_record_verified(bench_dir):
    recs = _records(bench_dir)
    dev = [r for r in recs if r["device"] != "host"]
    assert len(dev) == 4 * 2 * 2 * len(pyclmatch.bench.harness.select_devices("all"))
    assert all(r["verified"] is True and r["skipped"] is None for r in dev)
    assert {r["graph"] for r in recs} == {"kron-10", "kron-10-rcp", "grid-64", "grid-64-rcp"}
    host = [r for r in recs if r["device"] == "host"]
    assert host and all(r["verified"] is True for r in host)   # same cardinality as the device
    cards = {}
    for r in recs:
        cards.setdefault(r["graph"], set()).add(r["quality"]["cardinality"])
    assert all(len(c) == 1 for c in cards.values())


def test_schema_stable(bench_dir):
    assert RECORD_KEYS[:6] == ("schema", "graph", "family", "algorithm", "device", "platform")
    for r in _records(bench_dir):
        assert tuple(r) == RECORD_KEYS and r["schema"] == SCHEMA_VERSION
        assert isinstance(r["seconds"], float) and r["seconds"] > 0
        assert isinstance(r["phases"], dict) and isinstance(r["edges_per_s"], float)
        if r["device"] != "host":
            assert r["phases"] and r["device_seconds"] > 0 and r["build_s"] >= 0
            assert 0 < r["bandwidth_fraction"] < 10
    meta = json.load(open(os.path.join(bench_dir, "meta.json")))
    assert meta["command"].startswith("pyclmatch bench") and meta["date"] and meta["devices"]
    md = open(os.path.join(bench_dir, "summary.md")).read()
    assert "kron-10-rcp" in md and "copy bandwidth" in md and meta["command"] in md


def test_report_headless(bench_dir, tmp_path):
    pytest.importorskip("matplotlib")
    assert cli.main(["report", str(bench_dir), "--out", str(tmp_path)]) == 0
    for name in ("runtime.png", "speedup.png", "performance_profile.png"):
        p = tmp_path / name
        assert p.exists() and p.read_bytes()[:4] == b"\x89PNG"


def test_memory_estimate_refuses(tmp_path):
    meta, recs = run_bench("small", "apfb-gpubfs-ct", "cpu", repeat=1, graphs=["kron-10"],
                           memory_limit=1000, progress=False, out=str(tmp_path))
    assert len(recs) == 1 and recs[0]["skipped"].startswith("estimated device memory")
    assert recs[0]["verified"] is False and recs[0]["seconds"] is None
    assert "skipped" in open(tmp_path / "summary.md").read()
    h = pyclmatch.get_device("cpu")
    g = families.FAMILIES["bipartite"].prepare("x", pyclmatch.generators.SMALL_SUITE["kron-10"]())
    need = families.FAMILIES["bipartite"].estimate_bytes(g, "apfb-gpubfs-ct")
    assert sum(need.values()) > 2 * 4 * g.nnz


def test_bandwidth_positive():
    assert measure_bandwidth(pyclmatch.get_device("cpu"), 1 << 20) > 1e6


def test_unknown_algorithm():
    with pytest.raises(pyclmatch.errors.InputError):
        run_bench("small", "no-such-alg", "cpu", repeat=1, progress=False)


def test_family_protocol_plugin(tmp_path):
    """A new family plugs in by registering an adapter; the harness is unchanged."""
    import time

    class Toy:
        name = "toy"

        def algorithms(self):
            return ["count"]

        def prepare(self, gname, A):
            return A

        def size(self, A):
            return {"vertices": A.shape[0], "edges": int(A.nnz), "bytes": 4 * int(A.nnz)}

        def estimate_bytes(self, A, alg):
            return {"A": 4 * int(A.nnz)}

        def run(self, handle, alg, A):
            t0 = time.perf_counter()
            n = int(A.nnz)
            return {"seconds": time.perf_counter() - t0 + 1e-9, "device_seconds": None,
                    "phases": {}, "verified": True, "quality": {"nnz": n}}

        def baselines(self):
            return {}

    families.register(Toy())
    try:
        meta, recs = run_bench("small", "toy", "cpu", repeat=2, graphs=["grid-64"],
                               progress=False)
        assert len(recs) == 2 and all(r["verified"] and r["family"] == "toy" for r in recs)
        assert aggregate(recs)[("grid-64", "toy:count", recs[0]["device"])]["runs"] == 2
    finally:
        families.FAMILIES.pop("toy")


@pytest.mark.parametrize("spec", ["weighted:suitor", "louvain:louvain",
                                  "marriage:mcvitie-wilson"])
def test_other_family_adapters(spec):
    if spec.split(":")[0] not in families.FAMILIES:
        pytest.skip("family not installed")
    meta, recs = run_bench("small", spec, "cpu", baselines=True, repeat=1, graphs=["grid-64"],
                           progress=False)
    dev = [r for r in recs if r["device"] != "host"]
    assert len(dev) == 1 and dev[0]["verified"] is True and dev[0]["phases"]
    if spec.startswith(("weighted", "marriage")):   # exact: same answer as the host reference
        assert all(r["verified"] is True for r in recs)


def test_slow_baseline_skipped_with_reason(monkeypatch):
    fam = families.FAMILIES["bipartite"]
    monkeypatch.setattr(fam, "baseline_max_edges", {"networkx": 10}, raising=False)
    meta, recs = run_bench("small", "apfb-gpubfs-ct", "cpu", baselines=True, repeat=1,
                           graphs=["grid-64"], progress=False)
    nx_rec = [r for r in recs if r["algorithm"] == "networkx"]
    if nx_rec:
        assert "too slow" in nx_rec[0]["skipped"] and nx_rec[0]["seconds"] is None
    assert [r for r in recs if r["algorithm"] == "scipy"][0]["verified"] is True


def test_failed_answer_recorded_and_run_goes_on(monkeypatch, tmp_path):
    """A combination whose answer fails verification is a record with its error (not a crash);
    the other combinations still run and the command exits non-zero."""
    from pyclmatch.errors import VerificationError
    fam = families.family_of("weighted:ld")[0][0]
    orig = fam.run

    def broken(handle, alg, inp):
        if alg == "ld":
            raise VerificationError("forced failure")
        return orig(handle, alg, inp)
    monkeypatch.setattr(fam, "run", broken)
    meta, recs = run_bench(suite="small", graphs=["kron-10"], algorithms="weighted:ld,weighted:suitor",
                           devices="auto", repeat=1, out=str(tmp_path), progress=False)
    failed = [r for r in recs if r["error"]]
    assert len(failed) == 1 and "forced failure" in failed[0]["error"]
    assert failed[0]["verified"] is False
    assert any(r["algorithm"] == "suitor" and r["verified"] for r in recs)
    assert "FAILED" in open(tmp_path / "summary.md").read()


def test_auto_profile_core(tmp_path):
    """benchmarks/auto_profile.py on two tiny graphs with two families: verified records,
    auto's ratios to the best exact family, the 1.3x summary, the report and its plots, and
    --merge of two parts."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "benchmarks"))
    ap = pytest.importorskip("auto_profile")
    pytest.importorskip("matplotlib")
    h = pyclmatch.get_device("cpu")
    G = pyclmatch.generators
    fams = ["apfb-gpubfs-wr-mt", "host-hk"]
    recs = [ap.measure_graph(n, A, h, fams, repeat=1, slow_seconds=30)
            for n, A in (("grid-8", G.grid(8)), ("kron-6-rcp", G.permuted(G.kron(6))))]
    for r in recs:
        assert set(r["families"]) == {"auto"} | set(fams)
        assert r["cardinality"] == r["scipy_cardinality"] > 0
        assert r["best_whole"] in fams and r["best_device"] in fams
        a = r["families"]["auto"]
        assert a["call_s"] >= a["device_s"] > 0 and a["chose"] and a["rule"] is not None
        best = r["families"][r["best_whole"]]["call_s"]
        assert r["auto_over_best_whole"] == pytest.approx(a["call_s"] / best)
    s = ap.summarize(recs)
    for key in ("whole", "device"):
        q = [r["auto_over_best_" + key] for r in recs]
        assert s[key]["graphs"] == 2 and s[key]["within_1.3"] == sum(x <= 1.3 for x in q)
        assert s[key]["worst"] == pytest.approx(max(q))
        assert s[key]["worst_graph"] == recs[q.index(max(q))]["graph"]
        assert s[key]["goal_met"] == (s[key]["within_1.3"] == 2 and max(q) <= 2)
    meta = {"device": h.label, "date": "d", "command": "c", "host": "x", "repeat": 1,
            "slow_seconds": 30}
    for i, r in enumerate(recs):
        ap.write(str(tmp_path / f"p{i}"), dict(meta, command=f"c{i}"), [r], plots=False)
    merged = ap.merge([str(tmp_path / "p0"), str(tmp_path / "p1")], str(tmp_path / "m"))
    assert merged == s
    md = (tmp_path / "m" / "results.md").read_text()
    assert "`c0`" in md and "`c1`" in md and "kron-6-rcp" in md
    for key in ("whole", "device"):
        assert (tmp_path / "m" / f"profile_{key}.png").read_bytes()[:4] == b"\x89PNG"
