export OUT
bash .ci/device-run build test > $OUT/device-run.txt 2>&1; rm -f $OUT/run-logs.tar.gz
grep -A12 "=== summary" $OUT/device-run.txt | grep -E "build|configure|tests passed|Failed"
build-gpu/gpubench --benchmark_filter='^Energy/' --gpubench_preset=full --benchmark_out=$OUT/energy.json --gpubench_card=none > $OUT/energy.txt 2>&1; grep -E "rows run|ERROR|warning" $OUT/energy.txt
build-gpu/gpubench '--benchmark_filter=^(TensorCore/wgmma_f16_f32_ss/n:256/warpgroups:2/|Stream/read/bytes_per_thread:16/unroll:4/blocks_per_sm:8/MiB:2048|PointerChase/direct/bytes:16384/)' --benchmark_min_time=1s --benchmark_out=$OUT/power-long.json --gpubench_card=none > $OUT/power-long.txt 2>&1; grep -E "rows run|ERROR" $OUT/power-long.txt
python3 -c "
import json
for f in ('energy','power-long'):
  for x in json.load(open('$OUT/'+f+'.json'))['benchmarks']:
    print(x['name'][:60], {k: round(x[k],2) for k in ('pj_per_flop','pj_per_bit','pj_min','pj_max','energy_power_w','active_idle_power_w','idle_power_w','sm_mhz','power_w','power_limit_w','power_capped','clock_reasons') if k in x}, x.get('label',''))
"
python3 test/validation/validate_physics.py --json $OUT/energy.json | tail -1
python3 analysis/card.py $OUT/energy.json --out $OUT/card-energy > /dev/null 2>&1
