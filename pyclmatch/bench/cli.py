"""The `bench` and `report` subcommands (added to ``pyclmatch`` by :func:`add_bench_commands`)."""
import argparse
import functools
import sys


def cli_integer(low, high=None):
    """An argparse ``type``: the option's text as an integer in ``[low, high]``, checked by
    :func:`pyclmatch.engine.args.integer` (argparse reports a refusal as ``error: argument
    --x: ...`` with exit status 2).

    Examples
    --------
    >>> cli_integer(1)("3")
    3
    """
    def convert(text):
        from ..engine import args
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        try:
            return args.integer("value", value, low=low, high=high)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).replace("value=", "", 1)) from None
    convert.__name__ = "integer"
    return convert


def _command(args):
    """The equivalent command line (also when called as ``cli.main(argv)``)."""
    parts = ["pyclmatch bench", f"--suite {args.suite}", f"--algorithms {args.algorithms}",
             f"--devices {args.devices}", f"--repeat {args.repeat}", f"--rcp {args.rcp}"]
    if args.graphs:
        parts.append(f"--graphs {args.graphs}")
    if args.baselines:
        parts.append("--baselines")
    if args.memory_limit is not None:
        parts.append(f"--memory-limit {args.memory_limit}")
    if args.out:
        parts.append(f"--out {args.out}")
    if args.plots:
        parts.append("--plots")
    if args.dask:
        parts.append(f"--dask {args.dask}")
    return " ".join(parts)


def _check_folder(option, path, must_exist=False, label=None):
    """Refuse, before any work, a folder option naming a file (or, with ``must_exist``, nothing):
    an InputError naming the option, which the command line prints as its one error line."""
    import os
    from ..errors import InputError
    label = label or option
    if path is None:
        return
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError(f"{label} {path} is a file; it must name a folder", argument=option)
    if must_exist and not os.path.exists(path):
        raise InputError(f"{label} {path}: No such file or directory (a 'pyclmatch bench "
                         f"--out' folder)", argument=option)


def cmd_bench(args):
    from .harness import run_bench      # (the command's imports: `pyclmatch` starts fast)
    from .report import render
    _check_folder("--out", args.out)
    rcp = {"no": False, "yes": True, "both": "both"}[args.rcp]
    if args.dask:
        try:    # Dask is optional
            from .distributed import run_bench_dask
        except ImportError as exc:
            print(f"pyclmatch: error: {exc}", file=sys.stderr)
            return 2
        bench = functools.partial(run_bench_dask, args.dask)
    else:
        bench = run_bench
    meta, records = bench(
        suite=args.suite, algorithms=args.algorithms, devices=args.devices,
        baselines=args.baselines, repeat=args.repeat, out=args.out, rcp=rcp,
        graphs=args.graphs.split(",") if args.graphs else None, progress=not args.no_progress,
        memory_limit=args.memory_limit, command=_command(args))
    bad = [r for r in records if r["verified"] is False and not r["skipped"]]
    skipped = [r for r in records if r["skipped"]]
    print(f"{len(records)} records, {len(skipped)} skipped, {len(bad)} not verified"
          + (f"; results in {args.out}" if args.out else ""))
    for r in skipped:
        print(f"skipped {r['graph']} {r['algorithm']} on {r['device']}: {r['skipped']}")
    for r in bad:
        if r["error"]:
            print(f"FAILED {r['graph']} {r['algorithm']} on {r['device']}: {r['error']}")
    if args.out and args.plots:
        print("plots: " + ", ".join(render(args.out)))
    return 1 if bad else 0


def cmd_report(args):
    from .report import render
    _check_folder("dir", args.dir, must_exist=True, label="report")
    _check_folder("--out", args.out)
    for p in render(args.dir, args.out):
        print(p)
    return 0


def add_bench_commands(sub):
    b = sub.add_parser("bench", help="benchmark algorithms x devices x graphs (verified)")
    b.add_argument("--suite", default="small",
                   help="small, medium, large/reference, or a folder of .mtx files")
    b.add_argument("--graphs", default=None, help="comma-separated subset of the suite")
    b.add_argument("--rcp", default="no", choices=["no", "yes", "both"],
                   help="random row/column permutations (the papers' RCP sets)")
    b.add_argument("--algorithms", default="bipartite",
                   help="comma-separated family:algorithm, algorithm or family names, or 'all'")
    b.add_argument("--devices", default="auto", help="'all', 'auto' or comma-separated specs")
    b.add_argument("--baselines", action="store_true",
                   help="add scipy/networkx/igraph/NetworKit where installed")
    b.add_argument("--repeat", type=cli_integer(1, 1000), default=3)   # (args.REPEAT_MAX)
    b.add_argument("--out", default=None, help="folder for results.jsonl, meta.json, summary.md")
    b.add_argument("--plots", action="store_true", help="also render the plots (matplotlib)")
    b.add_argument("--memory-limit", type=cli_integer(1), default=None,
                   help="bytes of device memory to assume (default: the device's)")
    b.add_argument("--no-progress", action="store_true")
    b.add_argument("--dask", default=None, metavar="ADDRESS|local",
                   help="spread the runs over a Dask cluster (scheduler address, or 'local' "
                        "for one worker per GPU of this host); needs pyclmatch[dask]")
    b.set_defaults(func=cmd_bench)
    r = sub.add_parser("report", help="plots from a bench results folder (matplotlib)")
    r.add_argument("dir")
    r.add_argument("--out", default=None)
    r.set_defaults(func=cmd_report)
