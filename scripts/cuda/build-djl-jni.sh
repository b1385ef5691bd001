#!/usr/bin/env bash
# Compiles DJL's PyTorch JNI (libdjl_torch.so) against the libtorch of this machine's Python PyTorch,
# on the CUDA machine itself: DJL publishes its JNI for one PyTorch version (2.7.1 for DJL 0.35.1),
# and that build loads against another libtorch but fails at its first tensor. g++ directly (no
# CMake): every source in parallel, then one link.
# Usage: scripts/cuda/build-djl-jni.sh DJL_JNI_DIR OUT_DIR
#   DJL_JNI_DIR: djl-jni/ as scripts/cuda/bundle.sh packs it (sources, JNI header, jni.h)
#   OUT_DIR: receives libdjl_torch.so; prints the lines to export for DJL (PYTORCH_LIBRARY_PATH,
#   PYTORCH_VERSION, PYTORCH_FLAVOR) to OUT_DIR/env.sh
set -euo pipefail
src="$(cd "$1" && pwd)"; out="$2"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
py="${PYTHON:-python3}"
read -r torch_dir torch_version cuda_version abi < <("$py" -c '
import os, torch
print(os.path.dirname(torch.__file__), torch.__version__.split("+")[0], (torch.version.cuda or "").replace(".", ""), int(torch._C._GLIBCXX_USE_CXX11_ABI))')
[[ -n "$cuda_version" ]] || { echo "build-djl-jni: this PyTorch has no CUDA" >&2; exit 1; }
site="$(dirname "$torch_dir")"
incs=(-I"$torch_dir/include" -I"$torch_dir/include/torch/csrc/api/include" -I"$src/include" -I"$src/include/linux"
  -I"$src/api/src/main/native")
# CUDA headers (ATen/cuda includes cuda_runtime_api.h, cublas, cusparse): the toolkit's, then the pip wheels'.
for d in /usr/local/cuda/include $(find "$site/nvidia" -maxdepth 4 -type d -name include 2>/dev/null); do incs+=(-I"$d"); done
flags=(-std=c++17 -O2 -fPIC -w -DUSE_CUDA -D_GLIBCXX_USE_CXX11_ABI="$abi")
native="$src/engines/pytorch/pytorch-native/src/main/native"
objs="$out/obj"; mkdir -p "$objs"
t0=$(date +%s)
ls "$native"/*.cc | xargs -P "$(nproc)" -I{} sh -c 'g++ "$@" -c "{}" -o "'"$objs"'/$(basename "{}" .cc).o" || { echo "FAILED {}" >&2; exit 255; }' _ "${flags[@]}" "${incs[@]}"
g++ -shared -o "$out/libdjl_torch.so" "$objs"/*.o -L"$torch_dir/lib" -Wl,-rpath,"$torch_dir/lib" \
  -ltorch -ltorch_cpu -ltorch_cuda -lc10 -lc10_cuda
echo "build-djl-jni: libdjl_torch.so for PyTorch $torch_version (CUDA $cuda_version) in $(( $(date +%s) - t0 )) s" >&2
cat > "$out/env.sh" <<EOF
export PYTORCH_LIBRARY_PATH="$torch_dir/lib"
export PYTORCH_VERSION="$torch_version"
export PYTORCH_FLAVOR="cu$cuda_version"
EOF
