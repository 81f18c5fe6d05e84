// The one place that maps gpubench's counter names to Perfworks metrics (what Nsight Compute and
// CUPTI call them), with the scale, unit and meaning of each. docs/counters.md mirrors this table.
#pragma once

#include <string>
#include <vector>

namespace gpubench {

struct MetricSpec {
  const char* name;         // the user counter, e.g. "l2_read_bytes"
  const char* perfworks;    // e.g. "lts__t_sectors_srcunit_tex_op_read.sum"
  double scale;             // counter = metric value * scale (sectors -> bytes: 32)
  const char* unit;
  const char* description;
};

const std::vector<MetricSpec>& metric_table();

// nullptr when no counter has that name.
const MetricSpec* find_metric(const std::string& name);

// "l2_read_bytes, l2_write_bytes, ..." for messages and --help.
std::string metric_names_list();

}  // namespace gpubench
