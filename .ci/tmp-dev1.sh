export OUT
bash .ci/device-run build > $OUT/device-run.txt 2>&1
tail -5 $OUT/device-run.txt
export PATH=$PATH:/usr/local/cuda/bin
timeout 120 build-gpu/test/gpubench_gpu_tests --gtest_filter='ClusterKernels*:AsyncCopyKernels*:PointerChase*:Stream*' 2>&1 | grep -E "OK|FAILED|Failure|Expected|Which|actual|SKIP|sizes|error|passed" | head -40
cuobjdump -sass build-gpu/gpubench > /tmp/all.sass 2>&1
awk '/Function :/{show = ($0 ~ /(dsmem_|tma_chase|tma_stream|copy_chase|copy_stream|pointer_chaseILNS0_8LoadPathE1ELj128)/)} show' /tmp/all.sass | sed -E 's@ +/\* 0x[0-9a-f]+ \*/@@' > $OUT/async.sass
grep -c "Function" $OUT/async.sass
python3 test/audit/loop_audit.py --sass /tmp/all.sass 2>&1 | tail -3
BENCH_TIMEOUT=400 timeout 420 build-gpu/gpubench --benchmark_filter='^(Cluster|AsyncCopy)/' --gpubench_preset=full --benchmark_min_time=0.05 --benchmark_out=$OUT/full.json --gpubench_card=none > $OUT/full.txt 2>&1
grep -E "rows run|ERROR|error" $OUT/full.txt | head -20
grep -E "^(Cluster|AsyncCopy)" $OUT/full.txt | cut -c1-230 | head -400
