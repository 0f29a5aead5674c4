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


@pytest.mark.parametrize("argv, message", [
    (["bench", "--repeat", "0"],
     "bench: argument --repeat: 0 is not allowed: it must be an integer between 1 and 1000 "
     "(see pyclmatch bench --help)"),
    (["bench", "--repeat", "-1"], "bench: argument --repeat: -1 is not allowed"),
    (["bench", "--repeat", "x"], "bench: argument --repeat: 'x' is not an integer"),
    (["bench", "--memory-limit", "-5"], "bench: argument --memory-limit: -5 is not allowed"),
    (["bench", "--rcp", "maybe"], "bench: argument --rcp: invalid choice: 'maybe'"),
    (["match"], "match: the following arguments are required: file"),
    (["match", "A.mtx", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["frobnicate"], "argument command: invalid choice: 'frobnicate'"),
    ([], "the following arguments are required: command (see pyclmatch --help)"),
])
def test_argument_errors_are_one_line(argv, message, capsys):
    """argparse's errors, of the main parser and of every subcommand's: one
    'pyclmatch: error: ...' line (no usage block), exit status 2."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("pyclmatch: error: " + message.split(" (see")[0]) and message in err
    assert err.count("\n") == 1 and "usage:" not in err


def test_help_keeps_argparse_usage(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("usage: pyclmatch bench [-h]")


@pytest.mark.parametrize("argv, words", [
    (["dmperm", str(EXAMPLE), "--plot", "{tmp}/none/x.png"], "the folder {tmp}/none does not "
                                                            "exist"),
    (["dmperm", str(EXAMPLE), "--plot", "{tmp}"], "is a folder"),
    (["dmperm", str(EXAMPLE), "--plot", "{tmp}/x"], "must end in an image extension"),
    (["dmperm", str(EXAMPLE), "--plot", "{tmp}/x.txt"], "must end in an image extension"),
    (["report", "{file}"], "report {file} is a file; it must name a folder"),
    (["report", "{tmp}", "--out", "{file}"], "--out {file} is a file"),
    (["report", "{tmp}/none"], "report {tmp}/none: No such file or directory"),
    (["report", "{tmp}"], "No such file or directory: {tmp}/results.jsonl"),
    (["bench", "--out", "{file}"], "--out {file} is a file; it must name a folder"),
])
def test_unwritable_outputs_refused_before_the_work(argv, words, tmp_path, capsys):
    """A plot or results folder that cannot be written: one error line, status 2, nothing
    computed or created."""
    f = tmp_path / "f.mtx"
    f.write_text("x\n")
    sub = lambda a: a.replace("{tmp}", str(tmp_path)).replace("{file}", str(f))
    assert main([sub(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pyclmatch: error: ") and sub(words) in err
    assert err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.mtx"]


def test_report_refuses_a_results_file_that_is_not_json(tmp_path, capsys):
    (tmp_path / "results.jsonl").write_text('{"graph": "g"}\nnot json\n')
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"pyclmatch: error: {tmp_path}/results.jsonl: line 2 is not a JSON record " \
                  f"(not a 'pyclmatch bench' results file?)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.jsonl"]


def test_dmperm_plot_written(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "dm.png"
    assert main(["dmperm", str(EXAMPLE), "--plot", str(out)]) == 0
    assert out.stat().st_size > 0 and f"plot:                 {out}" in capsys.readouterr().out


def test_directory_in_a_child_process(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pyclmatch", "match", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.startswith("pyclmatch: error: ")
    assert "Traceback" not in r.stderr
