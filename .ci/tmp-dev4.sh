export OUT
bash .ci/device-run suite > $OUT/device-run.txt 2>&1
python3 test/validation/validate_physics.py --json $OUT/suite.json > $OUT/validate.txt 2>&1
tail -1 $OUT/validate.txt; grep -E "rows run in|suite:" $OUT/device-run.txt | head -3; grep -A25 "## Tensor cores" $OUT/card.md
