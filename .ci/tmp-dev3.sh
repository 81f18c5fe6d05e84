export OUT
bash .ci/device-run build test suite > $OUT/device-run.txt 2>&1
grep -A30 "=== summary" $OUT/device-run.txt
grep -E "Cluster|AsyncCopy" $OUT/card.md | cut -c1-250
