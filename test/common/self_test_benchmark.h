// A registered GPU benchmark and a reporter that captures what it emits, for the harness
// self-tests (with and without a GPU).
#pragma once

#include "common/benchmark_compat.h"

#include <benchmark/benchmark.h>

#include <sstream>
#include <string>
#include <vector>

namespace gpubench::testing {

inline constexpr const char* kSelfTestFilter = "^HarnessSelfTest/";
inline constexpr const char* kFaultTestFilter = "^HarnessFaultTest/";

class CapturingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& context) override {
    std::ostringstream text;
    PrintBasicContext(&text, context);
    context_text = text.str();
    return true;
  }
  void ReportRuns(const std::vector<Run>& reported) override {
    runs.insert(runs.end(), reported.begin(), reported.end());
  }

  std::string context_text;
  std::vector<Run> runs;
};

}  // namespace gpubench::testing
