#include "app/selection.h"

#include "common/registry.h"

#include <benchmark/benchmark.h>

#include <sstream>

namespace gpubench::app {
namespace {

// Receives Google Benchmark's list-mode output (one name per line) and nothing else.
class ListCapture : public benchmark::BenchmarkReporter {
 public:
  ListCapture() {
    SetOutputStream(&names_);
    SetErrorStream(&errors_);
  }
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
  std::vector<std::string> names() const {
    std::vector<std::string> list;
    std::istringstream in(names_.str());
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) list.push_back(line);
    return list;
  }

 private:
  std::ostringstream names_;
  std::ostringstream errors_;
};

}  // namespace

std::vector<std::string> list_selected(const char* argv0, const std::string& filter) {
  std::string list_flag = "--benchmark_list_tests=true";
  std::string filter_flag = "--benchmark_filter=" + filter;
  std::vector<char*> args = {const_cast<char*>(argv0), list_flag.data(), filter_flag.data(), nullptr};
  int count = 3;
  benchmark::Initialize(&count, args.data());
  ListCapture capture;
  benchmark::RunSpecifiedBenchmarks(&capture);
  return capture.names();
}

std::vector<std::pair<std::string, int>> families_of(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, int>> families;
  for (const std::string& name : names) {
    const Registration* registration = registration_of(name);
    const std::string family = registration ? registration->family : name.substr(0, name.find('/'));
    if (families.empty() || families.back().first != family) {
      families.emplace_back(family, 0);
    }
    ++families.back().second;
  }
  return families;
}

std::vector<std::string> host_only(const std::vector<std::string>& names) {
  std::vector<std::string> kept;
  for (const std::string& name : names) {
    const Registration* registration = registration_of(name);
    if (registration != nullptr && !registration->needs_gpu) kept.push_back(name);
  }
  return kept;
}

std::vector<std::string> check_rows(const std::vector<std::string>& names) {
  std::vector<std::string> kept;
  for (const std::string& name : names)
    if (runs_in_check(name)) kept.push_back(name);
  return kept;
}

std::string exact_filter(const std::vector<std::string>& names) {
  std::string filter;
  for (const std::string& name : names) {
    filter += filter.empty() ? "^(" : "|";
    for (char c : name) {
      if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) filter += '\\';
      filter += c;
    }
  }
  return filter.empty() ? filter : filter + ")$";
}

}  // namespace gpubench::app
