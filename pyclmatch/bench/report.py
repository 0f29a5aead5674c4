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
    """Write runtime.png, speedup.png and performance_profile.png (one panel per family)
    into ``out`` (default ``folder``); returns their paths."""
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
    tables = _table(load_records(folder))
    fams = list(tables) or ["none"]
    paths = []

    def panels(width):
        fig, axes = plt.subplots(len(fams), 1, figsize=(width, 4 * len(fams)), squeeze=False)
        return fig, [ax[0] for ax in axes]

    def save(fig, name):
        fig.tight_layout()
        paths.append(os.path.join(out, name))
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)

    fig, axes = panels(10)
    for ax, fam in zip(axes, fams):
        graphs, configs, t = tables.get(fam, ([], [], {}))
        w = 0.8 / max(len(configs), 1)
        for i, c in enumerate(configs):
            ax.bar(np.arange(len(graphs)) + i * w, [t.get((g, c), np.nan) for g in graphs],
                   w, label=c)
        ax.set_xticks(np.arange(len(graphs)) + 0.4 - w / 2)
        ax.set_xticklabels(graphs, rotation=20, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel("median end-to-end s")
        ax.set_title(f"{fam}: runtime per graph per device")
        ax.legend(fontsize=5, ncol=2)
    save(fig, "runtime.png")

    fig, axes = panels(7)
    for ax, fam in zip(axes, fams):   # speedup over the slowest configuration, sorted
        graphs, configs, t = tables.get(fam, ([], [], {}))
        for c in configs:
            sp = sorted(max(t[(g, k)] for k in configs if (g, k) in t) / t[(g, c)]
                        for g in graphs if (g, c) in t)
            ax.plot(np.arange(1, len(sp) + 1) / max(len(sp), 1), sp, marker=".", label=c)
        ax.set_xlabel("fraction of graphs")
        ax.set_ylabel("speedup over the slowest")
        ax.set_yscale("log")
        ax.set_title(f"{fam}: speedup profile")
        ax.legend(fontsize=5, ncol=2)
    save(fig, "speedup.png")

    fig, axes = panels(7)
    for ax, fam in zip(axes, fams):   # performance profile, paper 000 Fig. 3-4
        graphs, configs, t = tables.get(fam, ([], [], {}))
        ratios = {c: [t[(g, c)] / min(t[(g, k)] for k in configs if (g, k) in t)
                      for g in graphs if (g, c) in t] for c in configs}
        xmax = max([max(r) for r in ratios.values() if r] + [1.0]) * 1.05
        xs = np.linspace(1.0, xmax, 200)
        for c, r in ratios.items():
            ax.step(xs, [sum(v <= x for v in r) / max(len(graphs), 1) for x in xs],
                    where="post", label=c)
        ax.set_xlabel("x: within a factor x of the best")
        ax.set_ylabel("fraction of graphs")
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{fam}: performance profile")
        ax.legend(fontsize=5, ncol=2)
    save(fig, "performance_profile.png")
    return paths
