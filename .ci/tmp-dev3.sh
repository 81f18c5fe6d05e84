export OUT
BENCH_TIMEOUT=150 bash .ci/device-run build 'bench:^TensorCore/:--gpubench_preset=full --benchmark_min_time=0.05 --gpubench_card=none' > $OUT/device-run.txt 2>&1
TAG=san GTEST_FILTER='TensorCore*' timeout 330 bash .ci/device-run sanitize > $OUT/sanitize.txt 2>&1
python3 test/validation/validate_physics.py --json $OUT/run1.json > $OUT/validate.txt 2>&1
tail -1 $OUT/validate.txt; grep -E "rows run|bench1:" $OUT/device-run.txt; grep -A20 "=== summary" $OUT/sanitize.txt
