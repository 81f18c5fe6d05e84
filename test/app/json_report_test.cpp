// The JSON report as data: one document, gpubench's block first, each row's block after Google Benchmark's
// fields, and a counter that is not finite written as null (JSON has no NaN).
#include "app/json_report.h"

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

namespace gpubench::app {
namespace {

benchmark::BenchmarkReporter::Run row(const std::string& name, const std::string& args) {
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = name;
  run.run_name.args = args;
  run.iterations = 10;
  run.real_accumulated_time = 1e-3;
  run.cpu_accumulated_time = 1e-3;
  run.time_unit = benchmark::kNanosecond;
  return run;
}

// A reporter writing to strings, its context reported.
class JsonReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    report.SetOutputStream(&out);
    report.SetErrorStream(&errors);
    const benchmark::BenchmarkReporter::Context context;
    ASSERT_TRUE(report.ReportContext(context));
  }
  std::ostringstream out;
  std::ostringstream errors;
  JsonReport report;
};

TEST_F(JsonReportTest, WritesOneDocumentWithNonFiniteCountersAsNull) {
  benchmark::BenchmarkReporter::Run first = row("Fake/row", "bytes:16");
  first.counters["finite"] = 2.5;
  first.counters["not_finite"] = std::numeric_limits<double>::quiet_NaN();
  report.ReportRuns({first, row("Fake/row", "bytes:16")});  // a case and its repetition
  EXPECT_TRUE(out.str().empty()) << "written before the run ended";
  report.Finalize();

  const nlohmann::ordered_json document = nlohmann::ordered_json::parse(out.str());  // strict: no NaN
  std::vector<std::string> keys;
  for (const auto& [key, value] : document.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"gpubench", "context", "benchmarks"}));
  EXPECT_EQ(document["gpubench"]["schema"], 2);
  EXPECT_TRUE(document["gpubench"]["counters"].is_array());
  ASSERT_EQ(document["benchmarks"].size(), 2u);
  const nlohmann::ordered_json& written = document["benchmarks"][0];
  EXPECT_EQ(written["finite"], 2.5);
  EXPECT_TRUE(written["not_finite"].is_null());
  EXPECT_EQ(written["iterations"], 10);
  EXPECT_EQ(written["gpubench"]["registered"], "Fake/row");
  EXPECT_EQ(written["gpubench"]["args"]["bytes"], 16);  // a number, not the text "16"
  EXPECT_TRUE(written["gpubench"]["gpu"].is_null());
  EXPECT_GE(written["gpubench"]["wall_s"].get<double>(), 0.0);
  EXPECT_FALSE(document["benchmarks"][1]["gpubench"].contains("wall_s")) << "only a case's first run has it";
}

TEST_F(JsonReportTest, ARowGoogleBenchmarkCannotWriteAsJsonKeepsTheDocumentValid) {
  benchmark::BenchmarkReporter::Run odd = row("Fake/row", "bytes:16");
  odd.report_label = std::string("a control character: ") + '\x01';  // written unescaped: not JSON
  report.ReportRuns({odd});
  report.ReportRuns({row("Fake/other", "")});
  report.Finalize();

  const nlohmann::ordered_json document = nlohmann::ordered_json::parse(out.str());
  ASSERT_EQ(document["benchmarks"].size(), 2u);
  EXPECT_EQ(document["benchmarks"][0]["name"], "Fake/row/bytes:16");
  EXPECT_EQ(document["benchmarks"][0]["gpubench"]["registered"], "Fake/row");
  EXPECT_EQ(document["benchmarks"][1]["gpubench"]["registered"], "Fake/other");
}

}  // namespace
}  // namespace gpubench::app
