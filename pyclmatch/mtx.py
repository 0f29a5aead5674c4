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

The parse is vectorised: a check of the bytes (classes by ``bytes.translate``), token
boundaries, a line break exactly after every entry's last token, the bytes other than digits
placed in each token's grammar, and integers converted eight digits at a time (SWAR on uint64
words). Plain real values are computed exactly from their digits and exponent (see
``_decimals``); the rest (nan, inf, over 19 digits, a rounding too close to call) go through
Python's ``float`` after the checks. Every error names the file and the line. An entry section
of ``PARALLEL_BYTES`` or more without comment lines is parsed in parts split at line breaks,
one a thread (numpy releases the GIL); where any part fails, the whole section is parsed again
in one pass, which reports the first error.
"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

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
#: entry sections of this many bytes or more are parsed in parts, one a thread (at most
#: ``_PARTS``), where the host has more than one core
PARALLEL_BYTES = 8 << 20
_PARTS = 8

#: the class of each byte on an entry line: 0 a digit, 1 a blank (space, tab, line feed,
#: carriage return), 2 any other printable ASCII character but ``_`` (which Python's float
#: takes), 3 a byte no entry line may hold
_CLASS = bytes(0 if 48 <= c <= 57 else 1 if c in b" \t\n\r" else 2 if 32 < c < 127 and c != 95
               else 3 for c in range(256))
#: the low four bits (a digit's value) of the last ``k`` bytes of a little-endian word
_KEEP = np.array([0] + [~0 << (8 * (8 - k)) & 0x0F0F0F0F0F0F0F0F for k in range(1, 9)],
                 np.uint64)
_POW8 = [np.uint64(10 ** (8 * k)) for k in range(3)] + [np.uint64(0)]
_SLOT = np.full(256, 4, np.int64)                   # (see _decimals)
_SLOT[[43, 45, 46, 69, 101]] = [0, 0, 1, 2, 2]
_POW10 = np.array([10 ** k for k in range(20)], np.uint64)
#: real values are computed exactly (``m * 10**q``, one rounding, then a check that the
#: rounding to float64 cannot have erred) in numpy's long double where it is x87's 80-bit
#: format (x86: 64-bit significands, the first 8 bytes of 16); elsewhere in float64, for
#: mantissas up to 2**53
_WIDE = np.longdouble if (np.finfo(np.longdouble).nmant == 63 and sys.byteorder == "little"
                          and np.dtype(np.longdouble).itemsize == 16) else np.float64
_EXACT = min(2 ** (np.finfo(_WIDE).nmant + 1), 2 ** 64 - 1)       # mantissas held exactly


def _tens():
    """The powers of ten that ``_WIDE`` holds exactly (``10**k`` with ``5**k`` below
    ``_EXACT``), each built by one exact multiplication.

    Examples
    --------
    >>> int(_tens()[3])
    1000
    """
    out = [_WIDE(1)]
    while 5 ** len(out) < _EXACT:
        out.append(out[-1] * _WIDE(10))
    return np.array(out, _WIDE)


_TENS = _tens()


def _swar(w, k):
    """Eight bytes at a time (``w``, little-endian words ending at a run of digits' last byte;
    ``k`` of them belong to the run): the decimal value of the last ``k`` bytes (the bytes
    before them count as leading zeros). Each step multiplies by ``10**d << s | 1`` and
    shifts right by ``s``: every lane of ``2 s`` bits gets its first half times ``10**d`` plus
    its second (digit pairs, then fours, then all eight).

    Examples
    --------
    >>> w = np.frombuffer(b" 1234567", "<u8")
    >>> int(_swar(w.copy(), np.array([7]))[0])
    1234567
    """
    w &= _KEEP[k]                            # (a digit's byte less 0x30: its low bits)
    for mul, shift, mask in ((10 << 8 | 1, 8, 0x00FF00FF00FF00FF),
                             (100 << 16 | 1, 16, 0x0000FFFF0000FFFF),
                             (10000 << 32 | 1, 32, None)):
        w *= np.uint64(mul)
        w >>= np.uint64(shift)
        if mask is not None:
            w &= np.uint64(mask)
    return w


def bad(name, msg):
    """The InputError of a bad file (``argument="path"``)."""
    return InputError(f"{name}: {msg}", argument="path")


def banner(data, name):
    """``(layout, field, symmetry)`` of the banner line, checked against the specification."""
    line = data[:data.find(b"\n") % (len(data) + 1)].rstrip(b"\r")
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
    hold (a matrix may list a position twice: duplicates are summed), the read's arrays
    within the host's budget), ``pos`` the offset after the size line and ``line`` its 1-based
    line number."""
    pos, end, lineno = 0, len(data), 0
    while pos < end:                        # skip the banner, comments and blank lines
        nl = data.find(b"\n", pos)
        nl = end if nl < 0 else nl
        line = data[pos:nl].strip()
        pos, lineno = min(nl + 1, end), lineno + 1     # (no newline after the last line)
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
    entry ``ncol`` tokens on one line (checked), and the class of every byte (``cls``, see
    ``_CLASS``). Comment lines are blanked first (kept as empty lines, so line numbers stay
    true). A ``part`` ``(end, classes)`` is the lines up to offset ``end`` of a body without
    comment lines whose byte classes ``classes`` were checked; ``entries`` None takes as many
    entries as the lines hold.

    Examples
    --------
    >>> body = Body(b"2 2 2\\n1 1 -1.5\\n2 1 3\\n", 6, 2, 3, 2, "x.mtx")
    >>> body.starts.tolist(), body.ends.tolist()
    ([0, 2, 4, 9, 11, 13], [1, 3, 8, 10, 12, 14])
    """

    def __init__(self, data, pos, lineno, ncol, entries, name, part=None):
        if part is None and data.find(b"%", pos) >= 0:
            data, pos = b"\n".join(b"" if ln.lstrip().startswith(b"%") else ln
                                   for ln in data[pos:].split(b"\n")), 0
        if pos < 8:                             # (8 bytes before the body: see _words)
            data, pos = b"0" * 8 + data[pos:], 8
        self.name, self.first, self.src, self.off, self.ncol = name, lineno + 1, data, pos, ncol
        end = len(data) if part is None else part[0]
        self.b = np.frombuffer(data, np.uint8, end - pos, offset=pos)
        self._nl = self._w = self._sp = None
        if part is None:
            self.cls = self._classes()
        else:                                   # (a part of a body whose bytes were checked)
            self._odd = part[1].find(b"\x02", pos, end) >= 0
            self.cls = np.frombuffer(part[1], np.uint8, end - pos, offset=pos)
        simple = self._simple_tokens(entries)
        self.starts, self.ends = self._tokens() if simple is None else simple
        if entries is None:                     # (a part: the entries it holds)
            entries = self.starts.size // ncol
        long = np.flatnonzero(np.subtract(self.ends, self.starts) > _LONGEST)
        if long.size:
            raise bad(name, f"line {self.line_at(self.starts[long[0]])}: a token of "
                            f"{self.ends[long[0]] - self.starts[long[0]]:,} characters")
        if simple is None and not self._regular(entries):
            self._explain(entries)

    def _classes(self):
        """The class of every byte, after refusing the bytes no entry line may hold (and a
        carriage return without a line feed after it)."""
        src, off, b = self.src, self.off, self.b
        cls = src.translate(_CLASS)
        at = [cls.find(b"\x03", off) - off] if cls.find(b"\x03", off) >= 0 else []
        if src.find(b"\r", off) >= 0 and src.count(b"\r", off) != src.count(b"\r\n", off):
            cr = np.flatnonzero(b == 13)
            at += cr[b[np.minimum(cr + 1, b.size - 1)] != 10][:1].tolist()
        if at:
            at = min(at)
            raise bad(self.name, f"line {self.line_at(at)}: unexpected byte "
                                 f"{src[off + at:off + at + 1]!r} on an entry line (entries "
                                 f"are numbers separated by spaces or tabs)")
        self._odd = cls.find(b"\x02", off) >= 0   # (any byte but digits and blanks)
        return np.frombuffer(cls, np.uint8, offset=off)

    def _simple_tokens(self, entries):
        """``(starts, ends)`` of the tokens when every gap is one byte (a space or tab within
        an entry, a line feed after it; the last may be missing), which makes the body
        regular; else None (the general scan decides). ``entries`` None: as many as the
        tokens make. The offsets of the bytes other than digits and blanks come from the
        same scan, each with its token (a token's number is the count of gaps before it)."""
        ncol, n, cls = self.ncol, self.b.size, self.cls
        for _ in range(4):                     # (a final line feed, a few trailing blanks)
            n -= n > 0 and self.b[n - 1] in (9, 10, 32)
        if not n or entries == 0 or cls[0] == 1 or self.b[n - 1] in (9, 10, 32):
            return None
        if self._odd:                          # (digits, blanks and other bytes)
            nz = np.flatnonzero(cls[:n] != 0)
            blank = cls[nz] == 1
            gap = np.flatnonzero(blank)
            seps = nz[gap]
        else:                                  # (digits and blanks only)
            seps = np.flatnonzero(cls[:n] == 1)
        entries = (seps.size + 1) // ncol if entries is None else entries
        if seps.size != entries * ncol - 1:
            return None
        starts, ends = np.empty(seps.size + 1, np.intp), np.empty(seps.size + 1, np.intp)
        starts[0], ends[-1] = 0, n
        np.add(seps, 1, out=starts[1:])
        ends[:-1] = seps
        if seps.size and (np.subtract(ends[1:], starts[1:]).min() < 1 or ends[0] < 1):
            return None                        # (two blanks in a row)
        gaps = self.b[seps]
        if not ((gaps[ncol - 1::ncol] == 10).all()
                and np.count_nonzero(gaps == 10) == entries - 1):
            return None
        if self._odd:                          # (a special's token: the gaps before it)
            other = np.flatnonzero(~blank)
            other_tok = other - np.arange(other.size)
            self._sp = (nz[other], other_tok)
        return starts, ends

    def _tokens(self):
        """``(starts, ends)`` of the tokens: the runs of bytes that are not blanks."""
        tok = np.zeros(self.b.size + 2, np.int8)
        np.not_equal(self.cls, 1, out=tok[1:-1].view(bool))
        edges = np.flatnonzero(tok[1:] != tok[:-1])
        return edges[0::2], edges[1::2]

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
        ``x - 8 .. x - 1`` of the body; at least 8 bytes precede the body)."""
        if self._w is None:
            self._w = np.ndarray((self.b.size + 1,), "<u8", self.src, self.off - 8, (1,))
        return self._w

    def specials(self):
        """``(at, entry, col)``: the offsets of the bytes other than digits and blanks, and
        the entry and the column of the token each lies in."""
        if self._sp is None:
            at = np.flatnonzero(self.cls >= 2) if self._odd else np.zeros(0, np.intp)
            self._sp = (at, np.searchsorted(self.starts, at, "right") - 1)
        if len(self._sp) == 2:
            at, tok = self._sp
            k = tok // self.ncol
            self._sp = (at, k, tok - k * self.ncol)
        return self._sp

    def column(self, j):
        """``(at, k)``: the offsets of the bytes other than digits and blanks in the tokens
        of column ``j``, and the entry of each (in order)."""
        at, k, col = self.specials()
        pick = col == j
        if pick.all():
            return at, k
        pick = np.flatnonzero(pick)
        return at[pick], k[pick]

    def clean(self, j, signed=False):
        """Per entry: whether its token ``j`` holds digits only (after one leading ``+`` or
        ``-`` if ``signed``; the digits may be none)."""
        at, k = self.column(j)
        ok = np.ones(self.starts.size // self.ncol, bool)
        if signed and at.size:
            c = self.b[at]
            k = k[~(((c == 43) | (c == 45)) & (at == self.starts[j::self.ncol][k]))]
        ok[k] = False
        return ok

    def digits(self, s, e, big=False):
        """The values (int64) of the runs of digits ``[s, e)`` (body offsets; the runs hold
        nothing but digits), exact below ``10**19``; with ``big``, also whether each value
        may be past that (over 24 digits, or at least ``10**19``)."""
        n = e - s
        words = self._words()
        v = _swar(words[e], np.clip(n, 0, 8))
        over = n > 24 if big else None
        for chunk in range(1, min(3, -(-int(n.max(initial=0)) // 8))):   # (8 digits at a
            live = np.flatnonzero(n > 8 * chunk)                          # time, from the right)
            if 2 * live.size > s.size:
                live = slice(None)
            d = _swar(words[np.maximum(e[live] - 8 * chunk, 0)],
                      np.clip(n[live] - 8 * chunk, 0, 8))
            if chunk == 2 and big:
                over[live] |= d >= 1000
            d *= _POW8[chunk]
            v[live] += d
        return (v.view(np.int64), over) if big else v.view(np.int64)

    def token(self, t):
        """The bytes of token ``t``."""
        return self.src[self.off + self.starts[t]:self.off + self.ends[t]]

    def text(self, t):
        return self.token(t).decode("ascii", "replace")

    def refuse(self, t, what):
        """InputError for token ``t``: its line, its text, what it should be."""
        raise bad(self.name, f"line {self.entry_line(t // self.ncol)}: {self.text(t)!r} is not "
                             f"{what}")


def indices(body, j, high, what):
    """Column ``j``: 1-based indices in ``1..high``, returned 0-based (int32, which the CSR
    takes without a copy)."""
    ok = body.clean(j)
    if not ok.all():
        body.refuse(int(np.argmin(ok)) * body.ncol + j, f"a {what} index (a positive integer)")
    s, e = body.starts[j::body.ncol], body.ends[j::body.ncol]
    v = body.digits(s, e)
    if s.size and (e - s).max() > 10:
        v[e - s > 10] = high + 1             # (past 10 digits: out of bounds)
    v -= 1
    out = np.flatnonzero(v.view(np.uint64) >= high)   # (0 and past high wrap to big)
    if out.size:
        raise bad(body.name, f"line {body.entry_line(out[0])}: {what} index "
                             f"{body.text(out[0] * body.ncol + j)} is out of bounds "
                             f"1..{high:,}")
    return v.astype(np.int32)

def integers(body, j):
    """Column ``j``: signed decimal integers within int64."""
    s, e = body.starts[j::body.ncol], body.ends[j::body.ncol]
    first = body.b[s]
    signed = (first == 43) | (first == 45)
    s = s + signed
    ok = body.clean(j, signed=True) & (e > s)
    if not ok.all():
        body.refuse(int(np.argmin(ok)) * body.ncol + j,
                    "an integer (this is an integer Matrix Market file)")
    v = body.digits(s, e)
    np.negative(v, out=v, where=first == 45)
    for k in np.flatnonzero(e - s > 18).tolist():   # (past 18 digits: Python's integers)
        x = int(body.text(k * body.ncol + j))
        if not -2**63 <= x < 2**63:
            body.refuse(k * body.ncol + j, "an integer within int64")
        v[k] = x
    return v


def _decimals(body, j):
    """Column ``j`` read as plain decimals ``[+-]digits[.digits][(e|E)[+-]digits]``:
    ``(v, odd)``, float64 values equal to Python's float of the text where ``odd`` is False;
    ``odd`` marks the tokens of any other form (nan, inf, malformed ones) and those past the
    exact computation (digits worth ``10**19`` or more, an exponent of over 4 digits or past
    ``_TENS``, a rounding too close to call), for Python's float to read.

    Each value is ``m * 10**q`` (``m`` the digits as an integer) computed in ``_WIDE``: one
    correctly rounded operation on exact operands, then the rounding to float64, which is
    correct unless the wide result lies exactly halfway between two float64 numbers.
    """
    s, e, b = body.starts[j::body.ncol], body.ends[j::body.ncol], body.b
    n, (at, k) = s.size, body.column(j)
    slot = _SLOT[b[at]]                      # (0 a sign, 1 a point, 2 e/E, 4 anything else)
    odd = np.zeros(n, bool)
    sign = np.flatnonzero(slot == 0)         # (a sign leads the token or follows e/E)
    sign = sign[(at[sign] != s[k[sign]]) & (_SLOT[b[at[sign] - 1]] != 2)]
    odd[k[sign]] = True
    other = slot == 4
    if other.any():
        odd[k[other]] = True
    hasp, ppos = _one_each(at, k, slot == 1, odd)
    hase, epos = _one_each(at, k, slot == 2, odd)
    neg = b[s] == 45
    m0 = s + (neg | (b[s] == 43))
    mend = np.where(hase, epos, e)
    dot = np.where(hasp, ppos, mend)
    flen = mend - dot - hasp
    odd |= (mend - m0 - hasp < 1) | (hasp & hase & (ppos > epos))
    (m, mbig), (f, fbig) = body.digits(m0, dot, big=True), body.digits(dot + hasp, mend, big=True)
    m, f, flen = m.view(np.uint64), f.view(np.uint64), np.clip(flen, 0, 24)
    odd |= mbig | fbig | (m >= _POW10[19 - np.minimum(flen, 19)])   # (m * 10**flen + f
    m *= _POW10[np.minimum(flen, 19)]                                 # below 10**19)
    m += f
    q = -flen
    some = np.flatnonzero(hase)
    if some.size:
        x0, es = epos[some] + 1, e[some]
        c = b[np.minimum(x0, b.size - 1)]
        esign = (c == 43) | (c == 45)
        x0 += esign
        odd[some[(es - x0 < 1) | (es - x0 > 4)]] = True
        x = body.digits(x0, es)
        np.negative(x, out=x, where=c == 45)
        q[some] += x
    odd |= ((np.abs(q) >= _TENS.size) & (m != 0)) | (m > _EXACT)
    return _scaled(m, q, odd, neg), odd


def _one_each(at, k, pick, odd):
    """``(has, pos)`` per entry: whether its token holds a picked byte (``at``, ``k`` the
    offsets and entries of a column's other bytes) and the offset of the last; ``odd`` set
    where it holds more than one."""
    pick = np.flatnonzero(pick)
    kk = k[pick]
    has, pos = np.zeros(odd.size, bool), np.zeros(odd.size, np.intp)
    has[kk] = True
    pos[kk] = at[pick]
    dup = np.flatnonzero(kk[1:] == kk[:-1])
    odd[kk[dup]] = True
    return has, pos


def _scaled(m, q, odd, neg):
    """``m * 10**q`` as float64 (negated where ``neg``), ``odd`` set where the rounding may
    have erred (a wide result exactly halfway between two float64 numbers: the last 11 of
    its 64 bits ``10000000000``)."""
    q = np.clip(q, 1 - _TENS.size, _TENS.size - 1)
    w, p = m.astype(_WIDE), _TENS[np.abs(q)]
    np.multiply(w, p, out=w, where=q >= 0)
    np.divide(w, p, out=w, where=q < 0)
    if _WIDE is not np.float64:
        odd |= (w.view(np.uint64)[::2] & np.uint64(0x7FF)) == 0x400
    v = w.astype(np.float64)
    np.negative(v, out=v, where=neg)
    return v


def reals(body, j):
    """Column ``j``: decimal floating-point numbers (and nan/inf) as float64: the plain ones
    computed by ``_decimals``, the rest read by Python's ``float`` (which the byte classes
    leave exactly the grammar of the module's docstring: no underscores, blanks, non-ASCII
    digits or hexadecimal)."""
    v, odd = _decimals(body, j)
    ks = np.flatnonzero(odd).tolist()
    toks = [k * body.ncol + j for k in ks]
    texts = [body.token(t) for t in toks]
    for k, t, text in zip(ks, toks, texts):
        try:
            v[k] = float(text)
        except ValueError:
            body.refuse(t, "a real number (decimal digits with an optional sign, point and "
                           "exponent, or nan/inf)")
    for k, t, text in zip(ks, toks, texts):   # (a finite number past float64)
        if np.isinf(v[k]) and text.lower().lstrip(b"+-") not in (b"inf", b"infinity"):
            body.refuse(t, "a real number within float64's range")
    return v


def read(data, name):
    """The CSR matrix of Matrix Market text ``data`` (the banner first)."""
    layout, field, symmetry = banner(data, name)
    rows, cols, entries, pos, lineno = size_line(data, name, layout, field, symmetry)
    nval = {"pattern": 0, "complex": 2}.get(field, 1)
    kind = (layout == "coordinate", field, symmetry, rows, cols)
    ncol = nval + (2 if kind[0] else 0)
    got = _in_parts(data, pos, ncol, entries, kind, name)
    i, j, vals = _entries(Body(data, pos, lineno, ncol, entries, name), kind) if got is None \
        else got
    if not kind[0]:
        i, j = _array_positions(rows, cols, symmetry)
        keep = np.flatnonzero(vals)            # (a dense array's zeros are not entries)
        i, j, vals = i[keep], j[keep], vals[keep]
    return _assemble(i, j, vals, rows, cols, symmetry)


def _entries(body, kind):
    """``(i, j, vals)`` of the entry lines of ``body`` (``i``, ``j`` None for an ``array``
    file, ``vals`` None for a ``pattern`` one), checked. ``kind``: ``(coordinate, field,
    symmetry, rows, cols)``."""
    coordinate, field, symmetry, rows, cols = kind
    first = 2 if coordinate else 0
    if field == "integer":
        vals = integers(body, first)
    elif field in ("real", "complex"):
        vals = reals(body, first)
        if field == "complex":
            vals = vals + 1j * reals(body, first + 1)
    else:
        vals = None
    if not coordinate:
        return None, None, vals
    i = indices(body, 0, rows, "row")
    j = indices(body, 1, cols, "column")
    _check_triangle(body, i, j, vals, symmetry)
    return i, j, vals


def _in_parts(data, pos, ncol, entries, kind, name):
    """``_entries`` of a large body without comment lines, parsed in parts (split at line
    breaks, one a thread; numpy releases the GIL): their results joined, or None where the
    body is small, holds a comment or its parts fail any check (the one pass over the whole
    body then reports the first error)."""
    size, workers = len(data) - pos, min(os.cpu_count() or 1, _PARTS)
    if size < PARALLEL_BYTES or workers < 2 or pos < 8 or data.find(b"%", pos) >= 0:
        return None
    cls = data.translate(_CLASS)
    if cls.find(b"\x03", pos) >= 0 or (data.find(b"\r", pos) >= 0 and
                                        data.count(b"\r", pos) != data.count(b"\r\n", pos)):
        return None
    cuts = [pos] + [data.find(b"\n", pos + size * k // workers) + 1
                    for k in range(1, workers)] + [len(data)]
    if any(a >= b for a, b in zip(cuts, cuts[1:])):
        return None
    try:
        with ThreadPoolExecutor(workers) as pool:
            got = list(pool.map(lambda a, b: _entries(Body(data, a, 0, ncol, None, name,
                                                           (b, cls)), kind),
                                cuts[:-1], cuts[1:]))
    except InputError:
        return None
    if sum((k[2] if k[0] is None else k[0]).size for k in got) != entries:
        return None
    return tuple(None if got[0][c] is None else np.concatenate([k[c] for k in got])
                 for c in range(3))


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
    return entries_csr(i, j, vals, (rows, cols))


def entries_csr(i, j, vals, shape):
    """CSR of the entries ``(i[k], j[k], vals[k])`` (``vals`` None: a pattern); a position
    listed twice is one entry: a pattern's 1, else the sum of the values (the rule of every
    file format read).

    Examples
    --------
    >>> import numpy as np
    >>> entries_csr(np.array([0, 0]), np.array([1, 1]), np.array([2.0, 3.0]), (2, 2)).toarray()
    array([[0., 5.],
           [0., 0.]])
    """
    data = np.ones(i.size, np.int8) if vals is None else vals
    A = sp.csr_matrix((data, (i, j)), shape=shape)
    A.sum_duplicates()
    if vals is None:
        A.data[:] = 1
    return A
