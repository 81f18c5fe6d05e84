#include "app/json_report.h"

#include "common/counter_catalog.h"
#include "common/registry.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

namespace gpubench::app {
namespace {

constexpr int kSchema = 2;  // 2: rows name their results, the catalog gives each counter its role

// Runs `write` with the reporter's output going to a string, and returns what it wrote.
template <class Write>
std::string captured(benchmark::BenchmarkReporter& reporter, Write write) {
  std::ostream& real = reporter.GetOutputStream();
  std::ostringstream buffer;
  reporter.SetOutputStream(&buffer);
  write();
  reporter.SetOutputStream(&real);
  return buffer.str();
}

void strip_suffix(std::string& text, const std::string& suffix) {
  if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
    text.resize(text.size() - suffix.size());
}

std::string wall_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", seconds);
  return text;
}

}  // namespace

// "results": {...} of a row carrying `counters` (catalog order aside, as the row has them).
static std::string results_field(const std::vector<std::string>& counters) {
  std::string fields;
  for (const std::string& name : counters) {
    const std::optional<CounterDescription> description = describe_counter(name);
    if (!description || counter_role(*description) != "result") continue;
    fields += (fields.empty() ? "" : ", ") + json_quote(name) + ": \"" + better_name(description->better) + "\"";
  }
  return ", \"results\": {" + (fields.empty() ? std::string("\"time\": \"lower\"") : fields) + "}";
}

// ", "series": {"sm": [0, 1, ...], ...}" of a row that reported series, else nothing.
static std::string series_field(const std::string& function_name, const std::string& args) {
  const RowSeries series = row_series(function_name, args);
  if (series.empty()) return {};
  std::string fields;
  for (const auto& [name, values] : series) {
    std::string list;
    for (double value : values) {
      char text[32];
      std::snprintf(text, sizeof text, "%.9g", value);
      list += (list.empty() ? "" : ", ") + (std::isfinite(value) ? std::string(text) : std::string("null"));
    }
    fields += (fields.empty() ? "" : ", ") + json_quote(name) + ": [" + list + "]";
  }
  return ", \"series\": {" + fields + "}";
}

std::string row_block(const std::string& function_name, const std::string& args, double wall_s,
                      const std::vector<std::string>& counters) {
  const Registration* registration = registration_of(function_name);
  std::string registered = function_name;
  std::string family = registration != nullptr ? registration->family : registered.substr(0, registered.find('/'));
  const int gpu = registration != nullptr ? registration->device : -1;  // >= 0 only in a run over several GPUs
  if (gpu >= 0) {
    strip_suffix(registered, Family::device_suffix(gpu));
    strip_suffix(family, Family::device_suffix(gpu));
  }
  // Google Benchmark writes the arguments as name:value (ArgNames) joined by '/'.
  std::string fields;
  for (const auto& [axis, value] : named_args(args))
    fields += (fields.empty() ? "" : ", ") + json_quote(axis) + ": " + value;
  if (registration != nullptr)
    for (const auto& [axis, value] : registration->string_axes)
      fields += (fields.empty() ? "" : ", ") + json_quote(axis) + ": " + json_quote(value);
  return "{\"registered\": " + json_quote(registered) + ", \"family\": " + json_quote(family) + ", \"args\": {" +
         fields + "}, \"gpu\": " + (gpu >= 0 ? std::to_string(gpu) : std::string("null")) +
         (wall_s >= 0 ? ", \"wall_s\": " + wall_text(wall_s) : std::string()) +
         (registration != nullptr && !registration->requirement.rule.empty()
              ? ", \"requirement\": " + json_quote(registration->requirement.rule)
              : std::string()) +
         results_field(counters) + series_field(function_name, args) + "}";
}

bool JsonReport::ReportContext(const Context& context) {
  last_report_ = std::chrono::steady_clock::now();
  bool ok = true;
  std::string text = captured(*this, [&] { ok = benchmark::JSONReporter::ReportContext(context); });
  // Google Benchmark opens the report with "{\n"; gpubench's block goes first inside it.
  const std::string block =
      "  \"gpubench\": {\"schema\": " + std::to_string(kSchema) + ", \"counters\": " + counter_catalog_json() + "},\n";
  const std::size_t open = text.find("{\n");
  text.insert(open == std::string::npos ? 0 : open + 2, block);
  GetOutputStream() << text;
  return ok;
}

void JsonReport::ReportRuns(const std::vector<Run>& runs) {
  // The first run of a call carries the case's wall time (repetitions and aggregates follow it).
  const auto now = std::chrono::steady_clock::now();
  double wall_s = std::chrono::duration<double>(now - last_report_).count();
  last_report_ = now;
  for (const Run& run : runs) {
    std::string text = captured(*this, [&] { benchmark::JSONReporter::ReportRuns({run}); });
    // A row ends "...\n    }": its block goes in as the last field.
    const std::size_t close = text.rfind('}');
    const std::size_t line_end = close == std::string::npos ? std::string::npos : text.rfind('\n', close);
    std::vector<std::string> counters;
    for (const auto& [name, value] : run.counters) counters.push_back(name);
    if (line_end != std::string::npos)
      text.insert(line_end, ",\n      \"gpubench\": " +
                                row_block(run.run_name.function_name, run.run_name.args, wall_s, counters));
    wall_s = -1.0;
    GetOutputStream() << text;
  }
}

}  // namespace gpubench::app
