export OUT
BENCH_TIMEOUT=150 bash .ci/device-run build 'bench:^TensorCore/:--gpubench_preset=full --benchmark_min_time=0.05 --gpubench_card=none' > $OUT/device-run.txt 2>&1
build-gpu/test/gpubench_gpu_tests --gtest_filter='TensorCore*' > $OUT/gtest.txt 2>&1
python3 test/validation/validate_physics.py --json $OUT/run1.json > $OUT/validate.txt 2>&1
tail -3 $OUT/gtest.txt; tail -1 $OUT/validate.txt; grep -E "rows run|bench1:|NVIDIA" $OUT/device-run.txt | head -4
