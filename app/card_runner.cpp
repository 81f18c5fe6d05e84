#include "app/card_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace gpubench::app {
namespace {

bool exists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Where card.py lives: $GPUBENCH_ANALYSIS_DIR, the installed share/gpubench/analysis beside the
// binary's bin/, or the source tree this binary was built from.
std::string card_script(const char* argv0) {
  if (const char* dir = std::getenv("GPUBENCH_ANALYSIS_DIR"); dir != nullptr && *dir != '\0')
    return std::string(dir) + "/card.py";
  char self[PATH_MAX] = {};
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string binary = length > 0 ? std::string(self, static_cast<std::size_t>(length)) : std::string(argv0);
  const std::string installed = directory_of(binary) + "/../share/gpubench/analysis/card.py";
  if (exists(installed)) return installed;
  return std::string(GPUBENCH_SOURCE_ANALYSIS_DIR) + "/card.py";
}

}  // namespace

std::string make_card(const std::string& json, const std::string& prefix, const char* argv0, bool* ok) {
  *ok = false;
  const std::string script = card_script(argv0);
  if (!exists(script)) return "no card: " + script + " not found (set GPUBENCH_ANALYSIS_DIR)";
  const pid_t child = fork();
  if (child < 0) return "no card: could not start python3";
  if (child == 0) {
    // The card's own progress and warnings go to stderr; stdout stays the run's.
    dup2(STDERR_FILENO, STDOUT_FILENO);
    execlp("python3", "python3", script.c_str(), json.c_str(), "--out", prefix.c_str(), "--plots",
           static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return WIFEXITED(status) && WEXITSTATUS(status) == 127
               ? std::string("no card: python3 not found; rebuild it with: python3 ") + script + " " + json
               : "no card: card.py failed (exit " + std::to_string(WEXITSTATUS(status)) + ")";
  std::ifstream markdown(prefix + ".md");
  std::ostringstream text;
  text << markdown.rdbuf();
  *ok = true;
  return text.str();
}

}  // namespace gpubench::app
