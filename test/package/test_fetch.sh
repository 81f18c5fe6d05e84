#!/usr/bin/env bash
# examples/saxpy built by a project that takes gpubench from its sources with FetchContent (test/package/fetch), only
# the targets it links built: the same gpubench::main as the installed package, its rows listed, no family of
# gpubench's own in it.
#   test_fetch.sh SOURCE_DIR
set -euo pipefail
source=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$source/test/package/fetch" -B "$work" -DGPUBENCH_SOURCE="$source" -DCMAKE_BUILD_TYPE=Release \
  >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work" --target saxpy_bench -j2 >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }
rows=$("$work/saxpy_bench" --benchmark_list_tests 2>&1 || true)
grep -qF "Saxpy/fp32/MiB:256/manual_time" <<<"$rows" || { echo "FAIL: saxpy's rows not listed:"; echo "$rows" | head; exit 1; }
if grep -q "^Stream/" <<<"$rows"; then
  echo "FAIL: the user's binary holds gpubench's own families"
  exit 1
fi
echo "ok: saxpy built against gpubench taken by FetchContent"
