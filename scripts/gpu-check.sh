#!/usr/bin/env bash
# Issue 9's measurements on a machine with an NVIDIA GPU, which needs no Go toolchain:
#   here:   scripts/gpu-check.sh build        builds gpu/windtunnel and gpu/cuda.test (CGO_ENABLED=0)
#                                             and copies the PyTorch reference into gpu/ (ignored by git)
#   there:  scripts/gpu-check.sh run [STEPS]  from the repository root with gpu/ carried along
# run: reports the device; runs the GPU-only tests of package cuda; trains the paper preset
# (bijection V=20, L=6 H=6 d=192, batch 256) for STEPS (default 20) steps with --device cpu and
# --device cuda from the same seed and compares their losses step by step (issue 9: within
# 1e-4); times the PyTorch reference at the same size on the GPU; prints ms/step and ratios.
# Results go to $OUT (or /tmp/gpu-check).
set -euo pipefail
case "${1:-run}" in
build)
	mkdir -p gpu
	CGO_ENABLED=0 go build -o gpu/windtunnel ./cmd/windtunnel
	CGO_ENABLED=0 go test -c -o gpu/cuda.test ./cuda
	cp "${TORCH_REFERENCE:-../shared/peers/torch_reference.py}" gpu/
	grep -qx '/gpu/' .git/info/exclude 2>/dev/null || echo '/gpu/' >>.git/info/exclude
	ls -la gpu
	;;
run)
	steps=${2:-20}
	out=${OUT:-/tmp/gpu-check}
	mkdir -p "$out"
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
	./gpu/windtunnel device
	WINDTUNNEL_REQUIRE_GPU=1 ./gpu/cuda.test -test.v -test.run 'GPU' 2>&1 | tail -20
	for dev in cpu cuda; do
		./gpu/windtunnel run --headless --preset paper --steps "$steps" --seed 1 --device "$dev" \
			--probe 256 --probe-every 0 --checkpoint-every 0 --out "$out/$dev.wtlab" >"$out/$dev.json" 2>"$out/$dev.err"
		./gpu/windtunnel export "$out/$dev.wtlab" --format csv >"$out/$dev.csv"
	done
	python3 gpu/torch_reference.py --V 20 --d 192 --layers 6 --heads 6 --batch 256 --steps "$steps" \
		--device cuda >"$out/torch.json" 2>"$out/torch.err" || echo "torch reference failed: $(tail -3 "$out/torch.err")"
	python3 - "$out" <<'PY'
import csv, json, sys
out = sys.argv[1]
def losses(dev):
    with open(f"{out}/{dev}.csv") as f:
        d = {}
        for r in csv.DictReader(f):
            d.setdefault(int(r["step"]), float(r["loss"]))
        return d
cpu, gpu = losses("cpu"), losses("cuda")
common = sorted(set(cpu) & set(gpu))
worst = max(abs(cpu[s] - gpu[s]) for s in common)
print(f"losses over {len(common)} steps: worst |cpu - cuda| = {worst:.3g} ({'within' if worst <= 1e-4 else 'NOT within'} 1e-4)")
ms = {d: json.load(open(f"{out}/{d}.json"))["ms_per_step"] for d in ("cpu", "cuda")}
try:
    ms["torch-cuda"] = json.loads(open(f"{out}/torch.json").read().strip().splitlines()[-1])["median_ms_per_step"]
except Exception as e:
    print("torch:", e)
for k, v in ms.items():
    print(f"{k:11s} {v:9.2f} ms/step")
if "cuda" in ms:
    print(f"cuda/cpu = {ms['cuda']/ms['cpu']:.3f}")
if "torch-cuda" in ms:
    print(f"cuda/torch-cuda = {ms['cuda']/ms['torch-cuda']:.3f}")
PY
	;;
*)
	echo "usage: $0 build | run [STEPS]" >&2
	exit 2
	;;
esac
