export OUT
bash .ci/device-run build test > $OUT/device-run.txt 2>&1; rm -f $OUT/run-logs.tar.gz
grep -A12 "=== summary" $OUT/device-run.txt | grep -E "build|tests passed|Failed"
GTEST_FILTER='EnergyKernels*' bash .ci/device-run sanitize > $OUT/sanitize.txt 2>&1; rm -f $OUT/run-logs.tar.gz
grep -E "PASSED|SUMMARY" $OUT/sanitize.txt | head -12
