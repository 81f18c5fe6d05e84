export OUT
GTEST_FILTER='ClusterKernels*:AsyncCopyKernels*' bash .ci/device-run build sass sanitize > $OUT/device-run.txt 2>&1
grep -A30 "=== summary" $OUT/device-run.txt | grep -E "build|PASSED|SUMMARY|kernels"
export PATH=$PATH:/usr/local/cuda/bin
python3 test/audit/loop_audit.py --sass-of build-gpu/gpubench > $OUT/audit.txt 2>&1; tail -1 $OUT/audit.txt
build-gpu/test/gpubench_gpu_tests --gtest_filter='ClusterKernels*:AsyncCopyKernels*' 2>&1 | grep -E "PASSED|FAILED"
build-gpu/gpubench --benchmark_filter='^(Cluster|AsyncCopy)/' --benchmark_out=$OUT/quick.json --gpubench_card=none > $OUT/quick.txt 2>&1
grep -E "rows run|ERROR" $OUT/quick.txt
python3 analysis/card.py $OUT/quick.json --out $OUT/card-quick > /dev/null 2>&1; grep -E "cluster of 16|TMA tile load from|cp.async.ca 16" $OUT/card-quick.md | cut -c1-200
rm -f $OUT/*.sass
