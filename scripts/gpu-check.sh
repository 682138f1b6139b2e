#!/usr/bin/env bash
# The one command a lent NVIDIA GPU needs (issue 20), in two halves because the GPU machine has
# no Go toolchain:
#   here:   scripts/gpu-check.sh build   builds gpu/windtunnel, gpu/cuda.test and gpu/lab.test
#                                        (CGO_ENABLED=0) and copies the PyTorch reference into gpu/
#   there:  scripts/gpu-check.sh run     from the repository root with gpu/ carried along
#                                        (with Go on the GPU machine, `run` builds gpu/ itself)
# run, within about 8 minutes on an H100, every stage whatever the earlier ones gave:
#   1 device     nvidia-smi and `windtunnel device` (GPU, driver, cuBLAS, NVRTC and their files)
#   2 kernels    every kernel compiled by NVRTC against its Go version on random inputs at odd
#                sizes, outputs pre-filled with NaN; cuBLAS products on device pointers
#   3 parity     20 paper steps (bijection V=20, L=6 H=6 d=192, batch 256) on cpu, cuda-gemm and
#                cuda (the whole step resident) from the same seed: parameters within 1e-4
#   4 speed      300 timed paper steps on cuda and 40 on cuda-gemm, each beside PyTorch eager on
#                the same GPU (peers/torch_reference.py --device cuda); the projected 50k steps
#   5 summary    one table, last
# Logs go to $OUT (or /tmp/gpu-check): one file a stage and summary.txt.
set -uo pipefail
cd "$(dirname "$0")/.."

build() {
	mkdir -p gpu
	CGO_ENABLED=0 go build -o gpu/windtunnel ./cmd/windtunnel &&
		CGO_ENABLED=0 go test -c -o gpu/cuda.test ./backends/cuda &&
		CGO_ENABLED=0 go test -c -o gpu/lab.test ./lab &&
		cp "${TORCH_REFERENCE:-../shared/peers/torch_reference.py}" gpu/ &&
		ls -la gpu
}

case "${1:-run}" in
build)
	build || exit 1
	;;
run)
	out=${OUT:-/tmp/gpu-check}
	mkdir -p "$out"
	if [ ! -x gpu/windtunnel ] && command -v go >/dev/null 2>&1; then build >"$out/build.txt" 2>&1; fi
	export WINDTUNNEL_REQUIRE_GPU=1 PYTHONUNBUFFERED=1
	declare -A status
	stage() { # stage NAME TIMEOUT_S COMMAND...: runs it into $out/NAME.txt, records PASS or FAIL (rc)
		local name=$1 limit=$2
		shift 2
		echo "== $name: $*" | tee -a "$out/stages.txt"
		timeout "$limit" "$@" >"$out/$name.txt" 2>&1
		local rc=$?
		if [ "$rc" = 0 ]; then status[$name]=PASS; else status[$name]="FAIL (exit $rc)"; fi
		tail -n 25 "$out/$name.txt"
	}
	stage device 60 bash -c 'nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; ./gpu/windtunnel device'
	stage kernels 120 ./gpu/cuda.test -test.v -test.run 'GPU'
	stage parity 180 ./gpu/lab.test -test.v -test.run 'TestResidentCUDAMatchesCPU'
	stage speed-cuda 150 ./gpu/windtunnel bench --presets paper --paper-steps 300 --device cuda \
		--torch-script gpu/torch_reference.py --python python3 --json
	stage speed-cuda-gemm 150 ./gpu/windtunnel bench --presets paper --paper-steps 40 --device cuda-gemm \
		--torch-script gpu/torch_reference.py --python python3 --json
	{
		echo "gpu-check summary ($(date -u +%FT%TZ))"
		for s in device kernels parity speed-cuda speed-cuda-gemm; do printf '%-16s %s\n' "$s" "${status[$s]:-not run}"; done
		grep -h -E 'max parameter difference|differ by' "$out/parity.txt" || true
		python3 - "$out" <<'PY' || echo "(no speed rows to summarise)"
import json, sys
out = sys.argv[1]
rows = []
for name in ("speed-cuda", "speed-cuda-gemm"):
    try:
        for line in open(f"{out}/{name}.txt"):
            if line.startswith("{"):
                rows.append(json.loads(line))
    except OSError:
        pass
torch = next((r["torch_median_ms"] for r in rows if r.get("torch_median_ms")), None)
print(f"{'paper step on':16s} {'ms/step':>9s} {'min..max':>16s} {'vs PyTorch':>10s} {'50k steps':>10s}")
for r in rows:
    lo, hi = r["windtunnel_min_max_ms"]
    ratio = f"{r['windtunnel_median_ms'] / torch:.2f}" if torch else "-"
    print(f"{r['device']:16s} {r['windtunnel_median_ms']:9.2f} {lo:7.2f}..{hi:<8.2f} {ratio:>10s} {r['projected_50k_steps_min']:7.1f} min")
if torch:
    print(f"{'PyTorch eager':16s} {torch:9.2f} {'':16s} {'1.00':>10s} {torch * 50000 / 60000:7.1f} min")
by = {r["device"]: r["windtunnel_median_ms"] for r in rows}
if "cuda" in by and "cuda-gemm" in by:
    print(f"cuda-gemm / cuda = {by['cuda-gemm'] / by['cuda']:.1f}x")
PY
	} | tee "$out/summary.txt"
	;;
*)
	echo "usage: $0 build | run" >&2
	exit 2
	;;
esac
