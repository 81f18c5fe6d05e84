// Traffic an experiment should move at best (each input read once, each output written once), and
// the counters derived from it: bytes per element and measured / ideal ("normalized") traffic.
#pragma once

#include <map>
#include <string>

namespace gpubench {

struct IdealTraffic {
  double elements = 0.0;
  double read_bytes = 0.0;
  double write_bytes = 0.0;
};

// From measured byte counters (name -> value), e.g. l2_read_bytes, adds <name>_per_element and,
// where the ideal is non-zero, l2_read_normalized = l2_read_bytes / ideal read bytes (likewise
// dram_read, and the writes). Counters absent from `measured` are skipped.
std::map<std::string, double> derive_traffic_counters(const std::map<std::string, double>& measured,
                                                      const IdealTraffic& ideal);

}  // namespace gpubench
