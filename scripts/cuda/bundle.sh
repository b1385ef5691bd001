#!/usr/bin/env bash
# Packs what a CUDA machine without Java needs to run Leap into .cuda-bundle/ (ignored by git), for
# scripts/cuda/device-checks.sh to run there:
#   jre.tar.xz      a Java 17 runtime made by jlink from this machine's JDK
#   lib.tar.xz      Leap's jars and their dependencies, without PyTorch's CPU natives, DJL's CPU JNI
#                   and llama.cpp (the CUDA machine's own libtorch replaces the first two; the JNI is
#                   compiled there by scripts/cuda/build-djl-jni.sh); the tokenizer natives for
#                   linux-x86_64 only
#   djl-jni.tar.xz  DJL's PyTorch JNI sources (C++), of the DJL version Leap uses, with the JNI
#                   header javac generates from DJL's PyTorchLibrary.java and the JDK's jni.h
# Usage: scripts/cuda/bundle.sh [DJL_CHECKOUT]
#   DJL_CHECKOUT: a git clone of github.com/deepjavalibrary/djl (the tag v$DJL_VERSION is read from
#   it); without it the script clones that tag (needs the internet).
# The bundle is about 40 MB; nothing in it is committed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$root/.cuda-bundle"
djl_version=0.35.1
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

echo "bundle: building Leap" >&2
(cd "$root" && mvn -B -q -Dstyle.color=never -DskipTests -pl cli -am package >&2)
rm -rf "$out"; mkdir -p "$out"

echo "bundle: jlink runtime from $java_home" >&2
"$java_home/bin/jlink" --add-modules java.base,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,java.desktop,java.scripting,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --compress=0 --output "$tmp/jre"
tar -C "$tmp" -cf - jre | xz -6 -T0 > "$out/jre.tar.xz"

echo "bundle: jars" >&2
mkdir -p "$tmp/lib"
jars="$(tr ':' '\n' < "$root/cli/target/classpath.txt") $(ls "$root"/cli/target/cli-*.jar)"
for j in $jars; do
  n="$(basename "$j")"
  case "$n" in
    pytorch-native-cpu-*|pytorch-jni-*|llama-*) continue ;;
  esac
  mkdir -p "$tmp/x"; (cd "$tmp/x" && unzip -q -o "$j")
  if [[ "$n" == tokenizers-* ]]; then
    find "$tmp/x/native/lib" -mindepth 1 -maxdepth 1 -type d ! -name linux-x86_64 -exec rm -rf {} +
  fi
  (cd "$tmp/x" && zip -q -0 -r "$tmp/lib/$n" .)   # stored: xz compresses the classes across jars
  rm -rf "$tmp/x"
done
tar -C "$tmp" -cf - lib | xz -6 -T0 > "$out/lib.tar.xz"

echo "bundle: DJL $djl_version JNI sources" >&2
src="${1:-}"
if [[ -z "$src" ]]; then
  git clone -q --depth 1 --branch "v$djl_version" https://github.com/deepjavalibrary/djl "$tmp/djl"
  src="$tmp/djl"
fi
mkdir -p "$tmp/djl-jni"
git -C "$src" archive "v$djl_version" engines/pytorch/pytorch-native/src/main/native api/src/main/native \
  engines/pytorch/pytorch-engine/src/main/java/ai/djl/pytorch/jni | tar -x -C "$tmp/djl-jni"
engine_cp="$(tr ':' '\n' < "$root/cli/target/classpath.txt" | grep -e "/api-$djl_version" -e /pytorch-engine- -e /slf4j-api- -e /gson- -e /jna- | paste -sd:)"
mkdir -p "$tmp/djl-jni/include" "$tmp/classes"
"$java_home/bin/javac" -h "$tmp/djl-jni/include" -d "$tmp/classes" -cp "$engine_cp" \
  "$tmp/djl-jni/engines/pytorch/pytorch-engine/src/main/java/ai/djl/pytorch/jni/PyTorchLibrary.java"
cp -r "$java_home/include/." "$tmp/djl-jni/include/"
rm -rf "$tmp/djl-jni/engines/pytorch/pytorch-engine"
tar -C "$tmp" -cf - djl-jni | xz -6 -T0 > "$out/djl-jni.tar.xz"
echo "$djl_version" > "$out/djl-version"
du -sh "$out"/* >&2
