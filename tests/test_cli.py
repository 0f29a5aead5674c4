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


@pytest.mark.parametrize("argv, words", [
    (["match", "{tmp}"], "is a directory"),
    (["dmperm", "{tmp}"], "is a directory"),
    (["match", "{tmp}/missing.mtx"], "No such file"),
    (["match", str(EXAMPLE), "--init", "random"], "init='random' is not allowed"),
    (["match", str(EXAMPLE), "--algorithm", "nope"], "algorithm='nope' is not allowed"),
    (["dmperm", str(EXAMPLE), "--algorithm", "nope"], "algorithm='nope' is not allowed"),
    (["match", str(EXAMPLE), "--device", "9:9"], "no device '9:9'"),
    (["report", "{tmp}/none"], "No such file"),
])
def test_bad_input_is_one_error_line_and_status_2(argv, words, tmp_path, capsys):
    """A directory, a missing file or a bad value: one 'pyclmatch: error: ...' line on
    stderr and exit status 2, never a traceback."""
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pyclmatch: error: ") and words in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv", [["bench", "--repeat", "0"], ["bench", "--repeat", "x"],
                                  ["bench", "--memory-limit", "-5"]])
def test_bad_option_values_are_argparse_errors(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument --" in err and "Traceback" not in err


def test_directory_in_a_child_process(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pyclmatch", "match", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.startswith("pyclmatch: error: ")
    assert "Traceback" not in r.stderr
