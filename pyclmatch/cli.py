"""Command line: ``pyclmatch devices | match | dmperm | communities | assign | bench``."""
import argparse
import json
import sys

from .bench.cli import add_bench_commands
from .errors import PyclmatchError

# each command imports what it needs (pyopencl, scipy and the families load only for the
# command that uses them: ``pyclmatch devices`` imports no family)


def _fmt_mem(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0


def cmd_devices(args):
    """``pyclmatch devices``: the OpenCL devices, their limits, or the ICD fix."""
    from .engine.devices import describe_devices, diagnose_icd, fix_icd
    if args.fix is not None:
        folder, export = fix_icd(args.fix or None)
        print(f"wrote {folder}; make it active with:\n  {export}")
        return 0
    rows = describe_devices()
    if args.limits:
        return _print_limits(rows)
    diag = diagnose_icd()
    usable = [r for r in rows if r["usable"]]
    rc = 0 if usable or not args.check else 1
    if args.json:
        print(json.dumps({"devices": rows, "diagnosis": diag}, indent=2, default=str))
        return rc
    cols = [("index", "idx"), ("platform", "platform"), ("device", "device"), ("type", "type"),
            ("compute_units", "CUs"), ("global_mem", "global mem"), ("local_mem", "local mem"),
            ("max_alloc", "max alloc"), ("opencl", "OpenCL"), ("driver", "driver")]
    table = [[h for _, h in cols]]
    for r in rows:
        table.append([_fmt_mem(r[k]) if k in ("global_mem", "local_mem", "max_alloc")
                      else str(r[k]) for k, _ in cols])
    widths = [max(len(row[i]) for row in table) for i in range(len(cols))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    if not rows:
        print("no OpenCL device found")
    for r in rows:
        if not r["usable"]:
            print(f"\nunusable: {r['index']} {r['device']}: {r['problem']}")
    if rows and not usable:
        print("\nno usable OpenCL device")
    if diag.get("problem"):
        print(f"\nproblem: {diag['problem']}\nfix:     {diag['fix']}")
    elif not any(r["type"] == "gpu" for r in rows):
        print("\nno GPU: no NVIDIA OpenCL driver (libnvidia-opencl.so.1) on this machine")
    return rc


def _print_limits(rows):
    """The largest graphs each family's declared-size check accepts on each usable device."""
    from .engine.devices import get_device
    from .engine.limits import limits_table
    for r in rows:
        if not r["usable"]:
            continue
        h = get_device(r["index"])
        print(f"{h.label}: global {_fmt_mem(h.global_mem)}, max alloc {_fmt_mem(h.max_alloc)}")
        print("  family             degree  vertices (per side)  stored entries")
        for fam, d, n, m in limits_table(h):
            print(f"  {fam:<18} {d:>6}  {n:>19,}  {m:>14,}")
    return 0


def cmd_match(args):
    """``pyclmatch match FILE``: the maximum matching of a matrix file, summarised."""
    from .bipartite.api import maximum_matching
    graph = _read_bipartite(args.file)
    res = maximum_matching(graph, algorithm=args.algorithm, init=args.init, device=args.device,
                           verify=not args.no_verify, progress=args.progress or None)
    info = dict(res.summary(), file=args.file, edges=graph.nnz)
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    _show([("file", args.file),
           ("rows x cols, edges", f"{info['rows']} x {info['cols']}, {info['edges']}"),
           ("algorithm, init", f"{res.algorithm}, {res.init}"), ("device", res.device),
           ("initial cardinality", res.initial_cardinality), ("cardinality", res.cardinality),
           ("verified", f"yes (König cover of size {res.certificate.size})" if res.verified
            else "no"),
           ("phases, BFS levels", f"{res.counters.get('phases', 0)}, "
                                  f"{res.counters.get('bfs_levels', 0)}")])
    print("timings (s):")
    for k, v in sorted(res.timings.items()):
        print(f"  {k:<22}{v:.6f}")
    return 0


def cmd_communities(args):
    """``pyclmatch communities FILE``: Leiden or Louvain communities of a graph file
    (symmetrized: the union of A and A.T), summarised; ``--membership OUT`` writes one
    community id per line."""
    import numpy as np
    from .community.api import leiden, louvain
    from .io import read_graph
    A = read_graph(args.file, symmetrize=True)
    kw = dict(resolution=args.resolution, seed=args.seed, deterministic=args.deterministic,
              device=args.device, verify=not args.no_verify, progress=args.progress or None)
    if args.method == "leiden":
        res = leiden(A, quality=args.quality, **kw)
    else:
        if args.quality != "modularity":
            raise PyclmatchError("--quality cpm needs --method leiden")
        res = louvain(A, **kw)
    if args.membership:
        np.savetxt(args.membership, res.membership, fmt="%d")
    info = dict(file=args.file, method=args.method, vertices=int(A.shape[0]),
                entries=int(A.nnz), communities=res.n_communities, modularity=res.modularity,
                disconnected=res.disconnected, levels=res.counters.get("levels"),
                device=res.device, total_s=res.timings.get("total"))
    if args.method == "leiden":
        info.update(quality=args.quality, quality_value=res.quality_value)
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    for key, value in info.items():
        print(f"{key + ':':<22}{value}")
    return 0


def cmd_dmperm(args):
    """``pyclmatch dmperm FILE``: the Dulmage-Mendelsohn decomposition of a matrix file."""
    from .bipartite.dmperm import dulmage_mendelsohn
    if args.plot:
        _check_plot_path(args.plot)
    graph = _read_bipartite(args.file)
    d = dulmage_mendelsohn(graph, algorithm=args.algorithm, device=args.device,
                           verify="host" if args.host_verify else not args.no_verify,
                           progress=args.progress or None)
    info = dict(d.summary(), file=args.file, edges=graph.nnz,
                rr=d.rr.tolist(), cc=d.cc.tolist())
    if args.plot:
        plot_dmperm(graph.csr, d, args.plot)
        info["plot"] = args.plot
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    sizes = info["coarse"]
    print(f"file:                 {args.file}")
    print(f"rows x cols, entries: {info['rows']} x {info['cols']}, {info['edges']}")
    print(f"device, matching:     {d.device}, {d.algorithm}")
    print(f"structural rank:      {d.structural_rank}")
    for part in ("horizontal", "square", "vertical"):
        print(f"{part + ' part:':<22}{sizes[part][0]} x {sizes[part][1]}")
    print(f"fine blocks:          {info['blocks']} ({info['square_blocks']} in the square "
          f"part, largest {info['largest_square_block']})")
    print(f"verified:             {'yes' if d.verified else 'no'}")
    print(f"total time (s):       {d.timings['total']:.6f}")
    if args.plot:
        print(f"plot:                 {args.plot}")
    return 0


def cmd_assign(args):
    """``pyclmatch assign FILE``: the optimal assignment of a matrix file (its stored entries
    and their values), or with ``--product`` its maximum-product transversal."""
    from .io import read_graph
    A = read_graph(args.file)
    info = {"file": args.file, "rows": A.shape[0], "cols": A.shape[1], "entries": A.nnz}
    if args.product:
        from .assignment.transversal import maximum_product_transversal
        res = maximum_product_transversal(A, device=args.device, verify=not args.no_verify)
        info.update(log_product=res.log_product, perm=res.perm.tolist())
    else:
        from .assignment.api import assignment
        res = assignment(A, maximize=args.maximize, full=not args.partial, device=args.device,
                         verify=not args.no_verify)
        info.update(objective=res.objective, cardinality=res.cardinality,
                    row_match=res.row_match.tolist())
    info.update(device=res.device, verified=res.verified, counters=res.counters,
                timings=res.timings)
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    answer = ([("log of the product", repr(res.log_product))] if args.product else
              [("weight" if args.maximize else "cost", repr(res.objective)),
               ("matched", res.cardinality)])
    _show([("file", args.file),
           ("rows x cols, entries", f"{info['rows']} x {info['cols']}, {info['entries']}"),
           ("device", res.device)] + answer +
          [("phases, rounds", f"{res.counters.get('phases', 0)}, "
                              f"{res.counters.get('rounds', 0)}"),
           ("verified", "yes (LP duality)" if res.verified else "no"),
           ("total time (s)", f"{res.timings['total']:.6f}")])
    return 0


def _show(rows):
    """Print ``(label, value)`` rows as ``label:`` in a column of 22, then the value."""
    for label, value in rows:
        print(f"{label + ':':<22}{value}")


def _add_assign_command(sub):
    a = sub.add_parser("assign", help="optimal assignment (weighted bipartite matching) of a "
                                      "matrix file, or its maximum-product transversal")
    a.add_argument("file", help="Matrix Market (.mtx, .mtx.gz), METIS .graph or edge list")
    a.add_argument("--maximize", action="store_true", help="maximise the matched values")
    a.add_argument("--partial", action="store_true",
                   help="the optimal matching of any size (default: the smaller side full)")
    a.add_argument("--product", action="store_true",
                   help="the maximum-product transversal with MC64-style scaling")
    a.add_argument("--device", default=None,
                   help="auto, gpu, cpu, P:D or a name substring (default $PYCLMATCH_DEVICE)")
    a.add_argument("--json", action="store_true")
    a.add_argument("--no-verify", action="store_true")
    a.set_defaults(func=cmd_assign)


def _check_plot_path(path):
    """Refuse, before any work, a ``--plot`` file that cannot be written: its folder missing or
    not a folder, the path a folder, or an extension matplotlib does not write."""
    import os
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise PyclmatchError(f"--plot {path} is a folder; give the image file to write")
    if not os.path.isdir(folder):
        raise PyclmatchError(f"--plot {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise PyclmatchError(f"--plot {path}: the folder {folder} is not writable")
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise PyclmatchError("--plot needs matplotlib (pip install matplotlib)") from None
    kinds = FigureCanvasBase.get_supported_filetypes()
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in kinds:
        raise PyclmatchError(f"--plot {path}: the file name must end in an image extension "
                             f"matplotlib writes ({', '.join('.' + k for k in sorted(kinds))})")


def _read_bipartite(path):
    """The matrix file ``path`` as a bipartite graph."""
    from .engine.graphs import as_bipartite
    from .io import read_graph
    return as_bipartite(read_graph(path))


def plot_dmperm(csr, d, path, max_points=2_000_000):
    """The pattern of ``A[p][:, q]`` with the fine blocks outlined (MATLAB's ``spy`` after
    ``dmperm``), written to ``path`` with matplotlib."""
    import numpy as np
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Rectangle
    except ImportError:
        raise PyclmatchError("--plot needs matplotlib (pip install matplotlib)") from None
    B = csr[d.p][:, d.q].tocoo()
    keep = slice(None) if B.nnz <= max_points else \
        np.random.default_rng(0).choice(B.nnz, max_points, replace=False)
    m, n = csr.shape
    fig, ax = plt.subplots(figsize=(7, 7 * max(m, 1) / max(n, 1) if n else 7))
    ax.scatter(B.col[keep], B.row[keep], s=max(0.05, min(4.0, 2e4 / max(B.nnz, 1))),
               marker="s", color="k", linewidths=0)
    for k in range(d.nblocks):
        r0, r1, c0, c1 = d.r[k], d.r[k + 1], d.s[k], d.s[k + 1]
        ax.add_patch(Rectangle((c0 - 0.5, r0 - 0.5), c1 - c0, r1 - r0, fill=False,
                               edgecolor="tab:red", linewidth=0.8))
    for k in (1, 2, 3):
        ax.axhline(d.rr[k] - 0.5, color="tab:blue", linewidth=0.5, linestyle=":")
        ax.axvline(d.cc[k] - 0.5, color="tab:blue", linewidth=0.5, linestyle=":")
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(m - 0.5, -0.5)
    ax.set_title(f"A[p][:, q]: structural rank {d.structural_rank}, {d.nblocks} blocks")
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)


class _Parser(argparse.ArgumentParser):
    """argparse's parser with its errors in the command line's one-line form (the subcommands'
    parsers are of this class too): ``pyclmatch: error: [COMMAND: ]MESSAGE (see ... --help)``
    on stderr, exit status 2; ``--help`` unchanged."""

    def error(self, message):
        command = self.prog[len("pyclmatch"):].strip()
        where = f"{command}: " if command else ""
        self.exit(2, f"pyclmatch: error: {where}{message} (see {self.prog} --help)\n")


def build_parser():
    """The ``pyclmatch`` argument parser: ``devices``, ``match``, ``dmperm``,
    ``communities``, ``bench``, ``report``; each subcommand sets ``func``, the function that
    runs it.

    Examples
    --------
    >>> from pyclmatch.cli import build_parser
    >>> args = build_parser().parse_args(["match", "A.mtx"])
    >>> args.file, args.algorithm, args.json
    ('A.mtx', 'auto', False)
    """
    p = _Parser(prog="pyclmatch", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("devices", help="list OpenCL devices and diagnose a missing GPU")
    d.add_argument("--json", action="store_true", help="machine-readable output")
    d.add_argument("--fix", nargs="?", const="", default=None, metavar="DIR",
                   help="write an OCL_ICD_VENDORS folder registering the NVIDIA driver "
                        "(default ~/.cache/pyclmatch/opencl-vendors)")
    d.add_argument("--check", action="store_true",
                   help="exit 1 unless at least one device can build kernels")
    d.add_argument("--limits", action="store_true",
                   help="the largest graphs (vertices, stored entries) each family accepts "
                        "on each device (the declared-size checks, pyclmatch.engine.limits)")
    d.set_defaults(func=cmd_devices)
    m = sub.add_parser("match", help="maximum bipartite matching of a matrix file")
    m.add_argument("file", help="Matrix Market (.mtx, .mtx.gz), METIS .graph or edge list")
    m.add_argument("--algorithm", default="auto")
    m.add_argument("--init", default="karp-sipser", help="karp-sipser, cheap or none")
    m.add_argument("--device", default=None,
                   help="auto, gpu, cpu, P:D or a name substring (default $PYCLMATCH_DEVICE)")
    m.add_argument("--json", action="store_true")
    m.add_argument("--no-verify", action="store_true")
    m.add_argument("--progress", action="store_true")
    m.set_defaults(func=cmd_match)
    dm = sub.add_parser("dmperm", help="Dulmage-Mendelsohn decomposition / block triangular "
                                       "form of a matrix file")
    dm.add_argument("file", help="Matrix Market (.mtx, .mtx.gz), METIS .graph or edge list")
    dm.add_argument("--algorithm", default="auto", help="maximum matching algorithm")
    dm.add_argument("--device", default=None,
                    help="auto, gpu, cpu, P:D or a name substring (default $PYCLMATCH_DEVICE)")
    dm.add_argument("--json", action="store_true")
    dm.add_argument("--plot", metavar="PNG", help="write the permuted pattern with the blocks "
                                                 "outlined (matplotlib)")
    dm.add_argument("--host-verify", action="store_true",
                    help="verify on the host (scipy), irreducibility of the blocks included")
    dm.add_argument("--no-verify", action="store_true")
    dm.add_argument("--progress", action="store_true")
    dm.set_defaults(func=cmd_dmperm)
    c = sub.add_parser("communities", help="Leiden or Louvain communities of a graph file")
    c.add_argument("file", help="Matrix Market (.mtx, .mtx.gz), METIS .graph or edge list "
                                "(symmetrized)")
    c.add_argument("--method", choices=("leiden", "louvain"), default="leiden")
    c.add_argument("--quality", choices=("modularity", "cpm"), default="modularity",
                   help="leiden's quality function")
    c.add_argument("--resolution", type=float, default=1.0)
    c.add_argument("--seed", type=int, default=None)
    c.add_argument("--deterministic", action="store_true")
    c.add_argument("--device", default=None,
                   help="auto, gpu, cpu, P:D or a name substring (default $PYCLMATCH_DEVICE)")
    c.add_argument("--membership", metavar="OUT", help="write one community id per line")
    c.add_argument("--json", action="store_true")
    c.add_argument("--no-verify", action="store_true")
    c.add_argument("--progress", action="store_true")
    c.set_defaults(func=cmd_communities)
    _add_assign_command(sub)
    add_bench_commands(sub)
    return p


def main(argv=None):
    """Run the ``pyclmatch`` command line with ``argv`` (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, 1 for a check that failed (unverified bench records, no usable
        device with ``devices --check``), 2 for an error (printed on stderr).

    Examples
    --------
    A missing file, a directory or a bad argument value is reported in one line on stderr
    (``pyclmatch: error: ...``) with exit status 2, argparse's convention:

    >>> from pyclmatch.cli import main
    >>> main(["match", "no-such-file.mtx"])
    2

    The device table depends on the machine:

    >>> main(["devices", "--json"])        # doctest: +SKIP
    0
    """
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except PyclmatchError as exc:     # (InputError: a bad file or argument)
        return _error(exc)
    except OSError as exc:            # a missing file, a directory, no permission, ...
        where = f": {exc.filename}" if exc.filename is not None else ""
        return _error(f"{exc.strerror or exc}{where}")


def _error(message):
    """Print ``message`` as the command line's error on stderr; the exit status 2."""
    print(f"pyclmatch: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
