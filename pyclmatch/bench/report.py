"""`pyclmatch report DIR`: plots from ``DIR/results.jsonl`` (matplotlib, headless Agg).

* ``runtime.png``: median end-to-end seconds per graph, one bar per (algorithm, device);
* ``speedup.png``: speedup profile -- per (algorithm, device), its speedup over the slowest
  configuration on each graph, sorted;
* ``performance_profile.png``: performance profile as Fig. 3-4 of Deveci et al. (paper 000):
  fraction of graphs on which a configuration is within a factor x of the best.
"""
import json
import os

import numpy as np

from .harness import aggregate
from ..errors import InputError

__all__ = ["load_records", "render"]


def load_records(folder):
    """The records of ``folder/results.jsonl`` (one dict per line).

    Examples
    --------
    >>> import json, os, tempfile
    >>> from pyclmatch.bench.report import load_records
    >>> with tempfile.TemporaryDirectory() as d:
    ...     with open(os.path.join(d, "results.jsonl"), "w") as fh:
    ...         _ = fh.write(json.dumps({"graph": "grid", "seconds": 0.5}) + "\\n")
    ...     load_records(d)
    [{'graph': 'grid', 'seconds': 0.5}]
    """
    path = os.path.join(folder, "results.jsonl")
    records = []
    with open(path) as fh:
        for no, line in enumerate(fh, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError:
                    raise InputError(f"{path}: line {no} is not a JSON record (not a "
                                     f"'pyclmatch bench' results file?)",
                                     argument="folder") from None
    return records


def _table(records):
    """Per family: ``(graphs, configs, {(graph, config): median seconds})``."""
    agg = aggregate(records)
    out = {}
    for (g, a, d), v in agg.items():
        if "skipped" in v or "error" in v:
            continue
        fam, alg = a.split(":", 1)
        graphs, configs, t = out.setdefault(fam, ([], [], {}))
        c = f"{alg} @ {d.split(' [')[0]}"
        if g not in graphs:
            graphs.append(g)
        if c not in configs:
            configs.append(c)
        t[(g, c)] = v["median_s"]
    return out


def render(folder, out=None):
    """Write the three plots of a bench results folder, one panel per family.

    Parameters
    ----------
    folder : str
        A ``pyclmatch bench --out`` folder (its ``results.jsonl``).
    out : str, optional
        Where the plots go (default ``folder``).

    Returns
    -------
    list of str
        The paths of ``runtime.png``, ``speedup.png`` and ``performance_profile.png``.

    Raises
    ------
    InputError
        matplotlib is not installed, or a line of ``results.jsonl`` is not JSON (then
        ``argument="folder"``).
    OSError
        ``folder`` holds no ``results.jsonl`` (nothing is created then).

    Examples
    --------
    >>> from pyclmatch.bench.report import render
    >>> render("bench-out")     # doctest: +SKIP
    ['bench-out/runtime.png', 'bench-out/speedup.png', 'bench-out/performance_profile.png']
    """
    try:
        import matplotlib
    except ImportError as exc:
        raise InputError("plots need matplotlib: pip install 'pyclmatch[plot]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out = out or folder
    tables = _table(load_records(folder))      # (before the plots' folder is made)
    os.makedirs(out, exist_ok=True)
    fams = list(tables) or ["none"]
    paths = []
    for name, width, panel in (("runtime.png", 10, _runtime), ("speedup.png", 7, _speedup),
                               ("performance_profile.png", 7, _profile)):
        fig, axes = plt.subplots(len(fams), 1, figsize=(width, 4 * len(fams)), squeeze=False)
        for ax, fam in zip(axes[:, 0], fams):
            panel(ax, fam, *tables.get(fam, ([], [], {})))
            ax.legend(fontsize=5, ncol=2)
        fig.tight_layout()
        paths.append(os.path.join(out, name))
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    return paths


def _runtime(ax, fam, graphs, configs, t):
    """Median end-to-end seconds per graph, one bar per configuration."""
    w = 0.8 / max(len(configs), 1)
    for i, c in enumerate(configs):
        ax.bar(np.arange(len(graphs)) + i * w, [t.get((g, c), np.nan) for g in graphs],
               w, label=c)
    ax.set_xticks(np.arange(len(graphs)) + 0.4 - w / 2)
    ax.set_xticklabels(graphs, rotation=20, ha="right")
    _label(ax, None, "median end-to-end s", f"{fam}: runtime per graph per device", log=True)


def _speedup(ax, fam, graphs, configs, t):
    """Each configuration's speedup over the slowest one per graph, sorted."""
    for c in configs:
        sp = sorted(max(t[(g, k)] for k in configs if (g, k) in t) / t[(g, c)]
                    for g in graphs if (g, c) in t)
        ax.plot(np.arange(1, len(sp) + 1) / max(len(sp), 1), sp, marker=".", label=c)
    _label(ax, "fraction of graphs", "speedup over the slowest", f"{fam}: speedup profile",
           log=True)


def _profile(ax, fam, graphs, configs, t):
    """Performance profile (paper 000, Fig. 3-4): the fraction of graphs on which a
    configuration is within a factor x of the best."""
    ratios = {c: [t[(g, c)] / min(t[(g, k)] for k in configs if (g, k) in t)
                  for g in graphs if (g, c) in t] for c in configs}
    xmax = max([max(r) for r in ratios.values() if r] + [1.0]) * 1.05
    xs = np.linspace(1.0, xmax, 200)
    for c, r in ratios.items():
        ax.step(xs, [sum(v <= x for v in r) / max(len(graphs), 1) for x in xs],
                where="post", label=c)
    ax.set_ylim(0, 1.05)
    _label(ax, "x: within a factor x of the best", "fraction of graphs",
           f"{fam}: performance profile")


def _label(ax, xlabel, ylabel, title, log=False):
    """The axis labels and title of one panel (y on a log scale with ``log``)."""
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.set_title(title)
