export OUT
bash .ci/device-run build test sass suite > $OUT/device-run.txt 2>&1
grep -A30 "=== summary" $OUT/device-run.txt | grep -v "Skipped\|Start"
grep -E "no SASS|warning" $OUT/device-run.txt | head -3
export PATH=$PATH:/usr/local/cuda/bin
python3 test/audit/loop_audit.py --sass-of build-gpu/gpubench > $OUT/sass-audit.txt 2>&1; tail -1 $OUT/sass-audit.txt
