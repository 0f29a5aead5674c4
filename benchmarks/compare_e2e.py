#!/usr/bin/env python3
"""Two bench_e2e runs side by side: the whole call and the device time of each (family, graph)
row in a baseline run and a new run, and their ratio (new / baseline; below 1 is faster).

    python benchmarks/compare_e2e.py BASE/results.json NEW/results.json [--labels old,new]
"""
import argparse
import json

from common import fmt


def rows(path):
    with open(path) as f:
        d = json.load(f)
    return d["meta"], {(r["family"], r["graph"]): r for r in d["rows"]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--labels", default="baseline,new")
    args = ap.parse_args(argv)
    lb, ln = args.labels.split(",")
    mb, rb = rows(args.base)
    mn, rn = rows(args.new)
    out = [f"# Whole call, {lb} vs {ln} — {mn['device']}", "",
           f"- {lb}: `{mb['command']}` ({mb['date']})", f"- {ln}: `{mn['command']}` ({mn['date']})",
           f"- medians of {mn['repeat']} calls after a warm-up", "",
           f"| family | graph | whole {lb} s | whole {ln} s | {ln} / {lb} | device {lb} s | "
           f"device {ln} s |", "|---|---|---|---|---|---|---|"]
    ratios = []
    for key, r in rn.items():
        b = rb.get(key)
        wb = b["whole_s"] if b else None
        ratio = r["whole_s"] / wb if wb else None
        if ratio:
            ratios.append(ratio)
        out.append(f"| {key[0]} | {key[1]} | {fmt(wb)} | {fmt(r['whole_s'])} | "
                   f"{fmt(ratio, 2)} | {fmt(b and b['device_s'])} | {fmt(r['device_s'])} |")
    if ratios:
        out += ["", f"{ln} / {lb}, whole call: min {min(ratios):.2f}, max {max(ratios):.2f}, "
                f"{sum(r > 1.0 for r in ratios)} of {len(ratios)} rows slower"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
