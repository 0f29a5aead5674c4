"""Graph readers: Matrix Market, METIS/DIMACS10 ``.graph`` and SNAP-style edge lists.

:func:`read_graph` returns a :class:`scipy.sparse.csr_matrix` with sorted indices and no duplicate
entries (a position listed twice is one entry, its weights summed, in every format).  Pattern graphs carry ``int8`` ones;
weighted files keep their values (``float64`` for real Matrix Market files and edge-list weights,
``int64`` for integer Matrix Market files and METIS edge weights).

Files may be compressed with gzip, bzip2 or xz; the compression is recognised by the extension
(``.gz``, ``.bz2``, ``.xz``) or by the file's magic bytes.  Parsing is vectorised with numpy (Matrix Market in
:mod:`pyclmatch.mtx`, strictly per its specification); errors name the offending line.
"""
from __future__ import annotations

import bz2
import codecs
import gzip
import io as _io
import lzma
import zlib
import os
import stat

import numpy as np
import scipy.sparse as sp

from typing import Any
from . import mtx
from .engine import args, limits
from .errors import InputError

__all__ = ["read_graph", "FORMATS"]

#: accepted values of ``format=`` (aliases map onto the three canonical names)
FORMATS = {
    "mtx": "mtx", "mm": "mtx", "matrixmarket": "mtx", "matrix-market": "mtx",
    "metis": "metis", "graph": "metis", "dimacs10": "metis", "chaco": "metis",
    "snap": "snap", "edgelist": "snap", "edges": "snap", "txt": "snap", "tsv": "snap",
}

_EXT_FORMAT = {
    ".mtx": "mtx", ".mm": "mtx",
    ".graph": "metis", ".metis": "metis", ".chaco": "metis",
    ".txt": "snap", ".edges": "snap", ".tsv": "snap", ".el": "snap", ".edgelist": "snap",
    ".snap": "snap",
}

_DECOMPRESS = {".gz": gzip.GzipFile, ".bz2": bz2.BZ2File, ".xz": lzma.LZMAFile}
_CHUNK = 1 << 24

_MAX_ID = np.iinfo(np.int32).max - 1      # integer ids are used as indices (shape = max id + 1)


def read_graph(path: str | os.PathLike, *, format: str | None = None, symmetrize: bool = False,
               return_labels: bool = False) -> Any:
    """Read a graph or sparse matrix file into a ``scipy.sparse.csr_matrix``.

    Parameters
    ----------
    path : str, bytes or os.PathLike
        The file (a regular file: a directory, FIFO or device is refused before it is opened).
        Compressed files (``.gz``, ``.bz2``, ``.xz``, or recognised by their magic
        bytes) are decompressed in memory.
    format : {"mtx", "metis", "snap", "npz"}, optional
        Overrides the detection (any case; aliases: :data:`FORMATS`).  By default the format follows the extension (after stripping a
        compression suffix): ``.mtx``/``.mm`` -> Matrix Market, ``.graph``/``.metis`` -> METIS,
        ``.txt``/``.edges``/``.tsv``/``.el`` -> SNAP edge list.  A file that starts with the
        ``%%MatrixMarket`` banner is read as Matrix Market whatever its extension.
    symmetrize : bool
        Return the union of ``A`` and ``A.T``, after the duplicates of the file are summed: for
        pattern graphs the pattern of ``A + A.T`` with ones; for weighted graphs the weight of the
        one direction listed, or the larger of ``A[u, v]`` and ``A[v, u]`` where both are, so an
        undirected edge list giving each edge both ways with one weight keeps that weight (not
        doubled).  Needs a square matrix.  For METIS files it also accepts an adjacency that is
        not symmetric instead of raising.
    return_labels : bool
        Return ``(A, labels)``.  ``labels[i]`` is the original label of vertex ``i`` for edge lists
        with non-integer vertex names, ``None`` otherwise.

    Notes
    -----
    The formats:

    * Matrix Market, read strictly per the NIST specification by :mod:`pyclmatch.mtx` (no
      third-party parser sees the bytes): the banner ``%%MatrixMarket matrix
      coordinate|array real|integer|complex|pattern general|symmetric|skew-symmetric|hermitian``
      (any case; pattern only with coordinate, hermitian only with complex, no skew-symmetric
      pattern) on the first line, ``%`` comment lines and blank lines anywhere after it, the
      size line, then exactly one entry per line with exactly its tokens (``i j`` for pattern,
      ``i j value``, ``i j re im`` for complex; one value, or two for complex, per line for
      ``array``, column-major).  Indices are unsigned decimal integers within the size line's
      bounds; ``integer`` values decimal integers within int64 (``1.5`` is refused, not
      truncated); ``real`` values decimal numbers (``[+-]digits[.digits][e[+-]digits]``; ``0x10``
      or ``1e`` are refused, a finite number past float64 too; ``nan``, ``inf`` and
      ``infinity`` in any case read as IEEE values, which the matching and Louvain functions
      then refuse); tokens separated by spaces or tabs, lines ending in ``\\n`` or
      ``\\r\\n``, no other control or non-ASCII byte on an entry line.  Symmetric, hermitian
      and skew-symmetric files list the lower triangle only: an entry above the diagonal (on
      it, for skew-symmetric; an imaginary diagonal, for hermitian) is refused with its line,
      and the file comes back full.  A position listed twice is summed (as
      :func:`scipy.io.mmread` does, and as the library merges duplicates elsewhere); explicit
      zeros of coordinate files are kept as entries, zeros of ``array`` files are not entries.
      ``real`` gives ``float64``, ``integer`` ``int64``, ``complex`` ``complex128``, ``pattern``
      ``int8`` ones.
    * METIS / DIMACS10 ``.graph``: header ``n m [fmt [ncon]]``, ``%`` comment lines, line ``i``
      holds the 1-based neighbours of vertex ``i`` (an empty line is an isolated vertex).  ``fmt``
      is up to three binary digits ``abc``: ``a`` vertex sizes, ``b`` vertex weights (``ncon`` of
      them, default 1; ``ncon`` only with vertex weights), ``c`` edge weights.  Every field is a
      decimal integer; sizes and weights are non-negative.  Vertex sizes and weights are
      skipped; edge weights become the data (``int64``).  The header must agree with the lines
      (``n`` vertex lines, ``2m`` neighbour entries) and the adjacency must be symmetric; a
      neighbour listed twice on a line is one edge, its weights summed.
      METIS and SNAP files may not hold control bytes (a NUL, ...) other than white space.
    * scipy ``.npz`` files (:func:`scipy.sparse.save_npz`, any sparse format): loaded as they
      are, no parsing (the fast way to keep a collection of matrices on disk).
    * SNAP edge lists: ``#`` (or ``%``) comment lines, blank lines ignored, one arc ``u v`` or
      ``u v weight`` per line (whitespace separated; every line the same number of fields).  If all
      ids are non-negative integers they are kept as indices (shape ``max id + 1``); otherwise
      every id is treated as a string label and labels are numbered 0..n-1 in order of first
      appearance.  Arcs are stored as given (``A[u, v]``); an arc listed twice (the same ``u v``,
      in that order) is one entry, its weights summed as in every format; ``u v`` and ``v u``
      are two arcs (``symmetrize=True`` joins them); self-loops are kept.

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    pyclmatch.InputError
        ``argument="path"``: the path is empty, not a regular file or cannot be read, or the file is
        empty, not in the expected format, or inconsistent; the message names the file and,
        for text formats, the line.  ``argument="format"`` (or ``"symmetrize"``,
        ``"return_labels"``): a parameter of the wrong type or value.

    Examples
    --------
    A 3 x 3 Matrix Market file with three entries:

    >>> import os, tempfile
    >>> from pyclmatch import read_graph
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "tiny.mtx")
    ...     with open(path, "w") as fh:
    ...         _ = fh.write("%%MatrixMarket matrix coordinate pattern general\\n"
    ...                      "3 3 3\\n1 2\\n2 1\\n3 3\\n")
    ...     A = read_graph(path)
    >>> A.shape, A.nnz
    ((3, 3), 3)
    >>> A.toarray().astype(int).tolist()
    [[0, 1, 0], [1, 0, 0], [0, 0, 1]]
    """
    name = _checked_path(path)
    if format is not None:
        format = FORMATS.get(args.choice("format", format, tuple(FORMATS) + ("npz",)), "npz")
    symmetrize = args.boolean("symmetrize", symmetrize)
    return_labels = args.boolean("return_labels", return_labels)
    if format == "npz" or (format is None and name.lower().endswith(".npz")):
        A, labels = _read_npz(name), None
    else:
        A, labels = _read_text(name, format, symmetrize)
    if symmetrize:
        if A.shape[0] != A.shape[1]:
            raise _bad(f"{name}: cannot symmetrize a {A.shape[0]} x {A.shape[1]} "
                             f"(non-square) matrix")
        A = _symmetrized(A)
    return (A, labels) if return_labels else A


# ------------------------------------------------------------------------------------------------
# file handling and format detection

def _bad(message):
    """The InputError of a bad file: ``argument="path"``."""
    return InputError(message, argument="path")


def _checked_path(path):
    """``path`` as a str naming a regular file (checked with ``os.stat`` before anything opens
    it, so a FIFO is refused instead of blocking): FileNotFoundError if it does not exist,
    InputError (``argument="path"``) for a directory, a FIFO, a device or socket, or a path
    that cannot be looked at."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        args.refuse("path", path, "a file name: a str, bytes or os.PathLike")
    try:
        name = os.fsdecode(os.fspath(path))
    except TypeError:              # (a PathLike whose __fspath__ returns something else)
        args.refuse("path", path, "a file name: a str, bytes or os.PathLike")
    if not name:
        raise _bad("path is an empty string; read_graph needs a file name")
    if "\0" in name:
        raise _bad(f"path {name!r} holds a NUL character")
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise FileNotFoundError(2, "No such file or directory", name) from None
    except OSError as e:
        raise _bad(f"{name}: cannot look at the file: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise _bad(f"{name} is a directory; read_graph reads one file")
    if not stat.S_ISREG(st.st_mode):
        raise _bad(f"{name} is not a regular file (a FIFO, device or socket); read_graph "
                   f"reads regular files")
    return name


def _decompress(raw, name):
    """Return (decompressed bytes, file name without the compression suffix)."""
    lower = name.lower()
    for ext, fn in _DECOMPRESS.items():
        if lower.endswith(ext):
            base = lower[:-len(ext)]
            break
    else:
        base = lower
        if raw[:2] == b"\x1f\x8b":
            fn = gzip.GzipFile
        elif raw[:3] == b"BZh" and raw[4:10] == b"1AY&SY":
            fn = bz2.BZ2File
        elif raw[:6] == b"\xfd7zXZ\x00":
            fn = lzma.LZMAFile
        else:
            return raw, base
    budget = limits.host_budget() // 2     # (the chunks and their join)
    parts, size = [], 0
    try:
        with fn(fileobj=_io.BytesIO(raw)) if fn is gzip.GzipFile else fn(_io.BytesIO(raw)) as f:
            while True:
                chunk = f.read(_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > budget:             # (a decompression bomb, or too large a file)
                    limits.check(None, "read_graph", f"{name} (compressed {len(raw):,} bytes)",
                                 host={"decompressed text (so far)": 2 * size})
                parts.append(chunk)
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as e:
        raise _bad(f"{name}: cannot decompress the file: {e}") from e
    return b"".join(parts), base


def _has_mm_banner(data):
    return data[:14].lower() == b"%%matrixmarket"


def _detect_format(data, base, name, format):
    if format is not None:
        return format
    if _has_mm_banner(data):
        return "mtx"
    ext = os.path.splitext(base)[1]
    if ext in _EXT_FORMAT:
        return _EXT_FORMAT[ext]     # (a .mtx without the banner: _read_mtx refuses it)
    raise _bad(f"{name}: cannot tell the file format from the extension {ext!r}: the "
               f"extensions read are .mtx/.mm (Matrix Market), .graph/.metis/.chaco (METIS), "
               f".txt/.edges/.tsv/.el/.edgelist/.snap (SNAP edge lists) and .npz (scipy), each "
               f"optionally .gz/.bz2/.xz; or pass format='mtx', 'metis', 'snap' or 'npz'")


# ------------------------------------------------------------------------------------------------
# token scanning

class _Tokens:
    """Token boundaries of a byte string: ``starts``/``ends`` (end exclusive), the 0-based line of
    each token, the number of lines, and a comment mask (tokens on lines whose first token starts
    with one of ``comment_chars``)."""

    def __init__(self, data, comment_chars):
        self.data = data
        b = np.frombuffer(data, np.uint8)
        self.b = b
        nonws = np.zeros(b.size + 2, bool)           # space and control bytes separate tokens
        np.greater(b, 32, out=nonws[1:-1])
        edges = np.flatnonzero(nonws[1:] != nonws[:-1])
        self.starts, self.ends = edges[0::2], edges[1::2]
        nl = np.flatnonzero(b == 10)
        self.line = np.searchsorted(nl, self.starts)          # newlines before each token
        self.nlines = nl.size + (1 if b.size and b[-1] != 10 else 0)
        first = np.ones(self.starts.size, bool)
        first[1:] = self.line[1:] != self.line[:-1]
        lead = b[self.starts[first]]
        cmt = np.isin(lead, np.frombuffer(comment_chars, np.uint8))
        self.comment_line = np.zeros(self.nlines, bool)
        self.comment_line[self.line[first][cmt]] = True
        self.is_data = ~self.comment_line[self.line]

    def __len__(self):
        return self.starts.size

    def text(self, idx):
        return self.data[self.starts[idx]:self.ends[idx]].decode("utf-8", "replace")

    def select(self, idx):
        """Bytes holding only the tokens ``idx`` (in place), everything else blanked."""
        idx = np.asarray(idx)
        if idx.size and idx[-1] - idx[0] + 1 == idx.size:  # a contiguous run (idx is increasing)
            if idx.size == len(self):
                return self.data
            return self.data[self.starts[idx[0]]:self.ends[idx[-1]]]
        delta = np.zeros(self.b.size + 1, np.int8)
        delta[self.starts[idx]] = 1
        delta[self.ends[idx]] = -1
        keep = np.cumsum(delta[:-1], dtype=np.int8).view(bool)
        out = np.full(self.b.size, 32, np.uint8)
        out[keep] = self.b[keep]
        return out.tobytes()

    def parse(self, idx, dtype):
        """Parse tokens ``idx`` as ``dtype``; return None if any of them is not a number."""
        idx = np.asarray(idx)
        if idx.size == 0:
            return np.zeros(0, dtype)
        try:
            v = np.fromstring(self.select(idx), dtype=dtype, sep=" ")
        except ValueError:
            return None
        except (AttributeError, TypeError):                # numpy without text fromstring
            try:
                v = np.array(self.select(idx).split(), dtype=dtype)
            except ValueError:
                return None
        return v if v.size == idx.size else None

    def words(self, idx):
        """The tokens ``idx`` as a list of bytes."""
        d = self.data
        return [d[a:b] for a, b in zip(self.starts[idx].tolist(), self.ends[idx].tolist())]

    def bad_number(self, idx, conv, what):
        """Message naming the line and text of the first token of ``idx`` that ``conv`` rejects."""
        for i in np.asarray(idx):
            try:
                conv(self.data[self.starts[i]:self.ends[i]])
            except ValueError:
                return f"line {int(self.line[i]) + 1}: {self.text(i)!r} is not {what}"
        return f"cannot parse the numbers (unexpected characters, expected {what}s)"


def _line_no(tok, i):
    return int(tok.line[i]) + 1


# ------------------------------------------------------------------------------------------------
# matrix assembly

def _assemble(rows, cols, weights, shape):
    """CSR from (rows, cols[, weights]); a position listed twice is merged: pattern graphs keep
    one, weighted graphs the sum of the weights (as Matrix Market files and scipy merge them)."""
    return mtx.entries_csr(np.asarray(rows, np.int64), np.asarray(cols, np.int64),
                           None if weights is None else np.asarray(weights), shape)


def _symmetrized(A):
    """The union of ``A`` and ``A.T``: pattern graphs ones; weighted graphs the weight of the
    direction listed, or the larger of the two where both are listed (an undirected file listing
    each edge both ways keeps its weights, none doubled)."""
    C = A.tocoo()
    rows = np.concatenate([C.row, C.col]).astype(np.int64)
    cols = np.concatenate([C.col, C.row]).astype(np.int64)
    if A.dtype == np.int8 and np.all(C.data == 1):
        return _assemble(rows, cols, None, A.shape)
    w = np.concatenate([C.data, C.data])
    order = np.lexsort((w, cols, rows))
    rows, cols, w = rows[order], cols[order], w[order]
    last = np.ones(rows.size, bool)                   # the largest weight of each position
    last[:-1] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    S = sp.csr_matrix((w[last], (rows[last], cols[last])), shape=A.shape)
    S.sort_indices()
    return S


# ------------------------------------------------------------------------------------------------
# Matrix Market

def _read_text(name, format, symmetrize):
    """``(A, labels)`` of a text format file (compressed or not)."""
    try:
        with open(name, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise _bad(f"{name}: cannot read the file: {e.strerror or e}") from None
    data, base = _decompress(raw, name)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    if not data or data.isspace():
        raise _bad(f"{name}: the file is empty")
    fmt = _detect_format(data, base, name, format)
    if fmt == "mtx":
        return _read_mtx(data, name), None
    _check_bytes(data, name)
    if fmt == "metis":
        return _read_metis(data, name, symmetrize), None
    return _read_snap(data, name)


#: control bytes a METIS or SNAP file may not hold (tab, line feed, carriage return and form
#: feed are white space; anything else would silently split or end a token)
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\r\f") + b"\x7f"


def _check_bytes(data, name):
    """Refuse control bytes (a NUL, ...) in a METIS or SNAP file, naming the line."""
    if len(data.translate(None, _CONTROL)) == len(data):
        return
    b = np.frombuffer(data, np.uint8)
    at = int(np.flatnonzero(np.isin(b, np.frombuffer(_CONTROL, np.uint8)))[0])
    line = data.count(b"\n", 0, at) + 1
    raise _bad(f"{name}: line {line}: control byte "
               f"{data[at:at + 1]!r} (a binary file, or a corrupted text file)")


def _read_npz(name):
    try:
        A = sp.load_npz(name)
    except Exception as exc:   # not a zip, or a zip without scipy's arrays
        raise _bad(f"{name}: not a scipy.sparse .npz file ({exc})") from None
    A = sp.csr_matrix(A)
    A.sum_duplicates()
    A.sort_indices()
    return A


def _read_mtx(data, name):
    if not _has_mm_banner(data):
        raise _bad(f"{name}: not a Matrix Market file (the first line is not a "
                   f"'%%MatrixMarket' banner)")
    return mtx.read(data, name)


# ------------------------------------------------------------------------------------------------
# METIS / DIMACS10

def _read_metis(data, name, symmetrize):
    """The METIS graph of ``data``: header, vertex lines, their neighbours, the symmetry check."""
    tok = _Tokens(data, b"%")
    live = np.flatnonzero(tok.is_data)
    if live.size == 0:
        raise _bad(f"{name}: no METIS header (the file holds only comments)")
    hline = tok.line[live[0]]
    n, m, fmt, ncon, k = _metis_header(tok, live, hline, name)
    # vertex lines: the non-comment lines after the header, in order
    is_vline = ~tok.comment_line
    is_vline[:hline + 1] = False
    vertex_of_line = np.cumsum(is_vline) - 1
    vline_no = np.flatnonzero(is_vline)                # 0-based file line of each vertex line
    nv = vline_no.size
    vt = live[tok.line[live] > hline]
    tv = vertex_of_line[tok.line[vt]]
    if nv < n:
        raise _bad(f"{name}: METIS header says n={n} vertices but the file has only {nv} "
                         f"vertex lines")
    if tv.size and tv[-1] >= n:
        extra = vt[np.argmax(tv >= n)]
        raise _bad(f"{name}: line {_line_no(tok, extra)}: METIS header says n={n} vertices "
                         f"but there is data after vertex {n}'s line")
    rows, cols, weights = _metis_neighbours(tok, vt, tv, vline_no, n, fmt, ncon, k, name)
    if cols.size != 2 * m:
        raise _bad(f"{name}: METIS header says m={m} edges but the vertex lines hold "
                         f"{cols.size} neighbour entries (expected 2m = {2 * m})")
    A = _assemble(rows, cols, weights, (n, n))
    if not symmetrize:
        _check_metis_symmetric(A, vline_no, name)
    return A


def _metis_header(tok, live, hline, name):
    """``(n, m, fmt, ncon, k)`` of the header line ``hline``: ``fmt`` as three 0/1 digits, ``k``
    the leading vertex size/weight fields of every vertex line."""
    htok = live[tok.line[live] == hline]
    hdr = [tok.text(i) for i in htok]
    where = f"{name}: line {hline + 1}: METIS header {' '.join(hdr)!r}"
    if not 2 <= len(hdr) <= 4 or not all(h.isdigit() for h in hdr):
        raise _bad(f"{where} is not 'n m [fmt [ncon]]' (non-negative integers)")
    n, m = int(hdr[0]), int(hdr[1])
    fmt = hdr[2] if len(hdr) > 2 else "0"
    if len(fmt) > 3 or set(fmt) - {"0", "1"}:
        raise _bad(f"{where}: fmt {fmt!r} must be up to three 0/1 digits "
                         f"(vertex sizes, vertex weights, edge weights)")
    fmt = fmt.zfill(3)
    has_size, has_vw, _ = (c == "1" for c in fmt)
    ncon = int(hdr[3]) if len(hdr) > 3 else 1
    if has_vw and ncon < 1:
        raise _bad(f"{where}: ncon must be at least 1")
    if len(hdr) > 3 and not has_vw:
        raise _bad(f"{where}: ncon is given but fmt={fmt} has no vertex weights (its middle "
                   f"digit is 0)")
    return n, m, fmt, ncon, int(has_size) + (ncon if has_vw else 0)


def _metis_neighbours(tok, vt, tv, vline_no, n, fmt, ncon, k, name):
    """``(rows, cols, weights)`` (0-based; weights None without edge weights) of the tokens
    ``vt`` of the vertex lines, ``tv`` the vertex of each token."""
    vals = tok.parse(vt, np.int64)
    if vals is None:
        raise _bad(f"{name}: {tok.bad_number(vt, int, 'an integer')}")
    counts = np.bincount(tv, minlength=n)
    pos = np.arange(vt.size) - np.repeat(np.cumsum(counts) - counts, counts)
    if k:
        short = np.flatnonzero(counts < k)
        if short.size:
            v = short[0]
            raise _bad(f"{name}: line {vline_no[v] + 1}: vertex {v + 1} has {counts[v]} "
                             f"fields but fmt={fmt} ncon={ncon} needs {k} vertex size/weight "
                             f"fields first")
    if fmt[2] == "1":
        odd = np.flatnonzero((counts - k) % 2)
        if odd.size:
            v = odd[0]
            raise _bad(f"{name}: line {vline_no[v] + 1}: vertex {v + 1} has an odd number "
                             f"of neighbour/weight fields (fmt={fmt} wants 'neighbour weight' "
                             f"pairs)")
        nb = (pos >= k) & ((pos - k) % 2 == 0)
        weights = vals[np.flatnonzero(nb) + 1]
        _metis_non_negative(tok, vt[np.flatnonzero(nb) + 1], weights, "edge weight", name)
    else:
        nb = pos >= k
        weights = None
    if k:
        _metis_non_negative(tok, vt[pos < k], vals[pos < k], "vertex size/weight", name)
    rows, cols = tv[nb], vals[nb] - 1
    out = np.flatnonzero((cols < 0) | (cols >= n))
    if out.size:
        i = vt[np.flatnonzero(nb)[out[0]]]
        raise _bad(f"{name}: line {_line_no(tok, i)}: neighbour {tok.text(i)} is out of "
                         f"range 1..{n}")
    return rows, cols, weights


def _metis_non_negative(tok, toks, vals, what, name):
    """The METIS manual's weights and sizes are non-negative integers."""
    neg = np.flatnonzero(vals < 0)
    if neg.size:
        i = toks[neg[0]]
        raise _bad(f"{name}: line {_line_no(tok, i)}: {what} {tok.text(i)} is negative (METIS "
                   f"weights and sizes are non-negative integers)")


def _check_metis_symmetric(A, vline_no, name):
    """InputError naming the first edge listed on one side only or with two weights."""
    D = (A != A.T).tocoo()
    if not D.nnz:
        return
    u, v = int(D.row[0]), int(D.col[0])
    a, b = A[u, v], A[v, u]
    if a and b:
        msg = (f"edge {u + 1}-{v + 1} has weight {a} on vertex {u + 1}'s line but {b} on "
               f"vertex {v + 1}'s line")
    else:
        if not a:
            u, v = v, u
        msg = f"vertex {u + 1} lists {v + 1} but vertex {v + 1} does not list {u + 1}"
    raise _bad(f"{name}: the METIS adjacency is not symmetric: {msg} (line "
                     f"{vline_no[u] + 1}); pass symmetrize=True to accept it")


# ------------------------------------------------------------------------------------------------
# SNAP edge lists

def _read_snap(data, name):
    tok = _Tokens(data, b"#%")
    live = np.flatnonzero(tok.is_data)
    if live.size == 0:
        raise _bad(f"{name}: no edges (the file holds only comments or blank lines)")
    lines = tok.line[live]
    newline = np.ones(live.size, bool)
    newline[1:] = lines[1:] != lines[:-1]
    first = np.flatnonzero(newline)
    counts = np.diff(np.append(first, live.size))
    ncol = int(counts[0])
    if ncol not in (2, 3):
        raise _bad(f"{name}: line {lines[0] + 1}: malformed edge line with {ncol} "
                         f"field(s); expected 'u v' or 'u v weight'")
    bad = np.flatnonzero(counts != ncol)
    if bad.size:
        j = bad[0]
        raise _bad(f"{name}: line {lines[first[j]] + 1}: malformed edge line with "
                         f"{counts[j]} field(s); expected {ncol} like the first edge line "
                         f"(line {lines[0] + 1})")
    grid = live.reshape(-1, ncol)
    id_tok = grid[:, :2].ravel()
    weights = None
    if ncol == 3:
        weights = tok.parse(grid[:, 2], np.float64)
        if weights is None:
            raise _bad(f"{name}: bad weight: {tok.bad_number(grid[:, 2], float, 'a number')}")

    ids = tok.parse(id_tok, np.int64)
    labels = None
    if ids is not None:
        neg = np.flatnonzero(ids < 0)
        if neg.size:
            i = id_tok[neg[0]]
            raise _bad(f"{name}: line {_line_no(tok, i)}: negative vertex id "
                             f"{tok.text(i)}")
        big = np.flatnonzero(ids > _MAX_ID)
        if big.size:
            i = id_tok[big[0]]
            raise _bad(f"{name}: line {_line_no(tok, i)}: vertex id {tok.text(i)} is too "
                             f"large (integer ids are used as indices, so the graph would have "
                             f"max id + 1 vertices)")
        n = int(ids.max()) + 1
        limits.check(None, "read_graph", f"{name} ({n:,} vertices, {ids.size // 2:,} edges)",
                     host={"CSR": (n + 1) * 8 + ids.size * 16})
    else:
        # string labels, numbered in order of first appearance
        names = np.array(tok.words(id_tok))
        uniq, first_at, inv = np.unique(names, return_index=True, return_inverse=True)
        order = np.argsort(first_at, kind="stable")
        rank = np.empty(order.size, np.int64)
        rank[order] = np.arange(order.size)
        ids = rank[inv.ravel()]
        n = order.size
        labels = np.array([s.decode("utf-8", "replace") for s in uniq[order]], dtype=str)
    A = _assemble(ids[0::2], ids[1::2], weights, (n, n))
    return A, labels
