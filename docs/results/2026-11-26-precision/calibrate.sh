#!/usr/bin/env bash
# calibration.txt, from the committed runs, judged by analysis/cards/noise_model.json as committed. Run from the
# repository's root. FULL: a folder holding the full preset's sweep runs (runs/h100-51671b69-full-*.json), which
# live in git history: git show 076188c:docs/results/2026-11-26-precision/raw.tar.xz | tar xJ -C FOLDER runs/
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
cal --fixed $R/h100m-new-quick-fixed-1.json --new $R/h100m-new-quick-m-1.json --repeats $R/h100m-new-check-m-?.json
cal --repeats $R/h200m-new-check-m-?.json
echo; echo "## Leave one board out: each board's check runs judged by floors and deviations made from the other boards' runs"
cal --leave-one-board-out $R/h100m-new-*-m-?.json $R/h200m-new-*-m-?.json $R/h100-d5ab3546-check-?.json \
  $R/h100-d5ab3546-quick-?.json $R/h200-4f1a8ff9-check-?.json $R/h200-4f1a8ff9-quick-?.json $N/runs/x4-alone-?.json \
  $N/runs/x4-node-?.json $N/runs/x4b-alone-?.json $N/runs/x4b-node-1.json $N/runs-turns/x4f-t-alone-?.json \
  $N/runs-turns/x4f-t-node-1.json $N/runs-x4g/x4g-t-alone-?.json $N/runs-x4g/x4g-t-node-?.json
if [ -n "${FULL:-}" ]; then
  echo; echo "## The full preset's sweeps against fixed effort, same board and call (H100 51671b69): TensorCore, Stream, PointerChase"
  for f in TensorCore Stream PointerChase; do
    cal --fixed "$FULL/runs/h100-51671b69-full-$f-fixed.json" --new "$FULL/runs/h100-51671b69-full-$f.json"
  done
fi
