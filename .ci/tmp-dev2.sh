#!/usr/bin/env bash
# Temporary (#27): the Energy rows twice, and what each NVML call a row makes costs.
set -u
export OUT=${OUT:-$PWD/build-gpu/out}
python3 - <<'PY' | tee "$OUT/nvml_call_cost.txt"
import ctypes, time
nvml = ctypes.CDLL("libnvidia-ml.so.1")
assert nvml.nvmlInit_v2() == 0
handle = ctypes.c_void_p()
nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle))
u64, u32, violation = ctypes.c_ulonglong(), ctypes.c_uint(), (ctypes.c_ulonglong * 2)()
for name, call, args in (("TotalEnergyConsumption", nvml.nvmlDeviceGetTotalEnergyConsumption, (ctypes.byref(u64),)),
                         ("PowerUsage", nvml.nvmlDeviceGetPowerUsage, (ctypes.byref(u32),)),
                         ("EnforcedPowerLimit", nvml.nvmlDeviceGetEnforcedPowerLimit, (ctypes.byref(u32),)),
                         ("CurrentClocksEventReasons", nvml.nvmlDeviceGetCurrentClocksEventReasons, (ctypes.byref(u64),)),
                         ("ViolationStatus(power)", nvml.nvmlDeviceGetViolationStatus, (0, ctypes.byref(violation))),
                         ("ViolationStatus(thermal)", nvml.nvmlDeviceGetViolationStatus, (1, ctypes.byref(violation)))):
    start = time.perf_counter()
    for _ in range(100):
        status = call(handle, *args)
    print(f"{name}: {(time.perf_counter() - start) * 10:.3f} ms per call (status {status})")
PY
.ci/device-run build "bench:^Energy/:--gpubench_preset=full --gpubench_card=none" "bench:^Energy/:--gpubench_preset=full --gpubench_card=none"
cd "$OUT" && tar czf logs.tar.gz logs && rm -rf logs
