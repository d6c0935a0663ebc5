#!/usr/bin/env bash
# The H200 measurements of issues 36, 37 and 39 in three parts, one device call each:
#
#   bash benchmarks/device_session.sh setup    # wheels the worker needs (diffusers, ...)
#   bash benchmarks/device_session.sh method   # 39: gemm method, gemm again; 36: llm overhead
#   bash benchmarks/device_session.sh suites   # 36: the other suites once, per-watt figures
#   bash benchmarks/device_session.sh tune     # 37: rocmate tune resnet50-train, sd15-infer
#
# Each part writes its log as it runs and packs what it made into $OUT/<part>.tgz after every
# step, so a part stopped at its time limit still brings back what it finished. PY names the
# Python holding PyTorch (default python3); .whl holds the wheels `setup` installs into it
# (the worker starts with -E, so PYTHONPATH cannot carry them).
set -u
PY=${PY:-python3}
OUT=${OUT:-/tmp/out}
WORK=/tmp/rocmate-device
mkdir -p "$OUT" "$WORK"
export PYTHONUNBUFFERED=1 XDG_DATA_HOME=$WORK/data XDG_STATE_HOME=$WORK/state

pack() { tar czf "$OUT/$1.tgz" -C "$WORK" "$1" 2>/dev/null; }
step() {  # step PART NAME COMMAND...: run, log, pack
    local part=$1 name=$2; shift 2
    mkdir -p "$WORK/$part"
    echo "=== $name: $* ($(date -u +%T))" | tee -a "$OUT/$part.log"
    local t0=$SECONDS
    "$@" 2>&1 | tee -a "$WORK/$part/$name.log" "$OUT/$part.log" >/dev/null
    echo "=== $name: exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s" | tee -a "$OUT/$part.log"
    pack "$part"
}

case ${1:-} in
ensure)  # setup unless an earlier call on this machine did it
    "$PY" -c 'import diffusers, distro, rocm_bootstrap' 2>/dev/null || bash "$0" setup
    ;;
setup)
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl
    nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu \
        --format=csv | tee "$OUT/setup.log"
    "$PY" -c 'import torch, diffusers, distro; print(torch.__version__, diffusers.__version__)' \
        | tee -a "$OUT/setup.log"
    ;;
method)
    step method gemm-method "$PY" benchmarks/bench_gemm_method.py --python "$PY" \
        --out "$WORK/method/gemm"
    # a second gemm run in the same call, compared with the first as its reference (39)
    step method gemm-again "$PY" -m core.cli bench gemm --python "$PY" --no-history \
        --out "$WORK/method/gemm-again.json" --run-file "$WORK/method/gemm-again.jsonl" --lang en
    step method llm-overhead "$PY" benchmarks/bench_llm_infer_overhead.py --python "$PY" \
        --rounds 2 --seconds 6 --out "$WORK/method/llm"
    ;;
suites)
    for suite in bandwidth resnet50-train sd15-infer llm-train llm-infer; do
        step suites "$suite" "$PY" -m core.cli bench "$suite" --python "$PY" --no-history \
            --out "$WORK/suites/$suite.json" --run-file "$WORK/suites/$suite.jsonl" --lang en
    done
    ;;
tune)
    for suite in resnet50-train sd15-infer; do
        # the ranking as rocmate.tune/1 JSON in tune/SUITE.json, the progress in the log
        step tune "$suite" sh -c "\"$PY\" -m core.cli tune $suite --python \"$PY\" \
            --budget ${BUDGET:-200} --json > $WORK/tune/$suite.json"
    done
    ;;
*)
    echo "usage: $0 setup|method|suites|tune" >&2
    exit 2
    ;;
esac
