"""The Matrix Market reader of :func:`pyclmatch.read_graph`: the NIST format, strictly, parsed
with numpy (no third-party parser sees the bytes).

The banner ``%%MatrixMarket matrix <coordinate|array> <real|integer|complex|pattern>
<general|symmetric|skew-symmetric|hermitian>`` (case-insensitive), then ``%`` comment lines,
the size line (``rows cols entries``, or ``rows cols`` for ``array``), then one entry per line:
``i j [value]`` (1-based indices; ``complex`` values are two numbers) or, for ``array``, one
value per line in column-major order (only the lower triangle for the symmetric kinds, without
the diagonal for ``skew-symmetric``). Blank lines and ``%`` comment lines may appear anywhere
after the banner. Every entry line holds exactly the number of tokens its kind needs; indices
are unsigned decimal integers; ``integer`` values optionally signed decimal integers; ``real``
values decimal floating-point numbers (``[+-]digits[.digits][(e|E)[+-]digits]``, or ``nan``,
``inf``, ``infinity`` in any case, which read as IEEE values); tokens are separated by spaces
or tabs, lines end in ``\\n`` or ``\\r\\n``. Symmetric, skew-symmetric and hermitian files
hold the lower triangle only (``i >= j``; ``i > j`` for skew-symmetric; a hermitian diagonal
is real).

The parse is vectorised: a check of the bytes, token boundaries, a line break exactly after
every entry's last token, and integers converted eight digits at a time (SWAR on uint64
words); real values go through Python's ``float`` after the checks. Every error
names the file and the line.
"""
import numpy as np
import scipy.sparse as sp

from .engine import limits
from .errors import InputError

LAYOUTS = ("coordinate", "array")
FIELDS = ("real", "integer", "complex", "pattern")
SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")
_BANNER = ("'%%MatrixMarket matrix coordinate|array real|integer|complex|pattern "
           "general|symmetric|skew-symmetric|hermitian'")
_MAX_ID = np.iinfo(np.int32).max           # rows / columns of a matrix pyclmatch takes
_LONGEST = 400                             # characters in one token

#: the bytes an entry line may hold (printable ASCII but ``_``, which Python's float takes)
_PLAIN = bytes(range(32, 127)).replace(b"_", b"") + b"\t\n\r"
_ZEROS = np.uint64(0x3030303030303030)
_HIGH = np.uint64(0xF0F0F0F0F0F0F0F0)
_SIX = np.uint64(0x0606060606060606)
_POW8 = [np.uint64(10 ** (8 * k)) for k in range(3)] + [np.uint64(0)]


def _swar(w, k):
    """Eight bytes at a time (``w``, little-endian words ending at a token's last byte; ``k``
    of them belong to the token): the decimal value of the last ``k`` bytes and whether they
    are all digits (the bytes before them count as leading zeros)."""
    keep = ~np.uint64(0) << ((np.uint64(8) - k) * np.uint64(8))
    w = (w & keep) | (_ZEROS & ~keep)
    ok = ((w & _HIGH) == _ZEROS) & (((w + _SIX) & _HIGH) == _ZEROS)
    d = w - _ZEROS
    d = (d * np.uint64(10) + (d >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    d = (d * np.uint64(100) + (d >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    d = (d * np.uint64(10000) + (d >> np.uint64(32))) & np.uint64(0xFFFFFFFF)
    return d, ok


def bad(name, msg):
    """The InputError of a bad file (``argument="path"``)."""
    return InputError(f"{name}: {msg}", argument="path")


def banner(data, name):
    """``(layout, field, symmetry)`` of the banner line, checked against the specification."""
    line = data.split(b"\n", 1)[0].rstrip(b"\r")
    words = line.split()
    shown = line[:120].decode("ascii", "replace")
    if len(words) != 5 or words[0].lower() != b"%%matrixmarket" or words[1].lower() != b"matrix":
        raise bad(name, f"line 1: malformed Matrix Market banner {shown!r} (expected {_BANNER})")
    got = [w.lower().decode("ascii", "replace") for w in words[2:]]
    for word, allowed, what in zip(got, (LAYOUTS, FIELDS, SYMMETRIES),
                                   ("format", "field", "symmetry")):
        if word not in allowed:
            raise bad(name, f"line 1: malformed Matrix Market banner {shown!r}: the {what} "
                            f"{word!r} is not one of {', '.join(allowed)}")
    layout, field, symmetry = got
    wrong = ((layout == "array" and field == "pattern", "a pattern matrix must be coordinate"),
             (symmetry == "hermitian" and field != "complex", "hermitian needs complex values"),
             (symmetry == "skew-symmetric" and field == "pattern",
              "a pattern matrix cannot be skew-symmetric"))
    for is_wrong, why in wrong:
        if is_wrong:
            raise bad(name, f"line 1: Matrix Market banner {shown!r}: {why}")
    return layout, field, symmetry


def size_line(data, name, layout, field, symmetry):
    """``(rows, cols, entries, pos, line)``: the size line's numbers, checked before anything
    is allocated for them (int32 dimensions, entries that the bytes after the size line can
    hold (a matrix may list a position twice: duplicates are summed), the read's arrays within the host's budget), ``pos`` the offset after
    the size line and ``line`` its 1-based line number."""
    pos, end, lineno = 0, len(data), 0
    while pos < end:                        # skip the banner, comments and blank lines
        nl = data.find(b"\n", pos)
        nl = end if nl < 0 else nl
        line = data[pos:nl].strip()
        pos, lineno = nl + 1, lineno + 1
        if line and not line.startswith(b"%"):
            break
    else:
        raise bad(name, "the Matrix Market file has no size line")
    coordinate = layout == "coordinate"
    words, want = line.split(), (3 if coordinate else 2)
    if len(words) != want or not all(w.isdigit() and w.isascii() for w in words):
        raise bad(name, f"line {lineno}: malformed Matrix Market size line {line[:80]!r} "
                        f"(expected {want} non-negative integers: rows cols"
                        f"{' entries' if coordinate else ''})")
    rows, cols = int(words[0]), int(words[1])
    for what, v in (("rows", rows), ("columns", cols)):
        if v > _MAX_ID:
            raise bad(name, f"the size line declares {v:,} {what}; pyclmatch's vertex ids are "
                            f"int32 (at most {_MAX_ID:,} per side)")
    if symmetry != "general" and rows != cols:
        raise bad(name, f"line {lineno}: a {symmetry} matrix must be square, not "
                        f"{rows:,} x {cols:,}")
    cells = {"general": rows * cols, "skew-symmetric": rows * (rows - 1) // 2}.get(
        symmetry, rows * (rows + 1) // 2)
    entries = int(words[2]) if coordinate else cells
    after = max(0, end - pos)
    per = 2 * max(1, (2 if coordinate else 0) + {"pattern": 0, "complex": 2}.get(field, 1))
    if entries * per > after + 1:
        raise bad(name, f"the size line declares {entries:,} "
                        f"{'entries' if coordinate else 'values'} but only {after:,} bytes "
                        f"follow it (room for at most {(after + 1) // per:,}): the file is "
                        f"truncated or the size line is wrong")
    stored = entries * (1 if symmetry == "general" else 2)
    host = {"coordinates and values": stored * 24, "CSR": (rows + 1) * 8 + stored * 16}
    if not coordinate:
        host["dense positions"] = cells * 16
    limits.check(None, "read_graph", f"{name} ({rows:,} x {cols:,}, {entries:,} entries)",
                 host=host)
    return rows, cols, entries, pos, lineno


class Body:
    """The entry lines after the size line: tokens (``starts``/``ends`` into ``b``), each
    entry ``ncol`` tokens on one line (checked). Comment lines are blanked first (kept as empty
    lines, so line numbers stay true)."""

    def __init__(self, data, pos, lineno, ncol, entries, name):
        body = data[pos:]
        if b"%" in body:
            body = b"\n".join(b"" if ln.lstrip().startswith(b"%") else ln
                              for ln in body.split(b"\n"))
        self.name, self.first, self.data, self.ncol = name, lineno + 1, body, ncol
        self.b = b = np.frombuffer(body, np.uint8)
        self._nl = None
        odd = body.translate(None, _PLAIN)
        at = np.flatnonzero(np.isin(b, np.frombuffer(odd, np.uint8)))[:1].tolist() if odd else []
        if b"\r" in body:
            cr = np.flatnonzero(b == 13)
            at += cr[b[np.minimum(cr + 1, b.size - 1)] != 10][:1].tolist()
        if at:
            raise bad(name, f"line {self.line_at(min(at))}: unexpected byte "
                            f"{body[min(at):min(at) + 1]!r} on an entry line (entries are "
                            f"numbers separated by spaces or tabs)")
        tok = np.zeros(b.size + 2, np.int8)
        np.greater(b, 32, out=tok[1:-1].view(bool))
        edges = np.flatnonzero(tok[1:] != tok[:-1])
        self.starts, self.ends = edges[0::2], edges[1::2]
        long = np.flatnonzero(self.ends - self.starts > _LONGEST)
        if long.size:
            raise bad(name, f"line {self.line_at(self.starts[long[0]])}: a token of "
                            f"{self.ends[long[0]] - self.starts[long[0]]:,} characters")
        if not self._regular(entries):
            self._explain(entries)

    def line_at(self, offset):
        """1-based file line of byte ``offset`` of the body."""
        if self._nl is None:
            self._nl = np.flatnonzero(self.b == 10)
        return self.first + int(np.searchsorted(self._nl, offset))

    def entry_line(self, k):
        """1-based file line of entry ``k``."""
        return self.line_at(self.starts[int(k) * self.ncol])

    def _regular(self, entries):
        """Whether there are ``entries`` lines of ``ncol`` tokens (and blank lines): a line
        break in exactly the gaps after every ``ncol``-th token."""
        s, e, ncol = self.starts, self.ends, self.ncol
        if s.size != entries * ncol:
            return False
        if not s.size:
            return True
        gs, ge = s[1:], e[:-1]
        brk = np.empty(s.size, bool)
        brk[-1] = True
        one = gs - ge == 1
        brk[:-1][one] = self.b[ge[one]] == 10
        if not one.all():
            self.line_at(0)
            rest = np.flatnonzero(~one)
            brk[rest] = (np.searchsorted(self._nl, gs[rest]) >
                         np.searchsorted(self._nl, ge[rest]))
        brk = brk.reshape(entries, ncol)
        return bool(brk[:, -1].all() and not brk[:, :-1].any())

    def _explain(self, entries):
        """Raise the error of an irregular body: the first line with a wrong number of tokens,
        or the count of entry lines."""
        self.line_at(0)
        cut = np.searchsorted(self.starts, self._nl)
        counts = np.diff(np.concatenate(([0], cut, [self.starts.size])))
        wrong = np.flatnonzero((counts != 0) & (counts != self.ncol))
        if wrong.size:
            k = int(wrong[0])
            raise bad(self.name, f"line {self.first + k}: {counts[k]} token(s) on an entry line "
                                 f"(this file's entries have {self.ncol})")
        full = np.flatnonzero(counts)
        if full.size > entries:
            raise bad(self.name, f"line {self.first + int(full[entries])}: more entries than "
                                 f"the {entries:,} the size line declares")
        raise bad(self.name, f"the size line declares {entries:,} entries but the file "
                             f"holds {full.size:,}: the file is truncated or the size "
                             f"line is wrong")

    def _words(self):
        """Little-endian 8-byte words ending at every byte offset (``words[x]``: bytes
        ``x - 8 .. x - 1`` of the body, ``'0'`` before its start)."""
        if getattr(self, "_w", None) is None:
            self._pad = np.concatenate((np.full(8, 48, np.uint8), self.b))
            self._w = np.ndarray((self.b.size + 1,), "<u8", self._pad, 0, (1,))
        return self._w

    def column(self, j):
        """Token indices of column ``j`` of every entry."""
        return np.arange(j, self.starts.size, self.ncol)

    def text(self, t):
        return self.data[self.starts[t]:self.ends[t]].decode("ascii", "replace")

    def refuse(self, t, what):
        """InputError for token ``t``: its line, its text, what it should be."""
        raise bad(self.name, f"line {self.entry_line(t // self.ncol)}: {self.text(t)!r} is not "
                             f"{what}")

    def digits(self, toks, skip=None):
        """``(values, ok)`` of tokens ``toks`` read as unsigned decimal integers, the first
        ``skip`` (0/1 per token) characters left out; ``ok`` False where a token holds
        anything but digits (its value is meant only up to 18 digits)."""
        s = self.starts[toks] + (0 if skip is None else skip)
        e = self.ends[toks]
        n = e - s
        v = np.zeros(s.size, np.uint64)
        ok = n >= 1
        words = self._words()
        for chunk in range(-(-int(n.max(initial=0)) // 8)):   # (8 digits at a time, from the
            # right; past 24 digits only checked: the value is no longer meant)
            if chunk == 0:
                live, w, k = slice(None), words[e], np.minimum(n, 8).astype(np.uint64)
            else:
                live = np.flatnonzero(n > 8 * chunk)
                w = words[e[live] - 8 * chunk]
                k = np.minimum(n[live] - 8 * chunk, 8).astype(np.uint64)
            d, good = _swar(w, k)
            v[live] += d * _POW8[min(chunk, 3)]
            ok[live] &= good
        return v.astype(np.int64), ok


def indices(body, j, high, what):
    """Column ``j``: 1-based indices in ``1..high``, returned 0-based (int64)."""
    toks = body.column(j)
    v, ok = body.digits(toks)
    if not ok.all():
        body.refuse(toks[np.argmin(ok)], f"a {what} index (a positive integer)")
    v[body.ends[toks] - body.starts[toks] > 10] = high + 1   # (past 10 digits: out of bounds)
    out = np.flatnonzero((v < 1) | (v > high))
    if out.size:
        raise bad(body.name, f"line {body.entry_line(out[0])}: {what} index "
                             f"{body.text(toks[out[0]])} is out of bounds 1..{high:,}")
    return v - 1


def integers(body, j):
    """Column ``j``: signed decimal integers within int64."""
    toks = body.column(j)
    first = body.b[body.starts[toks]]
    signed = (first == 43) | (first == 45)
    v, ok = body.digits(toks, skip=signed.astype(np.int64))
    if not ok.all():
        body.refuse(toks[np.argmin(ok)], "an integer (this is an integer Matrix Market file)")
    long = np.flatnonzero(body.ends[toks] - body.starts[toks] - signed > 18)
    np.negative(v, out=v, where=first == 45)
    for k in long.tolist():                  # (past 18 digits: Python's integers)
        x = int(body.text(toks[k]))
        if not -2**63 <= x < 2**63:
            body.refuse(toks[k], "an integer within int64")
        v[k] = x
    return v


def reals(body, j):
    """Column ``j``: decimal floating-point numbers (and nan/inf) as float64. The byte classes
    leave Python's ``float`` exactly the grammar of the module's docstring (digits, signs,
    points, exponent letters and the letters of nan/inf: no underscores, blanks, non-ASCII
    digits or hexadecimal)."""
    toks = body.column(j)
    data, st, en = body.data, body.starts[toks].tolist(), body.ends[toks].tolist()
    try:
        v = np.fromiter(map(float, (data[a:z] for a, z in zip(st, en))), np.float64, len(st))
    except ValueError:
        for k, (a, z) in enumerate(zip(st, en)):
            try:
                float(data[a:z])
            except ValueError:
                body.refuse(toks[k], "a real number (decimal digits with an optional sign, "
                                     "point and exponent, or nan/inf)")
        raise
    for k in np.flatnonzero(np.isinf(v)).tolist():   # (a finite number past float64)
        if data[st[k]:en[k]].lower().lstrip(b"+-") not in (b"inf", b"infinity"):
            body.refuse(toks[k], "a real number within float64's range")
    return v


def read(data, name):
    """The CSR matrix of Matrix Market text ``data`` (the banner first)."""
    layout, field, symmetry = banner(data, name)
    rows, cols, entries, pos, lineno = size_line(data, name, layout, field, symmetry)
    nval = {"pattern": 0, "complex": 2}.get(field, 1)
    coordinate = layout == "coordinate"
    body = Body(data, pos, lineno, nval + (2 if coordinate else 0), entries, name)
    first = 2 if coordinate else 0
    if field == "integer":
        vals = integers(body, first)
    elif field in ("real", "complex"):
        vals = reals(body, first)
        if field == "complex":
            vals = vals + 1j * reals(body, first + 1)
    else:
        vals = None
    if coordinate:
        i = indices(body, 0, rows, "row")
        j = indices(body, 1, cols, "column")
        _check_triangle(body, i, j, vals, symmetry)
    else:
        i, j = _array_positions(rows, cols, symmetry)
        keep = np.flatnonzero(vals)            # (a dense array's zeros are not entries)
        i, j, vals = i[keep], j[keep], vals[keep]
    return _assemble(i, j, vals, rows, cols, symmetry)


def _check_triangle(body, i, j, vals, symmetry):
    """The symmetric kinds store the lower triangle only: refuse the first entry above the
    diagonal (or on it, for skew-symmetric; with an imaginary part, for hermitian)."""
    if symmetry == "general":
        return
    wrong = np.flatnonzero(i <= j if symmetry == "skew-symmetric" else i < j)
    if wrong.size:
        k = int(wrong[0])
        where = "on" if i[k] == j[k] else "above"
        raise bad(body.name, f"line {body.entry_line(k)}: entry ({i[k] + 1}, {j[k] + 1}) is "
                             f"{where} the diagonal, but a {symmetry} Matrix Market file stores "
                             f"only the entries below the diagonal"
                             f"{'' if symmetry == 'skew-symmetric' else ' and on it'} "
                             f"(row >{'' if symmetry == 'skew-symmetric' else '='} column)")
    if symmetry == "hermitian":
        wrong = np.flatnonzero((i == j) & (vals.imag != 0))
        if wrong.size:
            k = int(wrong[0])
            raise bad(body.name, f"line {body.entry_line(k)}: diagonal entry ({i[k] + 1}, "
                                 f"{j[k] + 1}) of a hermitian matrix has an imaginary part")


def _array_positions(rows, cols, symmetry):
    """(row, column) of each value of an ``array`` file, in the file's column-major order."""
    if symmetry == "general":
        j, i = np.divmod(np.arange(rows * cols, dtype=np.int64), rows) if rows else \
            (np.zeros(0, np.int64), np.zeros(0, np.int64))
        return i, j
    j, i = np.triu_indices(rows, k=1 if symmetry == "skew-symmetric" else 0)
    return i.astype(np.int64), j.astype(np.int64)


def _assemble(i, j, vals, rows, cols, symmetry):
    """CSR of the entries; the symmetric kinds mirrored; duplicates summed."""
    if symmetry != "general":
        off = np.flatnonzero(i != j)
        i, j = np.concatenate([i, j[off]]), np.concatenate([j, i[off]])
        if vals is not None:
            mirror = {"symmetric": vals[off], "skew-symmetric": -vals[off],
                      "hermitian": np.conj(vals[off])}[symmetry]
            vals = np.concatenate([vals, mirror])
    data = np.ones(i.size, np.int8) if vals is None else vals
    A = sp.csr_matrix((data, (i, j)), shape=(rows, cols))
    A.sum_duplicates()
    if vals is None:
        A.data[:] = 1
    return A
