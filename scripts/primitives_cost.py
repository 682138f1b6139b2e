#!/usr/bin/env python3
"""Estimate the CPU cost of a `windtunnel primitives` budget from short per-cell runs.

Each cell was timed with (docs/primitives.md)

    /usr/bin/time -f "%U %S %e" -o DIR/TASK-MODEL.time windtunnel run --task TASK --model MODEL \
        --steps 40 --eval-every 20 --probe-every 40 --checkpoint-every 0 --workers 1 \
        --out DIR/TASK-MODEL.wtlab --json > DIR/TASK-MODEL.json      # recall: --steps 80

The run's CPU time (user + system) is split in the proportions of its summary's wall times
(training steps, evaluations, geometry snapshots, the rest: setup), so a loaded machine's
wall time does not enter; a budget's cost is then steps × step + evaluations × evaluation +
snapshots × snapshot + setup, summed over the grid. Usage: primitives_cost.py DIR [BUDGET_JSON]
with BUDGET_JSON {"task": [steps, eval_every, probe_every], ...} (default: the quick budget).
"""
import json
import os
import sys

PRESET = {"bijection": (3000, 250, 250), "hmm": (1500, 125, 250), "recall": (10000, 250, 250)}
QUICK = {"bijection": (1500, 125, 750), "hmm": (900, 75, 450), "recall": (10000, 250, 5000)}


def main():
    d = sys.argv[1]
    budget = json.loads(sys.argv[2]) if len(sys.argv) > 2 else QUICK
    tot = {"preset": 0.0, "budget": 0.0}
    print("task       model        CPU ms/step  CPU s/eval  CPU s/snapshot  setup s | quick preset CPU s | budget CPU s")
    for task in ("bijection", "hmm", "recall"):
        for model in ("transformer", "mamba", "lstm", "mlp"):
            f = os.path.join(d, f"{task}-{model}")
            if not (os.path.exists(f + ".json") and os.path.exists(f + ".time")):
                continue
            s = json.load(open(f + ".json"))
            user, sys_, wall = map(float, open(f + ".time").read().split()[-3:])
            r = (user + sys_) / wall
            steps, every = s["steps"], s["config"]["eval_every"]
            step = s["ms_per_step"] / 1000 * r
            ev = s["eval_s"] * r / (steps // every)
            snap = s["geometry_s"] * r
            setup = max(0.0, user + sys_ - step * steps - ev * (steps // every) - snap)

            def cost(sch):
                n, e, p = sch
                return step * n + ev * (n // e) + snap * (n // p) + setup

            a, b = cost(PRESET[task]), cost(budget[task])
            tot["preset"] += a
            tot["budget"] += b
            print(f"{task:10s} {model:12s} {step * 1000:11.1f} {ev:11.2f} {snap:15.2f} {setup:8.1f} | {a:18.0f} | {b:12.0f}")
    for k, v in tot.items():
        print(f"{k}: {v:.0f} CPU s a seed; 3 seeds on 2 idle cores ≈ {3 * v / 2 / 60:.0f} min")


if __name__ == "__main__":
    main()
