#include "common/cupti/metric_table.h"

#include <algorithm>
#include <stdexcept>

namespace gpubench {

const std::vector<MetricSpec>& metric_table() {
  // Perfworks names as Nsight Compute lists them (ncu --query-metrics); sectors are 32 bytes.
  static const std::vector<MetricSpec> table = {
      {"l2_read_bytes", "lts__t_sectors_srcunit_tex_op_read.sum", 32.0, "bytes",
       "L2 read traffic requested by the SMs (L1/TEX misses and uncached loads), in 32-byte sectors"},
      // With l2_read_bytes: where SMs read the same lines at once, the SMs receive more than the L2
      // slices read (requests merged on the way, before the slices).
      {"sm_received_read_bytes", "l1tex__m_xbar2l1tex_read_bytes.sum", 1.0, "bytes",
       "read bytes the SMs' L1/TEX units received over the crossbar from L2"},
      // Where: Hopper's L2 request coalescer (LRC), between the crossbar and the slices.
      {"l2_coalesced_read_sectors", "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum", 1.0,
       "sectors",
       "SM read sectors the L2 request coalescer merged with a request for the same sector, so the "
       "L2 slices read them once"},
      {"l2_write_bytes", "lts__t_sectors_srcunit_tex_op_write.sum", 32.0, "bytes",
       "L2 write traffic from the SMs, in 32-byte sectors"},
      {"dram_read_bytes", "dram__bytes_read.sum", 1.0, "bytes", "bytes read from device memory (HBM/GDDR)"},
      {"dram_write_bytes", "dram__bytes_write.sum", 1.0, "bytes", "bytes written to device memory"},
      // Not a default of the Peer rows: Nsight Compute lists these for GH100, but CUPTI's range profiler
      // refuses them there (CUPTI_ERROR_UNKNOWN, two H200, driver 580); add them with --gpubench_counters.
      {"nvlink_tx_bytes", "nvltx__bytes.sum", 1.0, "bytes",
       "bytes this GPU sent over its NVLink links (all links; payload and protocol)"},
      {"nvlink_rx_bytes", "nvlrx__bytes.sum", 1.0, "bytes",
       "bytes this GPU received over its NVLink links (all links; payload and protocol)"},
      {"shared_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 1.0, "conflicts",
       "extra shared-memory wavefronts caused by bank conflicts, loads and stores"},
      {"shared_ld_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1.0, "conflicts",
       "bank conflicts of shared-memory loads"},
      {"shared_st_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 1.0, "conflicts",
       "bank conflicts of shared-memory stores"},
      {"shared_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", 1.0, "wavefronts",
       "shared-memory data-pipe wavefronts (one per conflict-free warp access)"},
      {"shared_ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1.0, "wavefronts",
       "shared-memory data-pipe wavefronts of loads only"},
      {"global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1.0, "sectors",
       "32-byte sectors requested by global loads at L1/TEX"},
      {"global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1.0, "requests",
       "warp-level global load requests at L1/TEX"},
      {"sectors_per_request", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1.0, "sectors",
       "32-byte sectors per warp-level global load request (4 when a warp reads 128 contiguous bytes)",
       "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
      {"conflicts_per_load", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1.0, "conflicts",
       "shared-memory load bank conflicts per warp-level shared load instruction (k-way: k - 1)",
       "smsp__inst_executed_op_shared_ld.sum"},
      {"l1_hit_rate", "l1tex__t_sector_hit_rate.pct", 1.0, "%", "L1/TEX sector hit rate"},
      // Not lts__t_sector_hit_rate: that counts every L2 client, not only the SMs, and read 52-116% for
      // single-thread pointer chases on an H100 (60% for one whose every load went to DRAM). Nor hits over
      // the SMs' read sectors: lookups are not requests (on an H100 a load of a far-partition line made two
      // missed lookups, a near hit one), so that ratio read 100.5% once. Hits over hits + misses cannot.
      {"l2_hit_rate", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", 100.0, "%",
       "share of the SMs' L2 read lookups that hit (hits / (hits + misses))",
       "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"},
      {"l2_read_hit_sectors", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", 1.0, "sectors",
       "SM read sectors that hit in L2 (l2_hit_rate's numerator)"},
      {"l2_read_miss_sectors", "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", 1.0, "sectors",
       "SM read sectors that missed in L2"},
      {"l2_fabric_sectors", "lts__t_sectors_srcunit_ltcfabric.sum", 1.0, "sectors",
       "sectors L2 slices received over the fabric between the two L2 partitions, every operation (Hopper)"},
      {"l2_far_read_hit_sectors", "lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum", 1.0, "sectors",
       "read sectors that came over the fabric and hit in the far L2 partition (far-L2 hits, Hopper)"},
      {"inst_executed", "smsp__inst_executed.sum", 1.0, "warp instructions", "warp-level instructions executed"},
      {"thread_inst_executed", "smsp__thread_inst_executed.sum", 1.0, "thread instructions",
       "thread-level instructions executed (active lanes summed)"},
      {"active_lanes_per_inst", "smsp__thread_inst_executed.sum", 1.0, "lanes",
       "active lanes per warp instruction (32 without divergence, about 32 / paths with it)",
       "smsp__inst_executed.sum"},
      {"branch_uniformity", "smsp__sass_average_branch_targets_threads_uniform.pct", 1.0, "%",
       "branches whose active threads all took the same target (Nsight Compute's branch efficiency)"},
      {"fp32_pipe_utilization", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 1.0, "%",
       "cycles the FMA pipe was busy, of its peak over the SMs' active cycles"},
      {"issue_utilization", "sm__inst_issued.avg.pct_of_peak_sustained_active", 1.0, "%",
       "instructions issued, of the issue slots of the SMs' active cycles"},
      {"l2_utilization", "lts__t_sectors.avg.pct_of_peak_sustained_elapsed", 1.0, "%",
       "L2 sectors served, of the L2's peak over the launch"},
      {"dram_utilization", "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1.0, "%",
       "DRAM throughput, of its peak over the launch"},
      {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", 1.0, "%",
       "active warps over the maximum, averaged over active cycles"},
      {"sm_cycles_active", "sm__cycles_active.avg", 1.0, "cycles",
       "cycles an SM had at least one warp, averaged over SMs"},
      // The tensor cores (TensorCore rows): exact counts, equal to Nsight Compute's (compare_ncu).
      {"tensor_inst_executed", "sm__inst_executed_pipe_tensor.sum", 1.0, "warp instructions",
       "warp-level instructions the tensor pipe executed: HMMA, IMMA, DMMA, and wgmma's HGMMA/QGMMA/IGMMA (a "
       "wgmma counts once per warp of its warpgroup: 4)"},
      {"tensor_pipe_utilization", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 1.0, "%",
       "cycles the tensor pipe was busy, of its peak over the SMs' active cycles"},
      {"tensor_ops_f16", "sm__ops_path_tensor_src_fp16.sum", 1.0, "ops",
       "tensor-core operations with FP16 inputs, (2 per multiply-add; mma.sync and wgmma)"},
      {"tensor_ops_bf16", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", 1.0, "ops",
       "tensor-core operations with BF16 inputs and FP32 accumulators (2 per multiply-add)"},
      {"tensor_ops_tf32", "sm__ops_path_tensor_src_tf32_dst_fp32.sum", 1.0, "ops",
       "tensor-core operations with TF32 inputs (2 per multiply-add)"},
      {"tensor_ops_fp8", "sm__ops_path_tensor_src_fp8.sum", 1.0, "ops",
       "tensor-core operations with FP8 (E4M3 or E5M2) inputs (2 per multiply-add)"},
      {"tensor_ops_s8", "sm__ops_path_tensor_src_int8.sum", 1.0, "ops",
       "tensor-core operations with INT8 inputs (2 per multiply-add)"},
      {"tensor_ops_f64", "sm__ops_path_tensor_src_fp64.sum", 1.0, "ops",
       "tensor-core operations with FP64 inputs (DMMA; 2 per multiply-add)"},
  };
  return table;
}

const MetricSpec* find_metric(const std::string& name) {
  for (const MetricSpec& spec : metric_table())
    if (name == spec.name) return &spec;
  return nullptr;
}

std::vector<std::string> perfworks_metrics(const std::vector<const MetricSpec*>& specs) {
  std::vector<std::string> metrics;
  const auto add = [&](const char* metric) {
    if (metric != nullptr && std::find(metrics.begin(), metrics.end(), metric) == metrics.end())
      metrics.emplace_back(metric);
  };
  for (const MetricSpec* spec : specs) {
    add(spec->perfworks);
    add(spec->per);
    add(spec->per_plus);
  }
  return metrics;
}

std::map<std::string, double> counter_values(const std::vector<const MetricSpec*>& specs,
                                             const std::vector<std::string>& metrics,
                                             const std::vector<double>& values) {
  const auto value_of = [&](const char* metric) {
    const auto at = std::find(metrics.begin(), metrics.end(), metric);
    if (at == metrics.end()) throw std::invalid_argument(std::string("metric ") + metric + " was not collected");
    return values.at(static_cast<std::size_t>(at - metrics.begin()));
  };
  std::map<std::string, double> counters;
  for (const MetricSpec* spec : specs) {
    const double value = value_of(spec->perfworks) * spec->scale;
    if (spec->per == nullptr) {
      counters[spec->name] = value;
    } else if (const double denominator = value_of(spec->per) + (spec->per_plus ? value_of(spec->per_plus) : 0.0);
               denominator > 0.0) {
      counters[spec->name] = value / denominator;
    }
  }
  return counters;
}

std::string metric_names_list() {
  std::string list;
  for (const MetricSpec& spec : metric_table()) {
    if (!list.empty()) list += ", ";
    list += spec.name;
  }
  return list;
}

}  // namespace gpubench
