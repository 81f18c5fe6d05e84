#include "common/counter_catalog.h"

#include <nlohmann/json.hpp>

#include "common/cupti/metric_table.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace gpubench {
namespace {

using K = CounterKind;
constexpr Better kHigher = Better::kHigher;
constexpr Better kLower = Better::kLower;

// What every row may carry, whichever family wrote it.
const std::vector<CounterDescription>& harness_counters() {
  static const std::vector<CounterDescription> list = {
      {"cycles", "cycles", K::kMeasured,
       "clock64 span of the kernel's timed region per launch, mean over the timed launches", "harness"},
      {"cycles_min", "cycles", K::kMeasured, "clock64 span of the fastest timed launch", "harness"},
      {"ns", "ns", K::kMeasured, "cycles at the SM clock measured during the timed launches", "harness"},
      {"sm_mhz", "MHz", K::kMeasured, "SM clock measured over the timed launches (clock64 against the GPU's timer)",
       "harness"},
      {"clock_flagged", "flag", K::kMeasured,
       "1: the SM clock ran under 97% of rated or drifted over 1% (the row's label says which)", "harness"},
      {"power_w", "W", K::kMeasured,
       "board power over the timed launches: NVML's energy counter over the window, when it lasts 1 s or more "
       "(absent otherwise: the counter's steps are too coarse); idle gaps between launches included",
       "harness"},
      {"time_spread", "fraction", K::kMeasured,
       "(q3 - min) / median of the timed launches' GPU times: the row's own noise (nvbench's [min, q3] interval)",
       "harness"},
      {"cycles_spread", "fraction", K::kMeasured, "(q3 - min) / median of the timed launches' clock64 spans",
       "harness"},
      {"power_limit_w", "W", K::kMeasured, "the enforced board power limit (NVML)", "harness"},
      {"clock_reasons", "bits", K::kMeasured,
       "NVML clocks-event reasons at the end of the timed launches (nvmlClocksEventReason* bits: 0x4 "
       "software power cap, 0x8 hardware slowdown, 0x20/0x40 thermal, 0x80 power brake)",
       "harness"},
      {"power_capped", "flag", K::kMeasured,
       "1: the power cap held the clocks back during the timed launches (reason bits, or NVML's power "
       "violation time grew); the label says so",
       "harness"},
      {"thermal_capped", "flag", K::kMeasured,
       "1: temperature held the clocks back during the timed launches (reason bits, or NVML's thermal "
       "violation time grew)",
       "harness"},
      {"cycles_per_*", "cycles", K::kMeasured,
       "cycles per unit of the row's work (cycles_per_load: per dependent load)", "harness", kLower},
      {"ns_per_*", "ns", K::kMeasured,
       "nanoseconds per unit of the row's work (GPU rows: cycles at the measured clock)", "harness", kLower},
      {"bytes_per_second", "B/s", K::kMeasured,
       "bytes the row counts as moved (read + written) per second of GPU time (SetBytesProcessed)", "Google Benchmark",
       kHigher},
      {"working_set_bytes", "bytes", K::kFixed, "bytes of data the row's kernel touches (its arrays or slices)",
       "harness"},
      {"bytes_per_clock_per_sm", "B/clk/SM", K::kMeasured, "bytes_per_second over the SM clock and the SM count",
       "harness", kHigher},
      {"fraction_of_peak", "fraction", K::kMeasured,
       "the row's rate over the peak of the unit it exercises (the architecture table's, at the measured clock)",
       "harness", kHigher},
      {"loads_in_flight", "loads", K::kFixed, "independent loads (chains) the launch keeps in flight at once",
       "harness"},
      {"bytes_in_flight", "bytes", K::kFixed, "loads_in_flight x the bytes each brings (Little's law's concurrency)",
       "harness"},
      {"implied_latency_ns", "ns", K::kMeasured, "bytes_in_flight / bytes_per_second: the latency Little's law implies",
       "harness"},
      {"l2_read_bytes_per_element", "bytes", K::kMeasured, "l2_read_bytes over the elements the launch processes",
       "harness (ideal traffic)"},
      {"l2_write_bytes_per_element", "bytes", K::kMeasured, "l2_write_bytes over the elements",
       "harness (ideal traffic)"},
      {"dram_read_bytes_per_element", "bytes", K::kMeasured, "dram_read_bytes over the elements",
       "harness (ideal traffic)"},
      {"dram_write_bytes_per_element", "bytes", K::kMeasured, "dram_write_bytes over the elements",
       "harness (ideal traffic)"},
      {"l2_read_normalized", "x ideal", K::kMeasured,
       "l2_read_bytes over the least the launch must read (1.0: each input byte once)", "harness (ideal traffic)"},
      {"l2_write_normalized", "x ideal", K::kMeasured, "l2_write_bytes over the least the launch must write",
       "harness (ideal traffic)"},
      {"dram_read_normalized", "x ideal", K::kMeasured, "dram_read_bytes over the least the launch must read",
       "harness (ideal traffic)"},
      {"dram_write_normalized", "x ideal", K::kMeasured, "dram_write_bytes over the least the launch must write",
       "harness (ideal traffic)"},
      {"insn_per_element", "thread instructions", K::kFixed,
       "thread_inst_executed over the elements (the homework's I/el)", "harness (ideal traffic)"},
  };
  return list;
}

// CUPTI counters the code fixes; the rest of the metric table is measured.
bool cupti_fixed(const std::string& name) {
  static const std::set<std::string> fixed = {"l2_read_bytes",
                                              "l2_write_bytes",
                                              "shared_bank_conflicts",
                                              "shared_ld_bank_conflicts",
                                              "shared_st_bank_conflicts",
                                              "shared_wavefronts",
                                              "shared_ld_wavefronts",
                                              "global_load_sectors",
                                              "global_load_requests",
                                              "sectors_per_request",
                                              "conflicts_per_load",
                                              "inst_executed",
                                              "thread_inst_executed",
                                              "active_lanes_per_inst",
                                              "branch_uniformity"};
  return fixed.count(name) > 0;
}

std::vector<CounterDescription>& family_counters() {
  static std::vector<CounterDescription> list;
  return list;
}

bool matches(const std::string& pattern, const std::string& name) {
  const auto star = pattern.find('*');
  if (star == std::string::npos) return pattern == name;
  const std::string head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  return name.size() > head.size() + tail.size() && name.compare(0, head.size(), head) == 0 &&
         name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

const char* kind_name(CounterKind kind) { return kind == K::kFixed ? "fixed" : "measured"; }

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

namespace detail {
bool describe_counters(const char* family, const std::vector<CounterDeclaration>& counters) {
  for (const CounterDeclaration& c : counters)
    family_counters().push_back({c.name, c.unit, c.kind, c.meaning, family, c.better, c.timed});
  return true;
}
}  // namespace detail

// Built on first use, after static initialization has registered every family's counters.
const std::vector<CounterDescription>& counter_catalog() {
  static const std::vector<CounterDescription> catalog = [] {
    std::vector<CounterDescription> all = harness_counters();
    for (const MetricSpec& spec : metric_table()) {
      std::string source = std::string("CUPTI ") + spec.perfworks;
      if (spec.scale != 1.0) source += " x " + std::to_string(static_cast<int>(spec.scale));
      if (spec.per != nullptr) source += std::string(" / ") + (spec.per_plus ? "(" : "") + spec.per;
      if (spec.per_plus != nullptr) source += std::string(" + ") + spec.per_plus + ")";
      all.push_back(
          {spec.name, spec.unit, cupti_fixed(spec.name) ? K::kFixed : K::kMeasured, spec.description, source});
    }
    all.insert(all.end(), family_counters().begin(), family_counters().end());
    return all;
  }();
  return catalog;
}

std::optional<CounterDescription> describe_counter(const std::string& name) {
  const std::vector<CounterDescription>& all = counter_catalog();
  for (const CounterDescription& d : all)
    if (d.name == name) return d;
  for (const CounterDescription& d : all)
    if (d.name.find('*') != std::string::npos && matches(d.name, name)) return d;
  return std::nullopt;
}

std::string better_name(Better better) {
  return better == Better::kHigher ? "higher" : better == Better::kLower ? "lower" : "";
}

std::string counter_role(const CounterDescription& d) {
  if (d.kind == K::kFixed) return "fixed";
  if (d.better != Better::kNone) return "result";
  if (ends_with(d.name, "_spread")) return "noise";
  return "diagnostic";
}

std::vector<std::string> counter_catalog_duplicates() {
  std::set<std::string> seen;
  std::vector<std::string> twice;
  for (const CounterDescription& d : counter_catalog())
    if (!seen.insert(d.name).second) twice.push_back(d.name + " (again by " + d.source + ")");
  return twice;
}

// "result (higher)", "fixed", ...
static std::string role_text(const CounterDescription& d) {
  const std::string better = better_name(d.better);
  return counter_role(d) + (better.empty() || d.kind == K::kFixed ? "" : " (" + better + ")");
}

std::string counter_catalog_text() {
  const std::vector<CounterDescription>& all = counter_catalog();
  std::size_t name_width = 7, unit_width = 4;
  for (const CounterDescription& d : all) {
    name_width = std::max(name_width, d.name.size());
    unit_width = std::max(unit_width, d.unit.size());
  }
  std::string text;
  const auto row = [&](const std::string& name, const std::string& unit, const std::string& kind,
                       const std::string& role, const std::string& source, const std::string& meaning) {
    char line[512];
    std::snprintf(line, sizeof line, "%-*s  %-*s  %-8s  %-17s  ", static_cast<int>(name_width), name.c_str(),
                  static_cast<int>(unit_width), unit.c_str(), kind.c_str(), role.c_str());
    text += line + meaning + " [" + source + "]\n";
  };
  row("counter", "unit", "kind", "role", "source", "meaning");
  for (const CounterDescription& d : all) row(d.name, d.unit, kind_name(d.kind), role_text(d), d.source, d.meaning);
  return text;
}

std::string counter_catalog_markdown() {
  std::string text =
      "# Counters\n\n"
      "Every counter a gpubench row can carry, generated from the catalog in the code\n"
      "(`gpubench --gpubench_list_counters=markdown`; `common/counter_catalog.cpp`, `common/cupti/metric_table.cpp`\n"
      "and each family's `GPUBENCH_COUNTERS`). A test fails when this page and the catalog differ, and a row that\n"
      "writes a counter the catalog does not describe fails. Every JSON report carries the same table\n"
      "(`gpubench.counters`). *fixed*: the code and its inputs fix the value, so any change between two runs\n"
      "is a change of the code (`analysis/compare.py` flags it); *measured*: the hardware decides it. *role*:\n"
      "what compare judges: a *result* (with the direction that is better), a *fixed* count, the row's own\n"
      "*noise* (the spread of its launches), or a *diagnostic* (shown on request, never judged).\n"
      "How the CUPTI counters are collected and checked against Nsight Compute: [cupti.md](cupti.md).\n\n"
      "| counter | unit | kind | role | source | meaning |\n|---|---|---|---|---|---|\n";
  for (const CounterDescription& d : counter_catalog())
    text += "| `" + d.name + "` | " + d.unit + " | " + kind_name(d.kind) + " | " + role_text(d) + " | " + d.source +
            " | " + d.meaning + " |\n";
  return text;
}

nlohmann::ordered_json counter_catalog_document() {
  nlohmann::ordered_json catalog = nlohmann::ordered_json::array();
  for (const CounterDescription& d : counter_catalog()) {
    nlohmann::ordered_json entry = {
        {"name", d.name}, {"unit", d.unit}, {"kind", kind_name(d.kind)}, {"role", counter_role(d)}};
    if (d.better != Better::kNone) entry["better"] = better_name(d.better);
    if (d.better != Better::kNone && !d.timed) entry["timed"] = false;
    entry["source"] = d.source;
    entry["meaning"] = d.meaning;
    catalog.push_back(std::move(entry));
  }
  return catalog;
}

std::string counter_catalog_json() { return counter_catalog_document().dump(2); }

}  // namespace gpubench
