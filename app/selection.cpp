#include "app/selection.h"

#include "common/registry.h"

#include <benchmark/benchmark.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

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

std::vector<std::string> preset_rows(const std::vector<std::string>& names, Preset preset) {
  if (preset == Preset::kCheck) return check_rows(names);
  if (preset != Preset::kBurn && preset != Preset::kMemtest) return names;
  std::vector<std::string> kept;
  for (const std::string& name : names)
    if (runs_in_own_preset(name)) kept.push_back(name);
  return kept;
}

namespace {

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// A row's registered case: its segments before the first argument ("Stream/read" of
// "Stream/read/bytes_per_thread:16/manual_time"), or the whole name where it has none.
std::string case_of(const std::string& name) {
  const std::size_t colon = name.find(':');
  if (colon == std::string::npos) return name;
  const std::size_t slash = name.rfind('/', colon);
  return slash == std::string::npos ? name : name.substr(0, slash);
}

}  // namespace

std::string exact_filter(const std::vector<std::string>& names) {
  std::string filter;
  for (const std::string& name : names) filter += (filter.empty() ? "^(" : "|") + escaped(name);
  return filter.empty() ? filter : filter + ")$";
}

std::string compact_filter(const std::vector<std::string>& names, const std::vector<std::string>& all) {
  std::map<std::string, int> in_all, in_names;
  for (const std::string& name : all) ++in_all[case_of(name)];
  const std::set<std::string> unique(names.begin(), names.end());
  for (const std::string& name : unique) ++in_names[case_of(name)];
  std::vector<std::string> whole_cases, single;
  for (const auto& [name_case, count] : in_names)
    if (in_all[name_case] == count) whole_cases.push_back(name_case);
  for (const std::string& name : unique)
    if (in_all[case_of(name)] != in_names[case_of(name)]) single.push_back(name);
  std::string filter;
  // A whole case: its prefix then "/" or the name's end ("Stream/read" is not "Stream/read_cg").
  for (const std::string& name_case : whole_cases) filter += (filter.empty() ? "^(" : "|") + escaped(name_case);
  if (!filter.empty()) filter += ")(/|$)";
  const std::string singles = exact_filter(single);
  return filter.empty() ? singles : singles.empty() ? filter : filter + "|" + singles;
}

}  // namespace gpubench::app
