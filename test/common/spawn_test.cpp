// Starting a process the one way gpubench does (common/spawn.h): its output, its exit status, a program that is not
// there, and what it inherits.
#include "common/spawn.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <string>

namespace gpubench {
namespace {

TEST(Spawn, CapturesOutputAndExitStatus) {
  std::string output;
  EXPECT_EQ(run_capturing({"sh", "-c", "echo out; echo err >&2; exit 3"}, &output), 3);
  EXPECT_NE(output.find("out\n"), std::string::npos) << output;
  EXPECT_NE(output.find("err\n"), std::string::npos) << output;
  std::string quiet;
  EXPECT_EQ(run_capturing({"sh", "-c", "echo out; echo err >&2"}, &quiet, /*quiet_stderr=*/true), 0);
  EXPECT_EQ(quiet, "out\n");
}

TEST(Spawn, AProgramThatIsNotThereIsSaid) {
  std::string output;
  EXPECT_EQ(run_capturing({"/no/such/program"}, &output), 127);
  pid_t pid = -1;
  SpawnRequest request;
  request.argv = {"/no/such/program"};
  EXPECT_NE(spawn_process(request, &pid), 0);
  EXPECT_NE(spawn_process(SpawnRequest{}, &pid), 0) << "no argv";
}

TEST(Spawn, TheChildGetsItsOwnEnvironmentAndSession) {
  const std::vector<std::string> environment = {"GPUBENCH_SPAWN_TEST=yes"};
  SpawnRequest request;
  // /proc/PID/stat's sixth field is the session (the shell's name, "sh", holds no space).
  request.argv = {"/bin/sh", "-c",
                  "[ \"$GPUBENCH_SPAWN_TEST\" = yes ] && [ \"$(cut -d' ' -f6 /proc/$$/stat)\" -eq $$ ]"};
  request.environment = &environment;
  request.own_session = true;
  pid_t pid = -1;
  ASSERT_EQ(spawn_process(request, &pid), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "its environment or its session is not its own";
}

}  // namespace
}  // namespace gpubench
