// Every counter a benchmark row can carry, described once: the harness's own, CUPTI's metric table
// and each family's derived counters (declared beside the code that writes them). gpubench prints it
// (--gpubench_list_counters), writes it into every JSON report, docs/counters.md is generated from
// it, and a row that writes a counter it does not describe fails.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// kFixed: the code and its inputs fix the value (instructions, conflicts, bytes moved, launch shape):
// any change between two runs is a change of the code. kMeasured: the hardware's behaviour decides
// it (times, rates, hit rates, clocks).
enum class CounterKind { kFixed, kMeasured };

// A result's direction: which way is better. kNone: the counter is not a row's result (a diagnostic, such
// as a bandwidth kernel's block-0 clock64 span, or a fixed count). compare judges results and fixed counters.
enum class Better { kNone, kHigher, kLower };

struct CounterDescription {
  std::string name;  // exact, or a pattern with one '*' ("cycles_per_*")
  std::string unit;
  CounterKind kind = CounterKind::kMeasured;
  std::string meaning;
  std::string source;  // "harness", "Google Benchmark", "CUPTI <metric>", or the family that writes it
  Better better = Better::kNone;
  // False for a result read from an untimed sweep or window (every SM's median, an energy window), not the timed
  // launches: the stopping rule's precision does not hold for it, and the JSON states none.
  bool timed = true;
};

// The counter's role in a row: "fixed" (the code fixes it), "result" (what the row measures, with a
// direction), "noise" (the spread of the row's samples) or "diagnostic" (the rest).
std::string counter_role(const CounterDescription& description);
// "higher", "lower" or "" (not a result).
std::string better_name(Better better);

// The catalog, in a stable order: harness, CUPTI, then families in link order (built once, on the first
// call after static initialization).
const std::vector<CounterDescription>& counter_catalog();

// The description that covers `name` (an exact entry first, then a pattern), or nullopt.
std::optional<CounterDescription> describe_counter(const std::string& name);

// Names described twice (by two families, or a family and the harness): each must be described once.
std::vector<std::string> counter_catalog_duplicates();

// The catalog as text (a table), Markdown (docs/counters.md) or a JSON array (as a document, or written).
std::string counter_catalog_text();
std::string counter_catalog_markdown();
nlohmann::ordered_json counter_catalog_document();
std::string counter_catalog_json();

// A family's own counter, as GPUBENCH_COUNTERS declares it (the family is the source).
struct CounterDeclaration {
  const char* name;
  const char* unit;
  CounterKind kind;
  const char* meaning;
  Better better = Better::kNone;  // set for the family's result quantities
  bool timed = true;              // false: a result not read from the timed launches (CounterDescription::timed)
};

namespace detail {
bool describe_counters(const char* family, const std::vector<CounterDeclaration>& counters);
}  // namespace detail

}  // namespace gpubench

// GPUBENCH_COUNTERS(Stream, {"shared_bytes_per_sm", "bytes", CounterKind::kFixed, "..."}, ...): the
// counters a family writes that the harness does not, described where they are written.
#define GPUBENCH_COUNTERS(Family, ...)                            \
  [[maybe_unused]] static const bool gpubench_counters_##Family = \
      ::gpubench::detail::describe_counters(#Family, {__VA_ARGS__})
