export OUT
bash .ci/device-run build > $OUT/device-run.txt 2>&1
grep -A8 "=== summary" $OUT/device-run.txt
build-gpu/test/gpubench_gpu_tests --gtest_filter='ClusterKernels*:AsyncCopyKernels*' 2>&1 | grep -E "OK|FAILED|sizes|PASSED"
timeout 300 build-gpu/gpubench --benchmark_filter='^(Cluster|AsyncCopy)/' --gpubench_preset=full --benchmark_min_time=0.05 --benchmark_out=$OUT/full-h200.json --gpubench_card=none > $OUT/full-h200.txt 2>&1
grep -E "rows run|ERROR" $OUT/full-h200.txt | head
python3 analysis/card.py $OUT/full-h200.json --out $OUT/card-full-h200 > /dev/null 2>&1
rm -f $OUT/*.sass; ls $OUT
