#!/usr/bin/env bash
# calibration.txt, from the committed runs, judged by analysis/cards/noise_model.json as committed. Run from the
# repository's root. FULL: a folder holding the runs that live in git history (the full preset's sweeps,
# runs/h100-51671b69-full-*.json, and runs/h100m-new-quick-fixed-1.json):
# git show 076188c:docs/results/2026-11-26-precision/raw.tar.xz | tar xJ -C FOLDER runs/
set -uo pipefail
R=docs/results/2026-11-26-precision/raw.tar.xz/runs
N=docs/results/2026-11-26-node-production/raw.tar.xz
cal() { python3 test/validation/precision_calibration.py "$@"; }
echo "# docs/results/2026-11-26-precision/calibration.txt: made by calibrate.sh (test/validation/precision_calibration.py)"
echo "# with analysis/cards/noise_model.json as committed (made from every rule run below and the node runs of"
echo "# 2026-11-26-node-production), unless a section says otherwise"
for b in h100-d5ab3546:h200-4f1a8ff9 h200-4f1a8ff9:h100-d5ab3546; do
  board=${b%%:*}
  echo; echo "## $board: same answers (quick, rule vs fixed effort), repeatability (6 check runs), planted busy SM 17"
  cal --fixed $R/$board-quick-fixed-1.json $R/$board-quick-fixed-1.json --new $R/$board-quick-1.json $R/$board-quick-2.json \
    --repeats $R/$board-check-?.json --fault $R/$board-check-busy-1.json
done
echo; echo "## Across boards of one SKU: every check run of one board against every check run of the other"
cal --repeats $R/h100-d5ab3546-check-?.json --across $R/h100m-new-check-m-?.json | grep '^compare across'
cal --repeats $R/h200-4f1a8ff9-check-?.json --across $R/h200m-new-check-m-?.json | grep '^compare across'
echo; echo "## H100 a6e13cdd and H200 9a4ba855 (earlier rule: quick 0.1-0.3 s): same answers, repeatability (6 check runs)"
cal --fixed "${FULL:-/nonexistent}/runs/h100m-new-quick-fixed-1.json" --new $R/h100m-new-quick-m-1.json 2>/dev/null
cal --repeats $R/h100m-new-check-m-?.json
cal --repeats $R/h200m-new-check-m-?.json
echo; echo "## Boards no calibration saw (2026-11-26, session 14): H100 eb10873e, 12 check runs in two device calls; H200 9f5ee142, 6"
cal --repeats $R/h100-eb10873e-check-{1,2,3,4,5,6,7,8,9,10,11,12}.json
cal --repeats $R/h200-9f5ee142-check-?.json
echo; echo "## Boards no calibration saw, on the session-15 model: H100 0b23357e (one call), H100s a58a037b and 0f9004ee (one call, one host)"
cal --repeats $R/h100-0b23357e-check-?.json --fault $R/h100-0b23357e-check-busy-1.json \
  --across $R/h100-d5ab3546-check-?.json
cal --repeats $R/h100-0b23357e-check-?.json --across $R/h100-eb10873e-check-?.json | grep '^compare across'
cal --repeats $R/h100-a58a037b-check-?.json --fault $R/h100-a58a037b-check-busy-1.json \
  --across $R/h100-0f9004ee-check-?.json
cal --repeats $R/h100-0f9004ee-check-?.json
echo; echo "## A board no calibration saw, on the session-15 model: H200 28854b7e (one call)"
cal --repeats $R/h200-28854b7e-check-?.json --fault $R/h200-28854b7e-check-busy-1.json \
  --across $R/h200-4f1a8ff9-check-?.json
cal --repeats $R/h200-28854b7e-check-?.json --across $R/h200-9f5ee142-check-?.json | grep '^compare across'
echo; echo "## Quick runs across boards (README command 1's preset): H100 d5ab3546 and a6e13cdd (2 each) and a58a037b (1, no calibration saw it); H200 4f1a8ff9 and 9a4ba855"
cal --repeats $R/h100-d5ab3546-quick-?.json --across $R/h100m-new-quick-m-?.json | grep '^compare across'
cal --repeats $R/h100-d5ab3546-quick-?.json $R/h100m-new-quick-m-?.json --across $R/h100-a58a037b-quick-1.json | grep '^compare across'
cal --repeats $R/h200-4f1a8ff9-quick-?.json --across $R/h200m-new-quick-m-?.json | grep '^compare across'
echo; echo "## Leave one board out: each board's check runs judged by floors and deviations made from the other boards' runs"
cal --leave-one-board-out $R/h100m-new-*-m-?.json $R/h200m-new-*-m-?.json $R/h100-d5ab3546-check-?.json \
  $R/h100-d5ab3546-quick-?.json $R/h200-4f1a8ff9-check-?.json $R/h200-4f1a8ff9-quick-?.json $N/runs/x4-alone-?.json \
  $N/runs/x4-node-?.json $N/runs-s15/x4h-t-alone-?.json $N/runs-s15/x4h-t-node-1.json $N/runs-turns/x4f-t-alone-?.json \
  $N/runs-turns/x4f-t-node-1.json $N/runs-x4g/x4g-t-alone-?.json $N/runs-x4g/x4g-t-node-?.json
if [ -n "${FULL:-}" ]; then
  echo; echo "## The full preset's sweeps against fixed effort, same board and call (H100 51671b69): TensorCore, Stream, PointerChase"
  for f in TensorCore Stream PointerChase; do
    cal --fixed "$FULL/runs/h100-51671b69-full-$f-fixed.json" --new "$FULL/runs/h100-51671b69-full-$f.json"
  done
fi
