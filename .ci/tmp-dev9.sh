export OUT
bash .ci/device-run build > $OUT/device-run.txt 2>&1; rm -f $OUT/run-logs.tar.gz
grep -A6 "=== summary" $OUT/device-run.txt | grep -E "build|configure"
build-gpu/test/gpubench_cpu_tests --gtest_filter='Energy*:PowerWindow*' 2>&1 | grep -E "PASSED|FAILED"
export PATH=$PATH:/usr/local/cuda/bin
cuobjdump -sass build-gpu/gpubench | awk '/Function :/{show = ($0 ~ /(fma_work|read_work)/)} show' | sed -E 's@ +/\* 0x[0-9a-f]+ \*/@@' > $OUT/energy.sass
grep -c "DFMA\|FFMA" $OUT/energy.sass
for r in 1 2; do build-gpu/gpubench --benchmark_filter='^Energy/' --gpubench_preset=full --benchmark_out=$OUT/energy-$r.json --gpubench_card=none > $OUT/energy-$r.txt 2>&1; grep -E "rows run|ERROR|warning" $OUT/energy-$r.txt; done
for r in 1 2; do python3 -c "
import json
for x in json.load(open('$OUT/energy-$r.json'))['benchmarks']:
    print(x['name'][:32], {k: round(x[k],3) for k in ('pj_per_flop','pj_per_bit','pj_min','pj_max','energy_power_w','idle_power_w','active_idle_power_w','sm_mhz','power_w') if k in x}, x.get('label',''))
"; done
python3 test/validation/validate_physics.py --json $OUT/energy-1.json | tail -12
python3 analysis/card.py $OUT/energy-1.json --out $OUT/card-energy > /dev/null 2>&1; grep -A14 "## Energy" $OUT/card-energy.md
