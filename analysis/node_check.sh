#!/usr/bin/env bash
# Is this node's every GPU normal? For Slurm's HealthCheckProgram, a job Prolog, or node-problem-detector: runs
# gpubench's check preset (every GPU of the node at once, then every NVLink pair; each GPU judged in layers: its
# architecture, its SKU, its node's other GPUs, its own SMs; answers verified) with the verdict, inside a deadline,
# and drains the node only when the verdict says so (docs/verdicts.md): missing, wrong, busy, abnormal or
# incomplete, with the verdict's line as the reason. A configuration error (gpubench missing, a bad flag or
# preset) is said and never drains.
#
#   node_check.sh [gpubench flags...]        default: --gpubench_device=all
#
# Environment:
#   NODE_CHECK_MODE      health (default: HealthCheckProgram; drains with scontrol, exits with the verdict's status),
#                        prolog (a job Prolog: Slurm drains the node on a non-zero exit, so exit 1 for a verdict that
#                        drains and 0 otherwise, a configuration error included), or npd (a node-problem-detector
#                        custom plugin: one line, exit 0 OK, 1 problem, 2 unknown; drains nothing)
#   NODE_CHECK_DEADLINE  seconds gpubench may measure (default 40; whole seconds, 5 to 50 in health mode, since
#                        Slurm kills a HealthCheckProgram at 60 s, 5 to 3600 otherwise): what it has not measured by
#                        then is interrupted and the verdict is incomplete; 10 s later the check is stopped whatever
#                        it does
#   NODE_CHECK_EXPECT_GPUS  the GPUs the node should have (default: Slurm's Gres=gpu:N of this node, where scontrol
#                        says it); fewer is the verdict missing
#   NODE_CHECK_TEXTFILE_DIR  write gpubench.prom there for node_exporter's textfile collector (analysis/prometheus.py)
#   NODE_CHECK_HISTORY   a history store (a SQLite path or a PostgreSQL URL: analysis/history.py) the check adds
#                        its GPUs' values to; a drift of a board from its own past is said as a warning, and drains
#                        only with NODE_CHECK_DRIFT_DRAINS=1
#   NODE_CHECK_DIR       an existing folder where the run and its card go (default: a temporary folder, removed)
#   NODE_CHECK_DRAIN=0   say the verdict, drain nothing
#   NODE_CHECK_PRESET    default check
#   GPUBENCH             the binary (default: gpubench on PATH, else the one installed beside this script)
#   SLURMD_NODENAME      the node's Slurm name (default: hostname -s)
# Busy (another process on a GPU) drains only in prolog mode: before a job the GPUs must be free, while a
# HealthCheckProgram (HealthCheckNodeState=ANY, Slurm's default) or node-problem-detector may find a job running.
# Exit status (health): gpubench's (the verdict's: analysis/verdict/verdicts.json); 2 for no verdict (gpubench
# missing, a bad setting, gpubench ended without one), which drains nothing.
set -uo pipefail
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
mode=${NODE_CHECK_MODE:-health}
case "$mode" in
  health | prolog | npd) ;;
  *) echo "node_check.sh: NODE_CHECK_MODE=$mode: give health, prolog or npd" >&2; exit 2 ;;
esac
node=${SLURMD_NODENAME:-$(hostname -s)}
started=$SECONDS

# The verdict, said the way the mode wants it: $1 the action (keep, drain, or "" for no verdict), $2 gpubench's
# status, $3 the line.
finish() {
  local action=$1 status=$2 line=$3
  # A GPU in use is a stray process only before a job: elsewhere the job may be the user's own.
  [ "${line%%:*}" = busy ] && [ "$mode" != prolog ] && [ "$action" = drain ] && action=keep
  case "$mode" in
    npd)
      echo "gpubench on $node: $line"
      case "$action" in keep) exit 0 ;; drain) exit 1 ;; *) exit 2 ;; esac ;;
    prolog)
      echo "node_check.sh: $node: $line"
      [ "$action" = drain ] && { drain "$line"; exit 1; }
      exit 0 ;;
    *)
      echo "node_check.sh: $node: exit $status: $line"
      [ "$action" = drain ] && drain "$line"
      exit "$status" ;;
  esac
}

drain() {
  [ "${NODE_CHECK_DRAIN:-1}" != 0 ] || return 0
  if ! command -v scontrol >/dev/null; then
    echo "node_check.sh: scontrol is not on PATH: $node is NOT drained (verdict: $1)" >&2
    return 0
  fi
  local reason=${1#*: }
  scontrol update "NodeName=$node" State=DRAIN "Reason=gpubench: ${1%%:*}: ${reason:0:180}" ||
    echo "node_check.sh: scontrol could not drain $node" >&2
}

gpubench=${GPUBENCH:-$(command -v gpubench || echo "$here/../../../bin/gpubench")}
if [ ! -f "$gpubench" ] || [ ! -x "$gpubench" ]; then
  echo "node_check.sh: gpubench not found or not a program: $gpubench (set GPUBENCH=/path/to/gpubench)" >&2
  [ "$mode" = health ] && exit 2
  finish "" 2 "no verdict: gpubench not found ($gpubench)"
fi
# A bad setting is said and drains nothing: exit 2 (health), 0 (prolog: any other exit drains), 2 (npd: unknown).
bad_setting() {
  echo "node_check.sh: $1" >&2
  finish "" 2 "no verdict: $1"
}
deadline=${NODE_CHECK_DEADLINE:-40}
longest=50
[ "$mode" = health ] || longest=3600
if ! [[ "$deadline" =~ ^[0-9]+$ ]] || [ "$deadline" -lt 5 ] || [ "$deadline" -gt "$longest" ]; then
  bad_setting "NODE_CHECK_DEADLINE=$deadline: give whole seconds from 5 to $longest (the check is stopped 10 s later$(
    [ "$mode" = health ] && echo ", inside Slurm's 60 s for a HealthCheckProgram"))"
fi
expect=${NODE_CHECK_EXPECT_GPUS:-}
if [ -z "$expect" ] && command -v scontrol >/dev/null; then
  # Slurm's own count of this node's GPUs: Gres=gpu:8 or gpu:h100:8(S:0-1)
  expect=$(scontrol show node -o "$node" 2>/dev/null | grep -oE '(^| )Gres=[^ ]*' | grep -oE 'gpu(:[A-Za-z0-9_.-]+)?:[0-9]+' |
    head -1 | grep -oE '[0-9]+$')
fi

dir=${NODE_CHECK_DIR:-}
if [ -n "$dir" ] && { [ ! -d "$dir" ] || [ ! -w "$dir" ]; }; then
  bad_setting "NODE_CHECK_DIR=$dir: not a writable folder"
fi
if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/node-check.XXXXXX")
  trap 'rm -rf "$dir"' EXIT
fi
child=""
stopped=""
# A TERM or INT to this script (Slurm, a person) stops gpubench the same way, and the folder still goes.
trap 'stopped=SIGTERM; [ -n "$child" ] && kill -TERM "$child" 2>/dev/null' TERM
trap 'stopped=SIGINT; [ -n "$child" ] && kill -TERM "$child" 2>/dev/null' INT
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--gpubench_device=all)
[ -n "$expect" ] && flags+=("--gpubench_expect_gpus=$expect")
[ -n "${NODE_CHECK_HISTORY:-}" ] && export GPUBENCH_HISTORY=$NODE_CHECK_HISTORY  # card.py --check adds the run
timeout -k 2 "$((deadline + 10))" "$gpubench" "--gpubench_preset=${NODE_CHECK_PRESET:-check}" \
  "--benchmark_out=$dir/$node.json" "--gpubench_card=$dir/$node.card" --gpubench_verdict \
  "--gpubench_deadline=$deadline" "${flags[@]}" >"$dir/$node.log" 2>&1 &
child=$!
wait "$child"
status=$?
[ $status -gt 128 ] && kill -0 "$child" 2>/dev/null && { wait "$child"; status=$?; }  # woken by our own trap
child=""
# The verdict's last line: "card.py --check: verdict NAME, exit N, ACTION: LINE" (or gpubench's own, for missing
# and busy).
verdict=$(grep -E "^(card.py --check|gpubench): verdict " "$dir/$node.log" | tail -1)
if [ -z "$verdict" ] && { [ $status -eq 124 ] || [ $status -eq 137 ]; }; then
  incomplete=$(grep -oE '"incomplete", *"exit": *[0-9]+' "$here/verdicts.json" 2>/dev/null | grep -oE '[0-9]+$')
  finish drain "${incomplete:-6}" "incomplete: the check did not end within $((deadline + 10)) s and was stopped"
fi
if [ -z "$verdict" ]; then
  line=$(grep -E "^gpubench: " "$dir/$node.log" | tail -1)
  [ -n "$stopped" ] && line="the check was stopped by $stopped before gpubench gave its verdict (exit $status)${line:+; $line}"
  # No verdict is never "normal": exit 2, which drains nothing (a configuration error, a gpubench that broke).
  finish "" 2 "no verdict: ${line:-gpubench printed nothing (exit $status)}"
fi
verdict=${verdict#*: verdict }
name=${verdict%%,*}
code=$(echo "$verdict" | sed -E 's/^[a-z_]+, exit ([0-9]+), .*/\1/')
action=$(echo "$verdict" | sed -E 's/^[a-z_]+, exit [0-9]+, ([a-z]+): .*/\1/')
if [ -n "${NODE_CHECK_TEXTFILE_DIR:-}" ]; then
  # The node's verdict always; the GPUs' and links' series where the card was made (not for missing or busy).
  card=()
  [ -f "$dir/$node.card.json" ] && card=(--card "$dir/$node.card.json")
  python3 "$here/prometheus.py" "${card[@]}" --verdict "$name" --verdict-exit "$code" --node "$node" \
    --duration "$((SECONDS - started))" --out "$NODE_CHECK_TEXTFILE_DIR/gpubench.prom" >/dev/null 2>"$dir/prom.err" ||
    echo "node_check.sh: no textfile: $(tail -1 "$dir/prom.err")" >&2
fi
drift=$(grep -E "^card.py: history: drift: " "$dir/$node.log" | head -1)
grep -E "^card.py: history: " "$dir/$node.log" | sed 's/^card.py: /node_check.sh: /' >&2
if [ -n "$drift" ] && [ "$action" = keep ] && [ "${NODE_CHECK_DRIFT_DRAINS:-0}" = 1 ]; then
  action=drain
  verdict="$verdict; ${drift#card.py: history: }"
fi
finish "$action" "$code" "${verdict#*: }"
