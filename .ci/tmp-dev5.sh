export OUT
bash .ci/device-run suite > $OUT/device-run.txt 2>&1
grep -E "rows run|no SASS" $OUT/device-run.txt
cd $OUT && rm -f tensor_core.sass register_banks.sass card-latency.png && ls
