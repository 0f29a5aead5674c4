"""`pyclmatch report DIR`: plots from ``DIR/results.jsonl`` (matplotlib, headless Agg).

* ``runtime.png``: median end-to-end seconds per graph, one bar per (algorithm, device);
* ``speedup.png``: speedup profile -- per (algorithm, device), its speedup over the slowest
  configuration on each graph, sorted;
* ``performance_profile.png``: performance profile as Fig. 3-4 of Deveci et al. (paper 000):
  fraction of graphs on which a configuration is within a factor x of the best.
"""
import json
import os

from .harness import aggregate

__all__ = ["load_records", "render"]


def load_records(folder):
    with open(os.path.join(folder, "results.jsonl")) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _table(records):
    agg = aggregate(records)
    graphs, configs, t = [], [], {}
    for (g, a, d), v in agg.items():
        if "skipped" in v:
            continue
        c = f"{a} @ {d.split(' [')[0]}"
        if g not in graphs:
            graphs.append(g)
        if c not in configs:
            configs.append(c)
        t[(g, c)] = v["median_s"]
    return graphs, configs, t


def render(folder, out=None):
    """Write the three PNGs into ``out`` (default ``folder``); returns their paths."""
    try:
        import matplotlib
    except ImportError as exc:
        from ..errors import InputError
        raise InputError("plots need matplotlib: pip install 'pyclmatch[plot]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    out = out or folder
    os.makedirs(out, exist_ok=True)
    graphs, configs, t = _table(load_records(folder))
    paths = []
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(graphs) * max(1, len(configs)) / 3), 4))
    w = 0.8 / max(len(configs), 1)
    for i, c in enumerate(configs):
        ys = [t.get((g, c), np.nan) for g in graphs]
        ax.bar(np.arange(len(graphs)) + i * w, ys, w, label=c)
    ax.set_xticks(np.arange(len(graphs)) + 0.4 - w / 2)
    ax.set_xticklabels(graphs, rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("median end-to-end seconds")
    ax.legend(fontsize=6)
    fig.tight_layout()
    paths.append(os.path.join(out, "runtime.png"))
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    # speedup profile: speedup over the slowest configuration per graph, sorted
    fig, ax = plt.subplots(figsize=(6, 4))
    for c in configs:
        sp = sorted(max(t[(g, k)] for k in configs if (g, k) in t) / t[(g, c)]
                    for g in graphs if (g, c) in t)
        ax.plot(np.arange(1, len(sp) + 1) / max(len(sp), 1), sp, marker="o", label=c)
    ax.set_xlabel("fraction of graphs")
    ax.set_ylabel("speedup over the slowest configuration")
    ax.set_yscale("log")
    ax.legend(fontsize=6)
    fig.tight_layout()
    paths.append(os.path.join(out, "speedup.png"))
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    # performance profile (paper 000, Fig. 3-4): P(ratio to best <= x)
    fig, ax = plt.subplots(figsize=(6, 4))
    ratios = {c: [t[(g, c)] / min(t[(g, k)] for k in configs if (g, k) in t)
                  for g in graphs if (g, c) in t] for c in configs}
    xmax = max([max(r) for r in ratios.values() if r] + [1.0]) * 1.05
    xs = np.linspace(1.0, xmax, 200)
    for c, r in ratios.items():
        ax.step(xs, [sum(v <= x for v in r) / max(len(graphs), 1) for x in xs], where="post",
                label=c)
    ax.set_xlabel("x: within a factor of the best")
    ax.set_ylabel("fraction of graphs")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=6)
    fig.tight_layout()
    paths.append(os.path.join(out, "performance_profile.png"))
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    return paths
