"""The pyclmatch command line."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pyclmatch.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "data" / "rajat01.mtx.gz"


def test_devices_table(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert "platform" in out and "max alloc" in out


def test_devices_json(capsys):
    assert main(["devices", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["devices"] and {"platform", "device", "type", "compute_units", "global_mem",
                                "local_mem", "max_alloc", "opencl", "driver"} <= set(
        data["devices"][0])
    assert "diagnosis" in data


def test_match_text_and_json(capsys):
    assert main(["match", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    for word in ("rows x cols", "initial cardinality", "cardinality", "verified:             yes",
                 "device", "timings"):
        assert word in out
    assert main(["match", str(EXAMPLE), "--json", "--algorithm", "apsb-gpubfs-mt",
                 "--init", "cheap"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rows"] == data["cols"] == 6833 and data["verified"]
    assert data["algorithm"] == "apsb-gpubfs-mt" and data["cardinality"] >= data[
        "initial_cardinality"]


def test_match_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.mtx"
    bad.write_text("this is not a matrix\n1 2 3\n")
    assert main(["match", str(bad)]) == 2
    assert "error" in capsys.readouterr().err
    assert main(["match", str(tmp_path / "missing.mtx")]) == 2


def test_module_entry_point():
    r = subprocess.run([sys.executable, "-m", "pyclmatch", "devices", "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and json.loads(r.stdout)["devices"]
