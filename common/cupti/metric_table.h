// The one place that maps gpubench's counter names to Perfworks metrics (what Nsight Compute and
// CUPTI call them), with the scale, unit and meaning of each. docs/counters.md mirrors this table.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpubench {

struct MetricSpec {
  const char* name;       // the user counter, e.g. "l2_read_bytes"
  const char* perfworks;  // e.g. "lts__t_sectors_srcunit_tex_op_read.sum"
  double scale;           // counter = metric value * scale (sectors -> bytes: 32)
  const char* unit;
  const char* description;
  const char* per = nullptr;       // when set: counter = perfworks * scale / per (a ratio of two counts)
  const char* per_plus = nullptr;  // when set too: the denominator is per + per_plus
};

const std::vector<MetricSpec>& metric_table();

// nullptr when no counter has that name.
const MetricSpec* find_metric(const std::string& name);

// The Perfworks metrics these counters need, each once, in first-use order.
std::vector<std::string> perfworks_metrics(const std::vector<const MetricSpec*>& specs);

// Counter values from metric values collected in the order of `metrics`. A ratio whose denominator
// counted nothing is left out (a hit rate of no accesses is not 0%).
std::map<std::string, double> counter_values(const std::vector<const MetricSpec*>& specs,
                                             const std::vector<std::string>& metrics,
                                             const std::vector<double>& values);

// "l2_read_bytes, l2_write_bytes, ..." for messages and --help.
std::string metric_names_list();

}  // namespace gpubench
