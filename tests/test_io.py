"""Tests of pyclmatch.io.read_graph (no OpenCL needed)."""
import bz2
import csv
import gzip
import io
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from pyclmatch import mtx
from pyclmatch.errors import InputError
from pyclmatch.io import read_graph

from bipartite_cases import SHARED            # (../shared beside the checkout, or $PYCLMATCH_SHARED)
GRAPHS = SHARED / "data" / "graphs"
MANIFEST = GRAPHS / "MANIFEST.tsv"


def _manifest():
    if not MANIFEST.is_file():
        return []
    with open(MANIFEST, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


ROWS = _manifest()
needs_shared = pytest.mark.skipif(not ROWS, reason=f"{GRAPHS} is absent")


def _dense(A):
    return np.asarray(A.toarray())


def _write(path, text):
    path = Path(path)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


# ------------------------------------------------------------------------------------------------
# the shared real-world files: sizes must match MANIFEST.tsv

def _expected_nnz(row):
    txt = row["nnz_or_edges"]
    m = re.search(r"(\d+) adjacency nnz", txt) or re.search(r"(\d+) full", txt)
    return int(m.group(1)) if m else int(re.match(r"\d+", txt).group())


@needs_shared
def test_manifest_lists_every_file():
    listed = {r["file"] for r in ROWS}
    present = {p.name for p in GRAPHS.iterdir() if p.is_file() and p.name != "MANIFEST.tsv"}
    assert present <= listed


@pytest.mark.parametrize("row", ROWS or [None], ids=[r["file"] for r in ROWS] or ["absent"])
def test_shared_file_sizes(row):
    if row is None:
        pytest.skip(f"{GRAPHS} is absent")
    path = GRAPHS / row["file"]
    rows, cols = int(row["rows"]), int(row["cols"])
    nnz = _expected_nnz(row)
    fmt = row["format"]
    A, labels = read_graph(path, return_labels=True)
    assert isinstance(A, sp.csr_matrix)
    assert A.has_canonical_format
    assert A.nnz == nnz

    if fmt.startswith("MatrixMarket") or fmt.startswith("METIS"):
        assert A.shape == (rows, cols)
        assert labels is None
        if "pattern" in fmt or "unweighted" in fmt:
            assert A.dtype == np.int8 and np.all(A.data == 1)
        elif "real" in fmt:
            assert A.dtype == np.float64
        elif "integer" in fmt:
            assert np.issubdtype(A.dtype, np.integer)
        if row["symmetry"].startswith(("symmetric", "undirected")):
            assert (A != A.T).nnz == 0
        return

    # edge lists: arcs stored as given
    assert A.dtype == np.int8 and np.all(A.data == 1)
    touched = np.diff(A.indptr) + np.diff(A.tocsc().indptr) > 0
    assert touched.sum() == rows                    # every listed vertex has an arc
    if "string ids" in fmt:
        assert A.shape == (rows, rows)
        assert labels is not None and len(labels) == rows
        assert len(set(labels.tolist())) == rows
    else:
        assert labels is None
        assert A.shape[0] == A.shape[1] >= rows
        assert touched[-1]                          # shape = max id + 1
        if "not contiguous" not in row["nnz_or_edges"]:
            assert A.shape == (rows, rows)
    loops = re.search(r"(\d+) self-loops", row["nnz_or_edges"])
    assert A.diagonal().astype(bool).sum() == (int(loops.group(1)) if loops else 0)

    S = read_graph(path, symmetrize=True)
    assert (S != S.T).nnz == 0 and S.dtype == np.int8
    union = (A.astype(bool) + A.T.astype(bool)).tocsr()
    assert (S.astype(bool) != union).nnz == 0
    pairs = re.search(r"(\d+) distinct undirected pairs", row["nnz_or_edges"])
    if pairs:
        assert S.nnz == 2 * int(pairs.group(1)) - A.diagonal().astype(bool).sum()
    elif row["symmetry"] == "undirected":           # each edge listed once
        assert S.nnz == 2 * A.nnz - A.diagonal().astype(bool).sum()


@needs_shared
def test_shared_string_labels_wormnet():
    A, labels = read_graph(GRAPHS / "WormNet.v3.benchmark.txt", return_labels=True)
    first = (GRAPHS / "WormNet.v3.benchmark.txt").read_text().split("\n", 1)[0].split()
    assert labels[0] == first[0] and labels[1] == first[1]
    assert A[0, 1] == 1


@needs_shared
def test_shared_mtx_compressed_round_trip(tmp_path):
    src = GRAPHS / "bcsstk13.mtx"
    A = read_graph(src)
    raw = src.read_bytes()
    _write(tmp_path / "b.mtx.gz", gzip.compress(raw))
    _write(tmp_path / "b.mtx.bz2", bz2.compress(raw))
    for name in ("b.mtx.gz", "b.mtx.bz2"):
        B = read_graph(tmp_path / name)
        assert B.shape == A.shape and (B != A).nnz == 0 and B.dtype == A.dtype


# ------------------------------------------------------------------------------------------------
# compressed files and format detection (synthetic, always run)

EDGES = "# a comment\n0 1\n1 2\n\n2 0\n3 1\n"


@pytest.mark.parametrize("suffix,compress", [(".txt.gz", gzip.compress),
                                             (".txt.bz2", bz2.compress),
                                             (".edges", None), (".tsv", None)])
def test_snap_compressed_round_trip(tmp_path, suffix, compress):
    plain = read_graph(_write(tmp_path / "g.txt", EDGES))
    data = EDGES.encode() if compress is None else compress(EDGES.encode())
    A = read_graph(_write(tmp_path / ("g" + suffix), data))
    assert (A != plain).nnz == 0 and A.shape == (4, 4)


def test_compression_detected_by_magic(tmp_path):
    A = read_graph(_write(tmp_path / "g.txt", gzip.compress(EDGES.encode())))
    B = read_graph(_write(tmp_path / "h.txt", bz2.compress(EDGES.encode())))
    assert A.nnz == B.nnz == 4


def test_mtx_round_trip_via_scipy(tmp_path):
    rng = np.random.default_rng(3)
    M = sp.random(30, 20, density=0.1, random_state=rng, format="coo")
    buf = io.BytesIO()
    scipy.io.mmwrite(buf, M)
    raw = buf.getvalue()
    for name, data in [("m.mtx", raw), ("m.mtx.gz", gzip.compress(raw)),
                       ("m.mtx.bz2", bz2.compress(raw))]:
        A = read_graph(_write(tmp_path / name, data))
        assert A.shape == (30, 20) and A.dtype == np.float64
        np.testing.assert_allclose(_dense(A), M.toarray())


def test_mtx_pattern_symmetric_comes_back_full(tmp_path):
    p = _write(tmp_path / "p.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                   "% comment\n3 3 3\n2 1\n3 2\n3 3\n")
    A = read_graph(p)
    assert A.dtype == np.int8
    assert _dense(A).tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 1]]


def test_mtx_integer_and_symmetrize(tmp_path):
    p = _write(tmp_path / "i.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                                   "2 2 1\n1 2 7\n")
    A = read_graph(p)
    assert np.issubdtype(A.dtype, np.integer) and A[0, 1] == 7
    S = read_graph(p, symmetrize=True)
    assert _dense(S).tolist() == [[0, 7], [7, 0]]


def test_mm_banner_wins_over_extension_and_format_override(tmp_path):
    text = "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 3\n"
    A = read_graph(_write(tmp_path / "x.txt", text))
    assert A.shape == (2, 3) and A[0, 2] == 1
    B = read_graph(_write(tmp_path / "x.dat", text))
    assert B.shape == (2, 3)
    C = read_graph(_write(tmp_path / "e.dat", "0 1\n1 2\n"), format="snap")
    assert C.shape == (3, 3)
    D = read_graph(_write(tmp_path / "e.txt", "2 1\n2\n1\n"), format="metis")
    assert _dense(D).tolist() == [[0, 1], [1, 0]]


# ------------------------------------------------------------------------------------------------
# METIS

def test_metis_unweighted_comments_and_isolated(tmp_path):
    p = _write(tmp_path / "a.graph", "% header comment\n4 3\n2 3\n1 3\n% inner comment\n1 2\n\n")
    A = read_graph(p)
    assert A.dtype == np.int8
    assert _dense(A).tolist() == [[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]]


@pytest.mark.parametrize("text", [
    "3 2 1\n2 5 3 7\n1 5\n1 7\n",                 # edge weights
    "3 2 001\n2 5 3 7\n1 5\n1 7\n",
    "3 2 11\n4 2 5 3 7\n1 1 5\n9 1 7\n",          # vertex weights + edge weights
    "3 2 11 2\n4 4 2 5 3 7\n1 1 1 5\n9 9 1 7\n",  # two constraints
    "3 2 111\n8 4 2 5 3 7\n8 1 1 5\n8 9 1 7\n",   # sizes, weights, edge weights
])
def test_metis_edge_weights(tmp_path, text):
    A = read_graph(_write(tmp_path / "w.graph", text))
    assert np.issubdtype(A.dtype, np.integer)
    assert _dense(A).tolist() == [[0, 5, 7], [5, 0, 0], [7, 0, 0]]


@pytest.mark.parametrize("text", [
    "3 2 0\n2 3\n1\n1\n",
    "3 2 10\n4 2 3\n1 1\n9 1\n",                  # vertex weights only
    "3 2 010 2\n4 4 2 3\n1 1 1\n9 9 1\n",
    "3 2 100\n4 2 3\n1 1\n9 1\n",                 # vertex sizes only
    "3 2\r\n 2 3 \r\n1\r\n1\r\n",                 # CRLF, padding
])
def test_metis_vertex_fields_are_skipped(tmp_path, text):
    A = read_graph(_write(tmp_path / "v.graph", text))
    assert A.dtype == np.int8
    assert _dense(A).tolist() == [[0, 1, 1], [1, 0, 0], [1, 0, 0]]


def test_metis_compressed(tmp_path):
    text = b"3 2\n2 3\n1\n1\n"
    A = read_graph(_write(tmp_path / "c.graph.gz", gzip.compress(text)))
    B = read_graph(_write(tmp_path / "c.graph.bz2", bz2.compress(text)))
    assert (A != B).nnz == 0 and A.nnz == 4


@pytest.mark.parametrize("text,match", [
    ("4 3\n2 3\n1 3\n1 2\n", r"n=4 vertices but the file has only 3"),
    ("3 4\n2 3\n1 3\n1 2\n", r"m=4 edges .* 6 neighbour entries"),
    ("3 3\n2 3\n1 3\n1 2\n1\n", r"line 5: .*after vertex 3"),
    ("3 2\n2 3\n1\n5\n", r"line 4: neighbour 5 is out of range"),
    ("3 2\n2 3\n1 x\n1\n", r"line 3: 'x' is not an integer"),
    ("3 2\n2 3\n3\n1\n", r"not symmetric"),
    ("3 2 1\n2 5 3\n1 5\n1 7\n", r"line 2: .*odd number"),
    ("3 2 abc\n2 3\n1\n1\n", r"line 1: METIS header"),
    ("3 2 2\n2 3\n1\n1\n", r"fmt"),
    ("3\n2 3\n1\n1\n", r"METIS header"),
    ("% nothing but comments\n", r"no METIS header"),
])
def test_metis_bad_input(tmp_path, text, match):
    p = _write(tmp_path / "bad.graph", text)
    with pytest.raises(InputError, match=match) as exc:
        read_graph(p)
    assert "bad.graph" in str(exc.value)


def test_metis_asymmetric_accepted_with_symmetrize(tmp_path):
    A = read_graph(_write(tmp_path / "s.graph", "3 2\n2 3\n3\n1\n"), symmetrize=True)
    assert (A != A.T).nnz == 0 and A.nnz == 6


# ------------------------------------------------------------------------------------------------
# SNAP edge lists

def test_snap_directed_duplicates_and_symmetrize(tmp_path):
    p = _write(tmp_path / "d.txt", "# directed\n1 2\n2 1\n1 2\n\n3 3\n5 1\n")
    A, labels = read_graph(p, return_labels=True)
    assert labels is None
    assert A.shape == (6, 6) and A.dtype == np.int8            # integer ids kept: max id + 1
    assert sorted(zip(*A.nonzero())) == [(1, 2), (2, 1), (3, 3), (5, 1)]
    assert np.all(A.data == 1)
    S = read_graph(p, symmetrize=True)
    assert sorted(zip(*S.nonzero())) == [(1, 2), (1, 5), (2, 1), (3, 3), (5, 1)]
    assert np.all(S.data == 1)


def test_snap_string_labels_in_order_of_first_appearance(tmp_path):
    p = _write(tmp_path / "l.tsv", "% konect style comment\nbob\talice\nalice\tcarol\n"
                                   "# x\ncarol\tbob\nbob\talice\n")
    A, labels = read_graph(p, return_labels=True)
    assert labels.tolist() == ["bob", "alice", "carol"]
    assert A.shape == (3, 3)
    assert sorted(zip(*A.nonzero())) == [(0, 1), (1, 2), (2, 0)]
    assert read_graph(p).nnz == 3


def test_snap_mixed_tokens_become_labels(tmp_path):
    A, labels = read_graph(_write(tmp_path / "m.txt", "10 1.5\n2 10\n"), return_labels=True)
    assert labels.tolist() == ["10", "1.5", "2"]
    assert sorted(zip(*A.nonzero())) == [(0, 1), (2, 0)]


def test_snap_weights(tmp_path):
    p = _write(tmp_path / "w.edges", "0 1 2.5\n1 0 1.5\n0 1 0.5\n2 2 -1\n")
    A = read_graph(p)
    assert A.dtype == np.float64
    assert _dense(A).tolist() == [[0, 3.0, 0], [1.5, 0, 0], [0, 0, -1]]   # duplicates: summed
    S = read_graph(p, symmetrize=True)            # both directions listed: the larger weight
    assert _dense(S).tolist() == [[0, 3.0, 0], [3.0, 0, 0], [0, 0, -1]]


def test_snap_duplicates_summed_like_matrix_market(tmp_path):
    """One rule in every format: a position listed twice is summed (explicit zeros kept)."""
    snap = read_graph(_write(tmp_path / "d.txt", "0 1 2\n0 1 3\n1 0 5\n1 1 0\n"))
    mm = read_graph(_write(tmp_path / "d.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                               "2 2 4\n1 2 2\n1 2 3\n2 1 5\n2 2 0\n"))
    assert _dense(snap).tolist() == _dense(mm).tolist() == [[0, 5], [5, 0]]
    assert snap.nnz == mm.nnz == 3 and snap.has_canonical_format
    metis = read_graph(_write(tmp_path / "d.graph", "2 2 001\n2 2 2 3\n1 5 1 0\n"))
    assert _dense(metis).tolist() == [[0, 5], [5, 0]]


def test_snap_undirected_both_directions_symmetrize_not_doubled(tmp_path):
    """An undirected edge list giving each edge both ways keeps its weights under symmetrize;
    one given one way is mirrored; negative weights and explicit zeros stay."""
    text = "0 1 4\n1 0 4\n1 2 -2\n2 3 0\n3 2 0\n0 3 1\n"
    S = read_graph(_write(tmp_path / "u.txt", text), symmetrize=True)
    assert _dense(S).tolist() == [[0, 4, 0, 1], [4, 0, -2, 0], [0, -2, 0, 0], [1, 0, 0, 0]]
    assert S.nnz == 8 and (S != S.T).nnz == 0 and S.has_canonical_format
    A = read_graph(_write(tmp_path / "v.txt", "0 1 4\n0 1 4\n1 0 4\n"), symmetrize=True)
    assert _dense(A).tolist() == [[0, 8], [8, 0]]      # the arc listed twice is summed first


@pytest.mark.parametrize("text,match", [
    ("0 1\n1 2 3\n", r"line 2: malformed edge line with 3 field"),
    ("# c\n0 1\n\n7\n", r"line 4: malformed edge line with 1 field"),
    ("0 1 2 3\n", r"line 1: malformed edge line with 4 field"),
    ("0 1 x\n", r"line 1: 'x' is not a number"),
    ("0 1\n0 -1\n", r"line 2: negative vertex id"),
    ("# only comments\n\n", r"no edges"),
    ("", r"empty"),
    ("  \n\n", r"empty"),
])
def test_snap_bad_input(tmp_path, text, match):
    p = _write(tmp_path / "bad.txt", text)
    with pytest.raises(InputError, match=match) as exc:
        read_graph(p)
    assert "bad.txt" in str(exc.value)


# ------------------------------------------------------------------------------------------------
# other bad inputs

def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_graph(tmp_path / "nope.mtx")


@pytest.mark.parametrize("path", ["", b""])
def test_empty_path(path):
    with pytest.raises(InputError, match="empty string") as exc:
        read_graph(path)
    assert exc.value.argument == "path"


def test_edge_list_read_as_matrix_market(tmp_path):
    with pytest.raises(InputError, match="not a Matrix Market file") as exc:
        read_graph(_write(tmp_path / "e.txt", "a b\nb c\n"), format="mtx")
    assert exc.value.argument == "path"


def test_mtx_without_banner(tmp_path):
    p = _write(tmp_path / "x.mtx", "1 2\n3 4\n")
    with pytest.raises(InputError, match=r"x\.mtx: not a Matrix Market file"):
        read_graph(p)
    with pytest.raises(InputError, match=r"not a Matrix Market file"):
        read_graph(_write(tmp_path / "y.mtx.gz", gzip.compress(b"hello\n")))


def test_mtx_truncated(tmp_path):
    p = _write(tmp_path / "t.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n"
                                   "1 2 1.0\n")
    with pytest.raises(InputError, match=r"t\.mtx"):
        read_graph(p)


def test_empty_mtx_and_unknown_format(tmp_path):
    with pytest.raises(InputError, match="empty"):
        read_graph(_write(tmp_path / "e.mtx", ""))
    with pytest.raises(InputError, match="format"):
        read_graph(_write(tmp_path / "g.xyz", "0 1\n"))
    with pytest.raises(InputError, match="format='csv' is not allowed") as ei:
        read_graph(_write(tmp_path / "g.txt", "0 1\n"), format="csv")
    assert ei.value.argument == "format"


def test_symmetrize_needs_square(tmp_path):
    p = _write(tmp_path / "r.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                   "2 3 1\n1 3\n")
    with pytest.raises(InputError, match="non-square"):
        read_graph(p, symmetrize=True)


def test_input_error_is_value_error():
    assert issubclass(InputError, ValueError)


def test_npz_round_trip(tmp_path):
    import scipy.sparse as sp
    from pyclmatch import InputError, read_graph
    A = sp.random(30, 20, density=0.2, format="coo", random_state=0)
    sp.save_npz(tmp_path / "a.npz", A)
    B = read_graph(tmp_path / "a.npz")
    assert isinstance(B, sp.csr_matrix) and B.has_sorted_indices
    assert (B != A.tocsr()).nnz == 0
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="bad.npz"):
        read_graph(tmp_path / "bad.npz")


# ------------------------------------------------------------------------------------------------
# strict Matrix Market (pyclmatch.mtx): what scipy.io.mmread reads, and the specification

import os
import subprocess
import sys
import warnings

from hypothesis import HealthCheck, given, settings, strategies as st

BAD = Path(__file__).resolve().parent / "data" / "bad"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "data"
VALID_MTX = sorted(GRAPHS.glob("*.mtx")) + sorted(EXAMPLES.glob("*.mtx*"))


def _scipy(raw):
    """scipy.io.mmread's matrix of valid Matrix Market bytes, as a canonical CSR."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        M = scipy.io.mmread(io.BytesIO(raw))
    M = sp.csr_matrix(M)
    M.sum_duplicates()
    return M


def _same_as_scipy(A, raw, pattern):
    M = _scipy(raw)
    assert A.shape == M.shape and A.has_canonical_format
    if pattern:                                     # (pattern files are int8 ones here)
        assert A.dtype == np.int8 and np.all(A.data == 1)
        assert (A.astype(bool) != M.astype(bool)).nnz == 0
        return
    assert A.dtype.kind == M.dtype.kind
    M.sort_indices()
    assert np.array_equal(A.indptr, M.indptr) and np.array_equal(A.indices, M.indices)
    assert np.array_equal(A.data, M.data, equal_nan=True)


@pytest.mark.parametrize("path", VALID_MTX or [None], ids=[p.name for p in VALID_MTX] or ["-"])
def test_mtx_equals_scipy_on_real_files(path):
    if path is None:
        pytest.skip("no .mtx files")
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    A = read_graph(path)
    _same_as_scipy(A, raw, b"pattern" in raw.split(b"\n", 1)[0].lower())


def test_mtx_upper_case_banner_is_read(tmp_path):
    p = _write(tmp_path / "u.mtx", "%%MATRIXMARKET MATRIX COORDINATE REAL SYMMETRIC\n"
                                   "2 2 2\n1 1 1.5\n2 1 -2\n")
    assert _dense(read_graph(p)).tolist() == [[1.5, -2], [-2, 0]]


def test_mtx_layout_tolerances(tmp_path):
    """Blank and comment lines anywhere after the banner, tabs, CRLF, trailing blanks."""
    text = ("%%MatrixMarket matrix coordinate integer general\r\n% c\r\n\r\n2 3 3\r\n"
            "1\t3 -7 \r\n% inner\r\n\r\n2 1 +4\r\n1 3 2\r\n")
    assert _dense(read_graph(_write(tmp_path / "c.mtx", text))).tolist() == \
        [[0, 0, -5], [4, 0, 0]]                               # (1, 3) listed twice: summed


@pytest.mark.parametrize("sym,values,dense", [
    ("general", "1\n2\n3\n4\n", [[1, 3], [2, 4]]),
    ("symmetric", "1\n2\n4\n", [[1, 2], [2, 4]]),
    ("skew-symmetric", "2\n", [[0, -2], [2, 0]]),
])
def test_mtx_array(tmp_path, sym, values, dense):
    p = _write(tmp_path / "a.mtx", f"%%MatrixMarket matrix array real {sym}\n2 2\n{values}")
    A = read_graph(p)
    assert A.dtype == np.float64 and _dense(A).tolist() == dense
    _same_as_scipy(A, p.read_bytes(), False)


def test_mtx_complex_hermitian_and_skew(tmp_path):
    p = _write(tmp_path / "h.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n"
                                   "2 2 2\n1 1 3 0\n2 1 1.5 -2\n")
    A = read_graph(p)
    assert A.dtype == np.complex128
    assert _dense(A).tolist() == [[3, 1.5 + 2j], [1.5 - 2j, 0]]
    q = _write(tmp_path / "s.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
                                   "3 3 1\n3 1 5\n")
    assert _dense(read_graph(q)).tolist() == [[0, 0, -5], [0, 0, 0], [5, 0, 0]]


def test_mtx_nan_and_inf_are_read(tmp_path):
    p = _write(tmp_path / "n.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                   "1 4 4\n1 1 nan\n1 2 -INF\n1 3 Infinity\n1 4 .5e1\n")
    v = _dense(read_graph(p))[0]
    assert np.isnan(v[0]) and v[1] == -np.inf and v[2] == np.inf and v[3] == 5.0


@pytest.mark.parametrize("value", ["1.5", "0x10", "1e", "1.2.3", "--1", "+", "1e5.3", ".",
                                   "1d3", "nana", "+-nan", "١", "1e+", "e5"])
def test_mtx_bad_real_values(tmp_path, value):
    field = "integer" if value == "1.5" else "real"
    p = _write(tmp_path / "v.mtx", f"%%MatrixMarket matrix coordinate {field} general\n"
                                   f"2 2 2\n1 1 1\n2 2 {value}\n".encode())
    with pytest.raises(InputError, match=r"v\.mtx: line 4: ") as ei:
        read_graph(p)
    assert ei.value.argument == "path"


def test_every_read_graph_case_names_path():
    import csv as _csv
    with open(BAD / "CASES.tsv") as f:
        rows = [r for r in _csv.reader(f, delimiter="\t")][1:]
    for file, call, error, _ in rows:
        if call != "read_graph" or error != "InputError":
            continue
        with pytest.raises(InputError) as ei:
            read_graph(BAD / file)
        assert ei.value.argument == "path", file


CRASHERS = ["mm_nul_in_value.mtx", "mm_binary_body.mtx", "random_bytes.mtx", "metis_nul.graph",
            "snap_nul.txt", "mm_lone_carriage_return.mtx"]


def test_binary_junk_in_a_child_process():
    """Files that could crash a parser: each read in a fresh process, which must end with the
    InputError naming the path (not a signal, not another exception)."""
    code = ("import sys\nfrom pyclmatch.io import read_graph\nfrom pyclmatch import InputError\n"
            "for p in sys.argv[1:]:\n    try:\n        read_graph(p)\n        print('ACCEPTED')\n"
            "    except InputError as e:\n        print('InputError', e.argument)\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    out = subprocess.run([sys.executable, "-c", code, *[str(BAD / f) for f in CRASHERS]],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:-1] == ["InputError path"] * len(CRASHERS)


# -- paths ----------------------------------------------------------------------------------------

def test_bytes_and_pathlike_paths(tmp_path):
    p = _write(tmp_path / "b.mtx", "%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n")
    for path in (str(p), os.fsencode(str(p)), p):
        assert read_graph(path).nnz == 1


def test_paths_that_are_not_files(tmp_path):
    with pytest.raises(InputError, match="is a directory") as ei:
        read_graph(tmp_path)
    assert ei.value.argument == "path"
    fifo = tmp_path / "f.mtx"
    os.mkfifo(fifo)                      # (opening it would block: refused before that)
    with pytest.raises(InputError, match="not a regular file") as ei:
        read_graph(fifo)
    assert ei.value.argument == "path"
    with pytest.raises(InputError, match="not a regular file"):
        read_graph("/dev/null")
    with pytest.raises(InputError) as ei:
        read_graph(3)
    assert ei.value.argument == "path"
    with pytest.raises(FileNotFoundError):
        read_graph(os.fsencode(str(tmp_path / "missing.mtx")))


@pytest.mark.parametrize("kwargs,argument", [({"format": "csv"}, "format"),
                                             ({"format": 3}, "format"),
                                             ({"symmetrize": "yes"}, "symmetrize"),
                                             ({"return_labels": 1}, "return_labels")])
def test_bad_read_graph_parameters(tmp_path, kwargs, argument):
    p = _write(tmp_path / "g.txt", "0 1\n")
    with pytest.raises(InputError) as ei:
        read_graph(p, **kwargs)
    assert ei.value.argument == argument


def test_format_is_case_insensitive(tmp_path):
    p = _write(tmp_path / "g.dat", "0 1\n")
    assert read_graph(p, format="SNAP").shape == (2, 2)


# -- hypothesis: random valid files against scipy, and their mutations -------------------------

_KINDS = [(layout, field, sym) for layout in ("coordinate", "array")
          for field in ("real", "integer", "complex", "pattern")
          for sym in ("general", "symmetric", "skew-symmetric", "hermitian")
          if not (layout == "array" and field == "pattern")
          and not (sym == "hermitian" and field != "complex")
          and not (sym == "skew-symmetric" and field == "pattern")]


@st.composite
def _mm_files(draw):
    layout, field, sym = draw(st.sampled_from(_KINDS))
    n = draw(st.integers(1, 5))
    m = n if sym != "general" else draw(st.integers(1, 5))
    if field == "integer":
        num = st.integers(-10**6, 10**6).map(str)
    else:
        num = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(
            lambda x: draw(st.sampled_from(["{!r}", "{:.3e}", "{:.2f}"])).format(x))
    def value(diag):
        if field == "pattern":
            return ""
        if field == "complex":
            return " " + draw(num) + " " + ("0" if diag and sym == "hermitian" else draw(num))
        return " " + draw(num)
    lower = [(i, j) for j in range(m) for i in range(n)
             if sym == "general" or i > j or (i == j and sym != "skew-symmetric")]
    if layout == "array":
        lines = [value(i == j).strip() for i, j in lower]
        size = f"{n} {m}"
    else:
        picks = draw(st.lists(st.sampled_from(lower), max_size=8)) if lower else []
        lines = [f"{i + 1} {j + 1}{value(i == j)}" for i, j in picks]
        size = f"{n} {m} {len(lines)}"
    return (f"%%MatrixMarket matrix {layout} {field} {sym}\n{size}\n" +
            "".join(ln + "\n" for ln in lines)).encode(), field == "pattern"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mm_files())
def test_random_valid_mtx_equals_scipy(tmp_path_factory, file):
    raw, pattern = file
    p = tmp_path_factory.mktemp("mm") / "r.mtx"
    p.write_bytes(raw)
    _same_as_scipy(read_graph(p), raw, pattern)


def _mutated(raw, data):
    """``raw`` after 1 to 3 token deletions and insertions and byte flips."""
    b = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 3), "mutations")):
        at = data.draw(st.integers(0, max(len(b) - 1, 0)), "at")
        how = data.draw(st.sampled_from(["flip", "delete", "insert"]), "how")
        if how == "flip":
            b[at] = data.draw(st.integers(0, 255), "byte")
        elif how == "delete":
            end = b.find(b" ", at)
            del b[at:(end if end > at else at + 1)]
        else:
            tok = data.draw(st.sampled_from([b" 1", b" -2.5e3", b" x", b"\n", b" 7 7", b"\x00",
                                             b"%", b" nan", b"\t"]), "token")
            b[at:at] = tok
    return b


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mm_files(), st.data())
def test_mutated_mtx_same_matrix_or_input_error(tmp_path_factory, file, data):
    """Token deletions and insertions and byte flips of a valid file: read_graph (which never
    hands bytes to a third-party parser, so this runs in-process) raises InputError naming the
    path, or returns what scipy.io.mmread reads from the mutated file (the original matrix when
    the mutation is harmless; scipy is asked only about files without control bytes)."""
    raw, _ = file
    p = tmp_path_factory.mktemp("mm") / "m.mtx"
    p.write_bytes(raw)
    A = read_graph(p)
    b = _mutated(raw, data)
    p.write_bytes(bytes(b))
    try:
        B = read_graph(p)
    except InputError as e:
        assert e.argument == "path"
        return
    mutated = bytes(b)
    assert B.has_canonical_format
    if mutated == raw:
        assert (B != A).nnz == 0
    elif not any(c < 9 or 13 < c < 32 for c in mutated):
        _same_as_scipy(B, mutated, b"pattern" in mutated.split(b"\n", 1)[0].lower())


# -- entry sections parsed in parts (mtx.PARALLEL_BYTES): the outcome of the one pass --------

def _outcome(raw):
    """pyclmatch.mtx.read's CSR (its arrays) or its InputError (message and argument)."""
    try:
        A = mtx.read(bytes(raw), "f.mtx")
    except InputError as e:
        return "InputError", str(e), e.argument
    return A.shape, A.dtype.str, A.indptr.tolist(), A.indices.tolist(), A.data.tobytes()


def _both_ways(raw, parts):
    """The outcomes of ``raw`` read in one pass and in ``parts`` parts (every body split)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(mtx, "PARALLEL_BYTES", 1 << 62)
        one = _outcome(raw)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(mtx, "PARALLEL_BYTES", 0)
        m.setattr(mtx.os, "cpu_count", lambda: parts)
        return one, _outcome(raw)


MTX_CASES = sorted(BAD.rglob("*.mtx")) + VALID_MTX


@pytest.mark.parametrize("parts", [2, 3])
def test_mtx_in_parts_same_outcome_on_every_file(parts):
    assert len(MTX_CASES) > 20
    for path in MTX_CASES:
        raw = path.read_bytes()
        raw = gzip.decompress(raw) if path.suffix == ".gz" else raw
        one, split = _both_ways(raw, parts)
        assert one == split, path.name


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mm_files(), st.data(), st.integers(2, 4))
def test_mtx_in_parts_same_outcome_on_mutated_files(file, data, parts):
    banner, size, body = file[0].split(b"\n", 2)
    if b"coordinate" in banner:                  # (the entries 1 to 4 times over)
        copies = data.draw(st.integers(1, 4), "copies")
        n, m, k = size.split()
        size, body = b"%s %s %d" % (n, m, int(k) * copies), body * copies
    raw = b"\n".join([banner, size, body])
    raw = _mutated(raw, data) if data.draw(st.booleans(), "mutate") else raw
    one, split = _both_ways(raw, parts)
    assert one == split


def test_mtx_in_parts_is_taken(monkeypatch):
    """A body without comments is read in parts (and one with an error is not: its one pass
    names the first bad line)."""
    lines = "".join(f"{k % 7 + 1} {k % 5 + 1} {k}.5e-1\n" for k in range(200))
    raw = f"%%MatrixMarket matrix coordinate real general\n7 5 200\n{lines}".encode()
    monkeypatch.setattr(mtx, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(mtx.os, "cpu_count", lambda: 2)
    kind, pos = (True, "real", "general", 7, 5), raw.index(b"\n", 50) + 1
    i, j, v = mtx._in_parts(raw, pos, 3, 200, kind, "f.mtx")
    assert i.tolist() == [k % 7 for k in range(200)] and j.tolist() == [k % 5 for k in range(200)]
    assert v.tolist() == [float(f"{k}.5e-1") for k in range(200)]
    bad = raw.replace(b"4 5 199.5e-1", b"4 5 199.5e-1x")
    assert bad != raw
    assert mtx._in_parts(bad, pos, 3, 200, kind, "f.mtx") is None
    with pytest.raises(InputError, match=r"f\.mtx: line 202: '199\.5e-1x' is not a real"):
        mtx.read(bad, "f.mtx")


def test_mtx_in_parts_line_ends(monkeypatch):
    """Lines ending in ``\\r\\n`` are read in parts (as 0-based int32 indices); a carriage
    return without a line feed after it leaves the body to the one pass, which refuses it."""
    lines = "".join(f"{k % 7 + 1} {k % 5 + 1} {k}\r\n" for k in range(200))
    raw = f"%%MatrixMarket matrix coordinate integer general\r\n7 5 200\r\n{lines}".encode()
    monkeypatch.setattr(mtx, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(mtx.os, "cpu_count", lambda: 2)
    kind, pos = (True, "integer", "general", 7, 5), raw.index(b"200\r\n") + 5
    i, j, v = mtx._in_parts(raw, pos, 3, 200, kind, "f.mtx")
    assert i.dtype == j.dtype == np.int32
    assert i.tolist() == [k % 7 for k in range(200)] and v.tolist() == list(range(200))
    bad = raw.replace(b"4 5 199\r\n", b"4 5 199\r")
    assert bad != raw and mtx._in_parts(bad, pos, 3, 200, kind, "f.mtx") is None
    with pytest.raises(InputError, match=r"f\.mtx: line 202: unexpected byte b'\\r'"):
        mtx.read(bad, "f.mtx")


# -- real values: computed exactly (the vectorised decimals equal Python's float) -------------

def _read_column(tmp_path, tokens, field="real"):
    text = "".join(f"{k + 1} 1 {t}\n" for k, t in enumerate(tokens))
    p = _write(tmp_path / "col.mtx", f"%%MatrixMarket matrix coordinate {field} general\n"
                                     f"{len(tokens)} 1 {len(tokens)}\n{text}")
    return read_graph(p).toarray()[:, 0]


HARD_REALS = [
    "9007199254740993", "9007199254740995", "-9007199254740993e0",   # (halfway: ties to even)
    "0.1", "0.3", "1.", ".5", "+.5e+3", "-0", "-0.0e5", "+0", "0e9999", "-0e-9999",
    "0000.000001", "00012345678901234567890", "1234567890123456789", "9999999999999999999",
    "18446744073709551615", "0.00017758319880469846", "1.7976931348623157e308", "4.9e-324",
    "2.2250738585072011e-308", "2.2250738585072014e-308", "1e-400", "123456789e-27",
    "123456789e-28", "1e27", "1e28", "5e-27", "1.0000000000000002", "0.9999999999999999",
    "1.00000000000000011102230246251565404236316680908203125",   # (exactly halfway 1 / next)
    "1.00000000000000011102230246251565404236316680908203124", "3.141592653589793238",
    "-.01276248987350509", ".202536535351534", "1E5", "1e+0005", "-2.118770994999999e-17",
    "nan", "-inf", "Infinity", "1.5E-0"]


def test_mtx_hard_real_values_equal_python_float(tmp_path):
    got = _read_column(tmp_path, HARD_REALS)
    want = np.array([float(t) for t in HARD_REALS])
    assert np.array_equal(got, want, equal_nan=True)     # (CSR assembly adds to +0.0: -0 reads 0)


_DIGITS = st.text("0123456789", min_size=0, max_size=22)


@st.composite
def _decimal_tokens(draw):
    """Plain decimal tokens: signs, up to 22 digits each side of an optional point, an
    optional exponent; or the repr / %.17g of a random float."""
    if draw(st.booleans()):
        x = draw(st.floats(allow_nan=False, allow_infinity=False))
        return draw(st.sampled_from(["{!r}", "{:.17g}", "{:.16e}", "{:.15g}"])).format(x)
    whole, frac = draw(_DIGITS), draw(_DIGITS)
    point = draw(st.booleans()) or not whole or not frac
    mant = (whole + ("." if point else "") + frac) or "0"
    if mant == ".":
        mant = "0."
    exp = ""
    if draw(st.booleans()):
        exp = draw(st.sampled_from("eE")) + draw(st.sampled_from(["", "+", "-"])) + \
            str(draw(st.integers(0, 40)))
    return draw(st.sampled_from(["", "+", "-"])) + mant + exp


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_decimal_tokens(), min_size=1, max_size=40))
def test_random_decimals_equal_python_float(tmp_path_factory, tokens):
    want = np.array([float(t) for t in tokens])
    if np.isinf(want).any():                       # (refused: past float64's range)
        return
    got = _read_column(tmp_path_factory.mktemp("dec"), tokens)
    assert np.array_equal(got, want)


def test_mtx_integer_columns_exact(tmp_path):
    toks = ["0", "-0", "+7", "99999999", "100000000", "-1234567890123456789",
            "9223372036854775807", "-9223372036854775808", "000000000000000000000042"]
    got = _read_column(tmp_path, toks, field="integer")
    assert got.tolist() == [int(t) for t in toks]


def test_mtx_size_line_last_without_newline():
    """A file that ends on its size line, no newline after it (no entries follow): an empty
    matrix, not numpy's error about a buffer offset past its end (hypothesis found it)."""
    from pyclmatch import mtx
    A = mtx.read(b"%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0", "f.mtx")
    assert A.shape == (1, 1) and A.nnz == 0
    A = mtx.read(b"%%MatrixMarket matrix coordinate real general\n2 3 0", "f.mtx")
    assert A.shape == (2, 3) and A.nnz == 0
