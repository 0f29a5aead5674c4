"""benchmarks/bench_nx.py's capped networkx children: a stopped call reports how long it had
run (the honest lower bound of networkx's time), a finished one its own time and result."""
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "benchmarks"))
bench_nx = pytest.importorskip("bench_nx")


def test_capped_child_reports_its_time_or_how_long_it_ran():
    done = bench_nx.Capped(lambda: 41, lambda x: x + 1, cap=30)
    sec, out = done.finish()
    assert out == 42 and 0 <= sec < 30 and done.ran is None
    t0 = time.perf_counter()
    stopped = bench_nx.Capped(lambda: time.sleep(60), lambda x: x, cap=0.5)
    assert stopped.finish() == (None, None)
    assert 0.3 < stopped.ran < 5 and time.perf_counter() - t0 < 10


def test_speedups_are_lower_bounds_when_stopped():
    row = {"backend_s": 2.0, "reuse_s": 1.0, "convert_s": 0.5, "networkx_s": None,
           "networkx_ran_s": 240.0, "to_scipy_s": 10.0}
    bench_nx.speedups(row)
    assert row["speedup_whole"] is None and row["speedup_whole_lower_bound"] == 120.0
    assert row["speedup_reuse_lower_bound"] == 240.0 and row["convert_vs_to_scipy"] == 20.0
    row = {"backend_s": 2.0, "reuse_s": 1.0, "convert_s": 0.5, "networkx_s": 100.0}
    bench_nx.speedups(row)
    assert row["speedup_whole"] == 50.0 and row["speedup_whole_lower_bound"] is None
    assert "> 240" in bench_nx.fmt(None, 240.0)


def test_networkx_times_from_an_earlier_run(tmp_path):
    """--nx-times: networkx's own results of the same graph and function are copied, marked
    with the file they came from; another graph (or size) gets none."""
    import json
    old = {"meta": {"date": "D", "device": "H100"}, "rows": [
        {"graph": "g", "function": "bipartite.maximum_matching", "n": 4, "m": 3,
         "networkx_s": 26.7, "cardinality_networkx": 2},
        {"graph": "g", "function": "louvain_communities", "n": 2, "m": 3,
         "networkx_s": None, "networkx_ran_s": 240.0}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(old))
    earlier, note = bench_nx.earlier_networkx(str(path))
    assert str(path) in note and "H100" in note
    row = {"graph": "g", "function": "bipartite.maximum_matching", "n": 4, "m": 3,
           "backend_s": 0.5, "reuse_s": 0.25, "convert_s": 0.1, "cardinality_backend": 2}
    assert bench_nx.reuse_networkx(row, earlier, note)
    bench_nx.collect(row, {}, "matching")
    bench_nx.speedups(row)
    assert row["networkx_s"] == 26.7 and row["speedup_reuse"] == 26.7 / 0.25
    assert row["networkx_from"] == note
    lou = {"graph": "g", "function": "louvain_communities", "n": 2, "m": 3}
    assert bench_nx.reuse_networkx(lou, earlier, note) and lou["networkx_ran_s"] == 240.0
    assert not bench_nx.reuse_networkx(dict(row, n=8), earlier, note)
    md = bench_nx.markdown({"device": "x", "command": "c", "date": "d", "host": "h",
                            "networkx": "3", "repeat": 1, "nx_cap_s": 1.0,
                            "serial_nx": True}, [row])
    assert "(earlier run)" in md and "NOT measured in this run" in md
    bad = dict(row, cardinality_backend=1)
    with pytest.raises(SystemExit, match="cardinality"):
        bench_nx.collect(bad, {}, "matching")
