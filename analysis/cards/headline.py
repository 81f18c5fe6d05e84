"""A GPU's headline values, one list for the node card (the GPUs side by side) and the fleet's table: (label, card
value key, scale, unit of the scaled value). Which way each is worse is its card value's `better`, never restated."""

HEADLINE = (("DRAM read", "bandwidth.stream_read.bytes_per_second", 1e-12, "TB/s"),
            ("DRAM read, of theoretical", "bandwidth.stream_read.fraction", 100, "%"),
            ("DRAM copy", "bandwidth.stream_copy.bytes_per_second", 1e-12, "TB/s"),
            ("L2 read", "bandwidth.l2.bytes_per_second", 1e-12, "TB/s"),
            ("L1 latency", "memory.l1.cycles", 1, "cycles"),
            ("L2 latency", "memory.l2.cycles", 1, "cycles"),
            ("DRAM latency", "memory.dram.cycles", 1, "cycles"),
            ("FP32 FMA, of peak", "compute.ffma.fraction_of_peak", 100, "%"),
            ("wgmma FP16, of peak", "compute.tensor.wgmma.f16_f32_ss", 100, "%"),
            ("FP32 FMA, worst SM", "sm_map.fma.worst_vs_median", 1, "of the median"),
            ("L2 latency, worst SM", "sm_map.l2_latency.worst_vs_median", 1, "of the median"),
            ("peer copy", "peer.copy_to", 1e-9, "GB/s"),
            ("host to GPU, alone", "host_link.to_gpu", 1e-9, "GB/s"),
            ("GPU to host, alone", "host_link.to_host", 1e-9, "GB/s"),
            ("host to GPU, every GPU at once", "host_link.together_to_gpu", 1e-9, "GB/s"),
            ("GPU to host, every GPU at once", "host_link.together_to_host", 1e-9, "GB/s"),
            ("GEMM under burn", "burn.gemm_tflops", 1, "TFLOP/s"),
            ("power under burn", "burn.power_w", 1, "W"),
            ("hottest under burn", "burn.temperature_c_max", 1, "C"))
