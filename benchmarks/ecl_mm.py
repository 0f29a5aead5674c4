"""ECL-MM (Akathoott and Burtscher, IPDPS 2025), the CUDA maximum-matching code the issues
compare with, run side by side with pyclmatch on the same graph.

ECL-MM is not on PyPI: build it on the GPU host from its public repository
(github.com/burtscher/ECL-MM) with ``benchmarks/build_ecl_mm.sh SRC_DIR BINARY``, then pass
the binary to a benchmark (``bench_bipartite.py --ecl-mm BINARY``). Its input is the ECL
binary CSR of the bipartite graph as one graph of ``n_rows + n_cols`` vertices (rows first,
each edge stored in both directions; square matrices only, as its ``main`` requires), which
:func:`write_egr` writes from a scipy matrix. Its ``totalRunTime`` (initial matching plus
augmentation, transfers excluded) compares with pyclmatch's ``device_seconds``.

    >>> import numpy as np, scipy.sparse as sp, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.egr")
    >>> write_egr(sp.identity(3, format="csr"), path)
    >>> np.fromfile(path, np.int32).tolist()
    [6, 6, 0, 1, 2, 3, 4, 5, 6, 3, 4, 5, 0, 1, 2]
"""
import os
import re
import statistics
import subprocess
import tempfile

import numpy as np
import scipy.sparse as sp


def write_egr(A, path):
    """The ECL graph file of biadjacency matrix ``A`` (square): int32 node and edge counts,
    row pointers and adjacency of the symmetric graph [[0, A], [A^T, 0]], sorted."""
    A = sp.csr_matrix(A)
    B = sp.bmat([[None, A], [A.T, None]], format="csr")
    B.sort_indices()
    with open(path, "wb") as f:
        np.array([B.shape[0], B.nnz], np.int32).tofile(f)
        B.indptr.astype(np.int32).tofile(f)
        B.indices.astype(np.int32).tofile(f)


def _field(out, name, cast=float):
    m = re.search(rf"^{name}: ([0-9.eE+-]+)", out, re.M)
    if m is None:
        raise RuntimeError(f"ECL-MM printed no {name}:\n{out[-2000:]}")
    return cast(m.group(1))


def run(binary, A, repeat=3, timeout=300.0):
    """ECL-MM on matrix ``A``, ``repeat`` processes; returns ``{"seconds": median
    totalRunTime, "all": [...], "init_s": median initRuntime, "cardinality": ...}``, or
    None for a rectangular ``A`` (ECL-MM takes square ones only)."""
    if A.shape[0] != A.shape[1]:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.egr")
        write_egr(A, path)
        total, init, card = [], [], None
        for _ in range(repeat):
            out = subprocess.run([binary, path], capture_output=True, text=True,
                                 timeout=timeout, check=True).stdout
            total.append(_field(out, "totalRunTime"))
            init.append(_field(out, "initRuntime"))
            card = _field(out, "sizeof_finalMatching", int)
    return {"seconds": statistics.median(total), "all": total,
            "init_s": statistics.median(init), "cardinality": card}
