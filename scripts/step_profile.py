#!/usr/bin/env python3
"""Split a CPU profile of the training step into its parts (docs/speed.md, the step against
PyTorch).

Make the profile with the lab package's step benchmark, e.g.

    go test -c -o /tmp/lab.test ./lab
    /tmp/lab.test -test.run XXX -test.bench 'TrainStep/quick/bijection/transformer/go$' \\
        -test.benchtime 100x -test.cpuprofile /tmp/quick.prof

then run step_profile.py /tmp/lab.test /tmp/quick.prof. Each sample (`go tool pprof -traces`)
is counted once, in the first part (top to bottom) any frame of its stack matches, so the
parts add up to the step; the model's construction is left out. Prints a Markdown table.
"""
import re
import subprocess
import sys

PARTS = [
    ("construction (left out)", r"lab\.New$|models\.New"),
    ("GEMM: micro-kernels", r"gemm\.kernel"),
    ("GEMM: packing, splitting, the rest", r"backends/gemm\."),
    ("attention: T×T small products (smm, transposes)", r"models\.smm|models\.transpose"),
    ("attention: softmax forward and backward", r"models\.softmax"),
    ("attention: the rest", r"attnKernel"),
    ("GELU forward and backward", r"models\.gelu|linKernel.*(actBackward|backward\.func1)"),
    ("vector adds (biases, gradient sums: addVec)", r"models\.addVec"),
    ("RMSNorm forward and backward", r"rmsKernel"),
    ("bias gradients (colSums)", r"colSums"),
    ("AdamW", r"AdamW"),
    ("residual copies (copyPar)", r"copyPar"),
    ("loss, embedding, batch", r"loss|ceKernel|embed|Embed|tunnels\."),
    ("runtime: memmove and clears", r"runtime\.mem"),
    ("runtime: GC and allocation", r"runtime\.(gc|malloc|mark|scan|newobject|sweep)"),
    ("runtime: scheduler", r"runtime\.(futex|usleep|schedule|findRunnable|park|notesleep|mcall|gopark|runqgrab|stealWork)"),
    ("other", r"."),
]
UNITS = {"s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: step_profile.py BINARY PROFILE")
    out = subprocess.run(["go", "tool", "pprof", "-traces", sys.argv[1], sys.argv[2]],
                         capture_output=True, text=True, check=True).stdout
    tot = {name: 0.0 for name, _ in PARTS}
    for block in re.split(r"-{5,}\+-{5,}", out)[1:]:
        lines = [l.strip() for l in block.strip().split("\n") if l.strip()]
        m = re.match(r"([\d.]+)(s|ms|us|µs)\s+(.*)", lines[0]) if lines else None
        if not m:
            continue
        frames = [m.group(3)] + lines[1:]
        for name, rx in PARTS:
            if any(re.search(rx, f) for f in frames):
                tot[name] += float(m.group(1)) * UNITS[m.group(2)]
                break
    step = sum(v for name, v in tot.items() if name != PARTS[0][0])
    print(f"step CPU in the profile: {step:.2f} s (construction left out: {tot[PARTS[0][0]]:.2f} s)\n")
    print("| part | CPU s | share |\n|---|---|---|")
    for name, _ in PARTS[1:]:
        print(f"| {name} | {tot[name]:.2f} | {100 * tot[name] / step:.1f} % |")


if __name__ == "__main__":
    main()
