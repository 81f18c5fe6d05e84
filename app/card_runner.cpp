#include "app/card_runner.h"

#include "common/spawn.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

// Defined in a binary built against the installed package (cmake/package_paths.cpp); absent (null) otherwise.
extern "C" const char* gpubench_package_analysis_dir() __attribute__((weak));

namespace gpubench::app {
namespace {

bool exists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Where card.py lives: $GPUBENCH_ANALYSIS_DIR, the installed share/gpubench/analysis beside the binary's bin/, the
// installed package's (a user's binary built against it), or the source tree this binary was built from.
std::string card_script() {
  if (const char* dir = std::getenv("GPUBENCH_ANALYSIS_DIR"); dir != nullptr && *dir != '\0')
    return std::string(dir) + "/card.py";
  char self[PATH_MAX] = {};
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string installed = directory_of(std::string(self, static_cast<std::size_t>(length > 0 ? length : 0))) +
                                "/../share/gpubench/analysis/card.py";
  if (length > 0 && exists(installed)) return installed;
  if (gpubench_package_analysis_dir != nullptr) return std::string(gpubench_package_analysis_dir()) + "/card.py";
  return std::string(GPUBENCH_SOURCE_ANALYSIS_DIR) + "/card.py";
}

int run(const std::vector<std::string>& argv, std::string* output) { return run_capturing(argv, output); }

bool has_matplotlib(const std::string& python) { return run({python, "-c", "import matplotlib"}, nullptr) == 0; }

// The user's Python if given; else the first candidate with matplotlib, else the first that runs.
// Candidates: the one CMake found at configure time, python3 on PATH, /usr/bin/python3.
std::string choose_python(const std::string& chosen, std::string* why) {
  if (!chosen.empty()) {
    *why = "as asked";
    return python_runs(chosen) ? chosen : std::string();
  }
  const std::vector<std::string> candidates = {GPUBENCH_CONFIGURED_PYTHON, "python3", "/usr/bin/python3"};
  std::string first;
  for (const std::string& python : candidates) {
    if (python.empty() || !python_runs(python)) continue;
    if (has_matplotlib(python)) {
      *why = "the first with matplotlib";
      return python;
    }
    if (first.empty()) first = python;
  }
  *why = "none has matplotlib";
  return first;
}

std::string last_line(const std::string& text) {
  std::string trimmed = text;
  while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
  const auto newline = trimmed.find_last_of('\n');
  return newline == std::string::npos ? trimmed : trimmed.substr(newline + 1);
}

}  // namespace

std::string unwritable_reason(const std::string& path) {
  if (path.empty()) return {};
  const std::size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat info {};
  if (stat(folder.c_str(), &info) != 0) return "folder " + folder + " does not exist";
  if (!S_ISDIR(info.st_mode)) return folder + " is not a folder";
  if (access(folder.c_str(), W_OK) != 0) return "folder " + folder + " is not writable";
  return {};
}

bool python_runs(const std::string& python) { return run({python, "-c", "import sys"}, nullptr) == 0; }

CardResult make_card(const std::string& json, const std::string& prefix, const std::string& python,
                     const std::optional<VerdictRequest>& verdict, bool plots) {
  CardResult result;
  const std::string script = card_script();
  if (!exists(script)) {
    result.message = "no card: " + script + " not found (set GPUBENCH_ANALYSIS_DIR)";
    return result;
  }
  std::string why;
  const std::string interpreter = choose_python(python, &why);
  if (interpreter.empty()) {
    result.message = python.empty() ? "no card: no python3 found (install python3, or give --gpubench_python=PATH); "
                                      "rebuild it later with: python3 " +
                                          script + " " + json
                                    : "no card: --gpubench_python=" + python + " does not run";
    return result;
  }
  std::string output;
  std::vector<std::string> argv = {interpreter, script, json, "--out", prefix};
  if (plots) argv.push_back("--plots");
  if (verdict) {
    argv.insert(argv.end(), {"--check", "--rerun", verdict->binary, "--"});
    argv.insert(argv.end(), verdict->args.begin(), verdict->args.end());
  }
  const int status = run(argv, &output);
  if (verdict && status != 2 && status != 127) {
    // The verdict's lines (card.py --check writes them prefixed) are the run's last word.
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("card.py --check", 0) == 0 || line.rfind("card.py: measuring again", 0) == 0 ||
          line.rfind("card.py: history", 0) == 0)
        result.verdict += line + "\n";
    result.verdict_status = status;
  } else if (status != 0) {
    result.message =
        "no card: " + (last_line(output).empty() ? "card.py exited " + std::to_string(status) : last_line(output));
    return result;
  }
  std::ifstream markdown(prefix + ".md");
  std::ostringstream text;
  text << markdown.rdbuf();
  result.ok = true;
  result.markdown = text.str();
  // card.py says on stderr whether it drew the plots ("card.py: Plots: ..."): pass that line on.
  std::string drawn;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("card.py: Plots", 0) == 0) drawn = line.substr(9);
  result.message = "card by " + interpreter + " (" + why + ")" + (drawn.empty() ? "" : "; " + drawn);
  return result;
}

}  // namespace gpubench::app
