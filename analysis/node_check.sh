#!/usr/bin/env bash
# Is this node's every GPU normal? For Slurm's HealthCheckProgram or a job prolog: runs gpubench's check preset
# (every GPU of the node at once, then every NVLink pair; each GPU judged in layers: its architecture, its SKU, its
# node's other GPUs, its own SMs; answers verified) with the verdict, and drains the node only when the verdict
# says so (docs/verdicts.md): wrong, busy, abnormal or incomplete, with the verdict's line as the reason. A
# configuration error (gpubench missing, a bad flag or preset) is said and exits with its status; it never drains.
#
#   node_check.sh [gpubench flags...]        default: --gpubench_device=all
#
# Environment: GPUBENCH (the binary; default: gpubench on PATH, else the one installed beside this script),
# NODE_CHECK_DIR (where the run and its card go; default: a temporary folder, removed), NODE_CHECK_DRAIN=0
# (say the verdict, drain nothing), NODE_CHECK_PRESET (default check; quick for README command 1's preset).
# Exit status: gpubench's (the verdict's: analysis/verdicts.json), or 2 when gpubench is missing.
set -uo pipefail
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
gpubench=${GPUBENCH:-$(command -v gpubench || echo "$here/../../../bin/gpubench")}
if [ ! -f "$gpubench" ] || [ ! -x "$gpubench" ]; then
  echo "node_check.sh: gpubench not found or not a program: $gpubench (set GPUBENCH=/path/to/gpubench)" >&2
  exit 2
fi
node=$(hostname -s)
dir=${NODE_CHECK_DIR:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--gpubench_device=all)
"$gpubench" "--gpubench_preset=${NODE_CHECK_PRESET:-check}" "--benchmark_out=$dir/$node.json" \
  "--gpubench_card=$dir/$node.card" --gpubench_verdict "${flags[@]}" >"$dir/$node.log" 2>&1
status=$?
# The verdict's last line: "card.py --check: verdict NAME, exit N, ACTION: LINE". Without one there was no
# verdict about the GPUs (a bad flag, a missing card): say gpubench's last word and drain nothing.
verdict=$(grep -E "^(card.py --check|gpubench): verdict " "$dir/$node.log" | tail -1)
if [ -z "$verdict" ]; then
  line=$(grep -E "^gpubench: " "$dir/$node.log" | tail -1)
  echo "node_check.sh: $node: exit $status: no verdict: ${line:-gpubench printed nothing}"
  exit "$status"
fi
verdict=${verdict#*: verdict }
action=$(echo "$verdict" | sed -E 's/^[a-z_]+, exit [0-9]+, ([a-z]+): .*/\1/')
echo "node_check.sh: $node: exit $status: $verdict"
if [ "$action" = drain ] && [ "${NODE_CHECK_DRAIN:-1}" != 0 ] && command -v scontrol >/dev/null; then
  reason=${verdict#*: }
  scontrol update "NodeName=$node" State=DRAIN "Reason=gpubench: ${reason:0:200}" ||
    echo "node_check.sh: could not drain $node" >&2
fi
exit "$status"
