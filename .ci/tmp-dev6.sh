export OUT
bash .ci/device-run build > $OUT/device-run.txt 2>&1
build-gpu/test/gpubench_gpu_tests --gtest_filter='TensorCore*' 2>&1 | tail -3
build-gpu/gpubench --benchmark_filter='^TensorCore/(mma_sync_(f16_f32|e4m3_f32)|wgmma_f16_f32_ss)/' --benchmark_out=$OUT/quick.json --gpubench_card=none 2>&1 | grep -E "TensorCore|rows run" | cut -c1-200
cmake -S . -B build-90 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real > /dev/null && cmake --build build-90 -j16 --target gpubench > /dev/null 2>&1
build-90/gpubench --benchmark_filter='^TensorCore/wgmma_latency_f16_f32_ss/n:256' --gpubench_card=none 2>&1 | grep -E "TensorCore|rows run" | cut -c1-250
