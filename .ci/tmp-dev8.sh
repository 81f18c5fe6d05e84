export OUT
bash .ci/device-run build > $OUT/device-run.txt 2>&1
grep -A6 "=== summary" $OUT/device-run.txt | grep -E "build|configure"
tar xzf $OUT/run-logs.tar.gz -C /tmp && grep -E "NVML|nvml" /tmp/logs/configure.log
build-gpu/test/gpubench_cpu_tests --gtest_filter='PowerWindow*:BuildArch*' 2>&1 | grep -E "PASSED|FAILED"
build-gpu/test/gpubench_gpu_tests --gtest_filter='Harness*' 2>&1 | grep -E "PASSED|FAILED"
build-gpu/gpubench '--benchmark_filter=^(TensorCore/wgmma_f16_f32_ss/n:256/warpgroups:2/|PointerChase/direct/bytes:16384/|Stream/read/)' --benchmark_min_time=2s --benchmark_out=$OUT/power.json --gpubench_card=none > $OUT/power.txt 2>&1
grep -E "warning|rows run" $OUT/power.txt
python3 -c "
import json
for r in json.load(open('$OUT/power.json'))['benchmarks']:
    print(r['name'][:70], {k: r.get(k) for k in ('power_w','power_limit_w','clock_reasons','power_capped','thermal_capped','sm_mhz','label')})
"
build-gpu/gpubench --benchmark_filter='^Divergence/' --benchmark_out=$OUT/quick-div.json --gpubench_card=none 2>&1 | grep -E "warning|rows run"
python3 -c "
import json
for r in json.load(open('$OUT/quick-div.json'))['benchmarks'][:4]:
    print(r['name'][:50], {k: r.get(k) for k in ('power_w','power_limit_w','clock_reasons','real_time')})
"
