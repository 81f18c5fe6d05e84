export OUT
GTEST_FILTER='ClusterKernels*:AsyncCopyKernels*' bash .ci/device-run build test sass sanitize > $OUT/device-run.txt 2>&1
grep -A40 "=== summary" $OUT/device-run.txt
export PATH=$PATH:/usr/local/cuda/bin
python3 test/audit/loop_audit.py --sass-of build-gpu/gpubench > $OUT/audit.txt 2>&1; grep -E "dsmem|smem|tma|cp_async|load_store|rules" $OUT/audit.txt
build-gpu/test/gpubench_gpu_tests --gtest_filter='ClusterKernels*:AsyncCopyKernels*' > $OUT/gtest-new.txt 2>&1; grep -E "OK|FAILED|sizes|PASSED" $OUT/gtest-new.txt
timeout 300 build-gpu/gpubench --benchmark_filter='^(Cluster|AsyncCopy)/' --gpubench_preset=full --benchmark_min_time=0.05 --benchmark_out=$OUT/full.json --gpubench_card=none > $OUT/full.txt 2>&1
grep -E "rows run|ERROR" $OUT/full.txt | head
grep -E "^AsyncCopy/(load|copy_latency|mbarrier|tma_latency/bytes:2097152/tile:128/)" $OUT/full.txt | sed -E 's/ +[0-9]+ ns +[0-9]+ ns +[0-9]+ / /' | cut -c1-160
