#!/usr/bin/env bash
# Is this node's GPU normal? For Slurm's HealthCheckProgram or a job prolog: runs gpubench's check preset (under a
# minute on an H100: the values the SKU verdict needs, every SM against the chip's median, answers verified) with
# the verdict (the run, the SKU check, outside values measured again) and drains the node when the verdict is
# wrong, abnormal or incomplete, with the verdict's line as the reason (docs/verdicts.md).
#
#   node_check.sh [gpubench flags...]        e.g. --gpubench_device=all
#
# Environment: GPUBENCH (the binary; default: gpubench on PATH, else the one installed beside this script),
# NODE_CHECK_DIR (where the run and its card go; default: a temporary folder, removed), NODE_CHECK_DRAIN=0
# (say the verdict, drain nothing), NODE_CHECK_PRESET (default check; quick for README command 1's preset).
# Exit status: gpubench's verdict (0 normal, 5 abnormal, 6 incomplete, 7 no limits for this GPU, 8 a wrong
# result, 1 no GPU), or 2 when gpubench is missing.
set -uo pipefail
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
gpubench=${GPUBENCH:-$(command -v gpubench || echo "$here/../../../bin/gpubench")}
if [ ! -x "$gpubench" ]; then
  echo "node_check.sh: gpubench not found (set GPUBENCH=/path/to/gpubench)" >&2
  exit 2
fi
node=$(hostname -s)
dir=${NODE_CHECK_DIR:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
"$gpubench" "--gpubench_preset=${NODE_CHECK_PRESET:-check}" "--benchmark_out=$dir/$node.json" \
  "--gpubench_card=$dir/$node.card" --gpubench_verdict "$@" \
  >"$dir/$node.log" 2>&1
status=$?
# The verdict's last line ("card.py --check: ...: abnormal: ..."), else gpubench's own last word.
line=$(grep -E "^card.py --check: " "$dir/$node.log" | tail -1)
[ -n "$line" ] || line=$(grep -E "^gpubench: " "$dir/$node.log" | tail -1)
line=${line#card.py --check: }
echo "node_check.sh: $node: exit $status: $line"
case $status in
  0 | 7) exit "$status" ;;  # normal; or nothing to judge against (not a fault of the node)
esac
if [ "${NODE_CHECK_DRAIN:-1}" != 0 ] && command -v scontrol >/dev/null; then
  scontrol update "NodeName=$node" State=DRAIN "Reason=gpubench: ${line:0:200}" ||
    echo "node_check.sh: could not drain $node" >&2
fi
exit "$status"
