#!/usr/bin/env bash
# The CUDA checks of Leap, run on a machine with an NVIDIA GPU, PyTorch with CUDA in python3, g++,
# and no Java: unpacks .cuda-bundle/ (scripts/cuda/bundle.sh), compiles DJL's JNI against that
# PyTorch (scripts/cuda/build-djl-jni.sh; skipped when .cuda-bundle/jni/libdjl_torch.so exists),
# then, each step under its own time limit, in order of what matters most:
#   1. leap generate on gpu0 and on the CPU, float32 and float16 (greedy outputs compared)
#   2. leap bench forward on the qwen2.5-0.5b and llama3.2-1b shapes (with PyTorch's fused attention,
#      the GPU's default, and with the attention as DJL ops), and the same forward in plain PyTorch,
#      eager and with CUDA graphs (bench/scripts/forward_reference.py)
#   3. leap bench characters on gpu0 (float32, and float16 beside it), both modes
#   4. leap bench longdoc on gpu0, both modes
#   5. leap demo on gpu0
# GPU memory is sampled every 500 ms throughout (gpu-memory.csv). Results go to RESULTS_DIR (default
# $OUT, else ./cuda-results) as results.tar.gz (packed again after every step) and libdjl_torch.so.
# Usage: scripts/cuda/device-checks.sh [RESULTS_DIR]
#   LEAP_CUDA_STEPS="generate forward characters longdoc demo" (the default: all) picks steps;
#   longdoc-f32 (the long-document benchmark in float32) and longdoc-djl-attention (with
#   --fused-attention off) run only when named.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
results="${1:-${OUT:-$root/cuda-results}}"; mkdir -p "$results"
b="$root/.cuda-bundle"; w="${LEAP_CUDA_WORK:-/tmp/leap-cuda}"; r="$w/results"
mkdir -p "$w" "$r"
pack() { tar -C "$w" -czf "$results/results.tar.gz" results; }
steps="${LEAP_CUDA_STEPS:-generate forward characters longdoc demo}"
want() { [[ " $steps " == *" $1 "* ]]; }
step() { # step NAME SECONDS COMMAND...: runs it with its output in $r/NAME.txt, then packs
  local name=$1 secs=$2; shift 2
  echo "== $(date +%T) $name (limit ${secs}s)" | tee -a "$r/steps.txt"
  local t0; t0=$(date +%s%N)
  timeout "$secs" "$@" > "$r/$name.txt" 2>&1
  local rc=$?
  echo "$name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$r/steps.txt"
  tail -n 25 "$r/$name.txt"
  pack
}

echo "== $(date +%T) unpacking"
for f in jre lib djl-jni; do tar -C "$w" -xJf "$b/$f.tar.xz"; done
{ nvidia-smi; python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'; } > "$r/machine.txt" 2>&1
head -n 20 "$r/machine.txt"
nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader -lms 500 > "$r/gpu-memory.csv" 2>/dev/null &
smi=$!
trap 'kill $smi 2>/dev/null; pack' EXIT

if [[ -f "$b/jni/libdjl_torch.so" ]]; then
  mkdir -p "$w/jni"; cp "$b/jni/libdjl_torch.so" "$w/jni/"
  python3 -c '
import os, torch
lib = os.path.join(os.path.dirname(torch.__file__), "lib")
version = torch.__version__.split("+")[0]
flavor = "cu" + torch.version.cuda.replace(".", "")
print("export PYTORCH_LIBRARY_PATH=" + lib)
print("export PYTORCH_VERSION=" + version)
print("export PYTORCH_FLAVOR=" + flavor)' > "$w/jni/env.sh"
else
  step jni-build 400 "$root/scripts/cuda/build-djl-jni.sh" "$w/djl-jni" "$w/jni"
  [[ -f "$w/jni/libdjl_torch.so" ]] || { echo "no JNI: see jni-build.txt"; exit 1; }
  cp "$w/jni/libdjl_torch.so" "$results/"
fi
# shellcheck disable=SC1091
source "$w/jni/env.sh"
djl="$(cat "$b/djl-version")"
export ENGINE_CACHE_DIR="$w/engine-cache"
mkdir -p "$ENGINE_CACHE_DIR/pytorch/$PYTORCH_VERSION-$PYTORCH_FLAVOR-linux-x86_64"
cp "$w/jni/libdjl_torch.so" "$ENGINE_CACHE_DIR/pytorch/$PYTORCH_VERSION-$PYTORCH_FLAVOR-linux-x86_64/$djl-libdjl_torch.so"
# DJL counts GPUs through JNA's libcudart.so: link the CUDA runtime PyTorch uses under that name.
cudart="$(find "$PYTORCH_LIBRARY_PATH/../.." /usr/local/cuda/lib64 -name 'libcudart.so*' 2>/dev/null | sort | tail -n 1)"
mkdir -p "$w/jna"; ln -sf "$cudart" "$w/jna/libcudart.so"
echo "cudart: $cudart" >> "$r/machine.txt"
cd "$w"
cat > "$w/leap" <<EOF
#!/usr/bin/env bash
exec "$w/jre/bin/java" -Dai.djl.offline=true -Djava.awt.headless=true -Djna.library.path="$w/jna" \\
  -Dleap.shared="$root/../shared" -cp "$w/lib/*" dev.leap.cli.LeapMain "\$@"
EOF
chmod +x "$w/leap"
export PATH="$w:$PATH"

prompt='Write a character sheet for Hermione Granger as JSON.'
want generate && for dev in gpu0 cpu; do
  for dt in f32 f16; do
    step "generate-$dev-$dt" 90 leap generate --device "$dev" --dtype "$dt" --json --max-tokens 64 \
      --prompt "$prompt" --regex '\{"name": "[A-Z][a-z]+ [A-Z][a-z]+", "house": "[A-Za-z]+", "age": [0-9]{1,2}\}'
  done
done
want forward && for shape in qwen2.5-0.5b llama3.2-1b; do
  step "forward-$shape" 150 leap bench forward --shape "$shape" --device gpu0 --work "$w/shapes" \
    --out "$r/forward-$shape.json"
  step "forward-$shape-djl-attention" 120 leap bench forward --shape "$shape" --device gpu0 --work "$w/shapes" \
    --fused-attention off --out "$r/forward-$shape-djl-attention.json"
  step "reference-$shape" 120 python3 "$root/bench/scripts/forward_reference.py" "$w/shapes/$shape" --graphs \
    --out "$r/reference-$shape.json"
done
want characters && step characters 240 leap bench characters --device gpu0 --dtype f32 --compare-dtype f16 --repeats 1 \
  --out "$r/characters-gpu.json" --chart "$r/characters-gpu.png"
want longdoc && step longdoc 240 leap bench longdoc --device gpu0 --docs 5 --out "$r/longdoc-gpu.json"
want longdoc-djl-attention && step longdoc-djl-attention 240 leap bench longdoc --device gpu0 --docs 5 \
  --fused-attention off --out "$r/longdoc-gpu-djl-attention.json"
want longdoc-f32 && step longdoc-f32 240 leap bench longdoc --device gpu0 --dtype f32 --docs 5 --out "$r/longdoc-gpu-f32.json"
want demo && step demo 180 leap demo --device gpu0
echo "== $(date +%T) done"
