#include "common/traffic.h"

namespace gpubench {

std::map<std::string, double> derive_traffic_counters(const std::map<std::string, double>& measured,
                                                      const IdealTraffic& ideal) {
  struct ByteCounter {
    const char* name;
    const char* normalized;
    bool is_read;
  };
  static constexpr ByteCounter kByteCounters[] = {
      {"l2_read_bytes", "l2_read_normalized", true},
      {"l2_write_bytes", "l2_write_normalized", false},
      {"dram_read_bytes", "dram_read_normalized", true},
      {"dram_write_bytes", "dram_write_normalized", false},
  };
  std::map<std::string, double> derived;
  for (const ByteCounter& counter : kByteCounters) {
    const auto found = measured.find(counter.name);
    if (found == measured.end()) continue;
    if (ideal.elements > 0.0) derived[std::string(counter.name) + "_per_element"] = found->second / ideal.elements;
    const double ideal_bytes = counter.is_read ? ideal.read_bytes : ideal.write_bytes;
    if (ideal_bytes > 0.0) derived[counter.normalized] = found->second / ideal_bytes;
  }
  // Instructions per element: every lane's instructions over the elements (the homework's I/el).
  if (const auto insns = measured.find("thread_inst_executed"); insns != measured.end() && ideal.elements > 0.0)
    derived["insn_per_element"] = insns->second / ideal.elements;
  return derived;
}

}  // namespace gpubench
