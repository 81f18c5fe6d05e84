#!/usr/bin/env bash
# examples/ built out of tree against the installed package, as a user builds them (docs/your-kernel.md): install
# this build into a prefix, move the prefix (the package is relocatable), configure and build each example against
# it, then check what a binary of a user's own families is: gpubench's options around their rows, their declared
# counters in the catalog, the plan for a known chip, and the example's own GoogleTest (skips without a GPU).
#   test_examples.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/installed" >/dev/null
mv "$work/installed" "$work/moved"
for example in saxpy fma_chain; do
  cmake -S "$source/examples/$example" -B "$work/$example" -DCMAKE_PREFIX_PATH="$work/moved" \
    -DCMAKE_BUILD_TYPE=Release >"$work/$example.configure.log" 2>&1 || { cat "$work/$example.configure.log"; exit 1; }
  cmake --build "$work/$example" -j2 >"$work/$example.build.log" 2>&1 || { cat "$work/$example.build.log"; exit 1; }
done
expect() {  # WHAT TEXT COMMAND...: the command's output holds TEXT
  local what=$1 text=$2
  shift 2
  local out
  out=$("$@" 2>&1 || true)
  if ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL: $what: '$text' not in the output of $*:"
    echo "$out" | head -20
    exit 1
  fi
  echo "ok: $what"
}
expect "saxpy's rows, axis by name" "Saxpy/fp32/MiB:256/manual_time" "$work/saxpy/saxpy_bench" --benchmark_list_tests
expect "fma_chain's declared result in the catalog" "fma_per_second" \
  "$work/fma_chain/fma_chain_bench" --gpubench_list_counters
expect "gpubench's own options" "--gpubench_preset" "$work/fma_chain/fma_chain_bench" --help
expect "a plan for a known chip" "FmaChain/fp32/chains:4/manual_time" \
  "$work/fma_chain/fma_chain_bench" --gpubench_plan=h100-sxm5
expect "a bad flag is one line" "unknown flag '--gpubench_nope'" "$work/saxpy/saxpy_bench" --gpubench_nope
expect "no family of gpubench's own" "Saxpy/fp32/MiB:1024/manual_time" "$work/saxpy/saxpy_bench" --benchmark_list_tests
if "$work/saxpy/saxpy_bench" --benchmark_list_tests | grep -q "^Stream/"; then
  echo "FAIL: the user's binary holds gpubench's own families"
  exit 1
fi
(cd "$work/saxpy" && ctest --output-on-failure >/dev/null)
echo "ok: saxpy's own test"
# The binary finds the moved package's card scripts (cmake/package_paths.cpp), not the source tree's.
if ! grep -qaF "$work/moved/share/gpubench/analysis" "$work/saxpy/saxpy_bench"; then
  echo "FAIL: the binary does not name the moved package's card scripts ($work/moved/share/gpubench/analysis):"
  grep -ao "[^[:cntrl:]]*share/gpubench/analysis" "$work/saxpy/saxpy_bench" | head -3
  exit 1
fi
echo "ok: the card scripts of the moved package"
