export OUT
BENCH_TIMEOUT=200 NCU_COMPARE_ARGS="--only TensorCore --protocol ncu-flush" bash .ci/device-run build test sass 'bench:^TensorCore/:--gpubench_preset=full --benchmark_min_time=0.05 --gpubench_card=none' ncu > $OUT/device-run.txt 2>&1
python3 test/audit/loop_audit.py --sass-of build-gpu/gpubench > $OUT/audit.txt 2>&1
grep -E "tests passed|FAILED|Failed" $OUT/device-run.txt | head; tail -25 $OUT/audit.txt | grep -v "^ok"; grep -A12 "=== summary" $OUT/device-run.txt
