"""Command line: ``pyclmatch devices | match``."""
import argparse
import json
import sys

from .errors import PyclmatchError
from .bench.cli import add_bench_commands


def _fmt_mem(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0


def cmd_devices(args):
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
    from . import maximum_matching, read_graph
    from .engine.graphs import as_bipartite
    graph = as_bipartite(read_graph(args.file))
    res = maximum_matching(graph, algorithm=args.algorithm, init=args.init, device=args.device,
                           verify=not args.no_verify, progress=args.progress or None)
    info = dict(res.summary(), file=args.file, edges=graph.nnz)
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    print(f"file:                 {args.file}")
    print(f"rows x cols, edges:   {info['rows']} x {info['cols']}, {info['edges']}")
    print(f"algorithm, init:      {res.algorithm}, {res.init}")
    print(f"device:               {res.device}")
    print(f"initial cardinality:  {res.initial_cardinality}")
    print(f"cardinality:          {res.cardinality}")
    print(f"verified:             {'yes (König cover of size %d)' % res.certificate.size if res.verified else 'no'}")
    print(f"phases, BFS levels:   {res.counters.get('phases', 0)}, "
          f"{res.counters.get('bfs_levels', 0)}")
    print("timings (s):")
    for k, v in sorted(res.timings.items()):
        print(f"  {k:<22}{v:.6f}")
    return 0


def build_parser():
    p = argparse.ArgumentParser(prog="pyclmatch", description=__doc__)
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
    from .bipartite import INITS
    m = sub.add_parser("match", help="maximum bipartite matching of a matrix file")
    m.add_argument("file", help="Matrix Market (.mtx, .mtx.gz), METIS .graph or edge list")
    m.add_argument("--algorithm", default="auto")
    m.add_argument("--init", default="karp-sipser", choices=INITS)
    m.add_argument("--device", default=None,
                   help="auto, gpu, cpu, P:D or a name substring (default $PYCLMATCH_DEVICE)")
    m.add_argument("--json", action="store_true")
    m.add_argument("--no-verify", action="store_true")
    m.add_argument("--progress", action="store_true")
    m.set_defaults(func=cmd_match)
    add_bench_commands(sub)
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (PyclmatchError, FileNotFoundError) as exc:
        print(f"pyclmatch: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
