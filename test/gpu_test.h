// GPU tests skip, with the reason on one line, where no GPU can be used.
#pragma once

#include "common/detail/gpu_session.h"

#include <gtest/gtest.h>

#define GPUBENCH_REQUIRE_GPU()                                                   \
  do {                                                                           \
    if (const auto gpubench_why_ = ::gpubench::GpuSession::unavailable_reason()) \
      GTEST_SKIP() << "needs a GPU: " << *gpubench_why_;                         \
  } while (0)
