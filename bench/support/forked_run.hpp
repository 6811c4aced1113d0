// One benchmark configuration in a forked child: its own peak RSS and CUDA context, and a run that
// outlives its time limit is killed instead of holding up the rest. The child reports one line of
// tab-separated fields through a pipe.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace sextant::bench {

struct ForkedRun {
  bool timed_out = false;
  int status = 0;                   // the child's wait status
  std::vector<std::string> fields;  // its line, split at tabs (an exception: "error", what())
  // The error to report when the fields are not the expected ones.
  std::string error() const;
};

// Runs `child` (which returns one line, tab-separated, newline optional) in a forked process and
// stops it after `timeout_s` seconds. The parent should not have started OpenMP teams or CUDA:
// neither survives fork.
ForkedRun run_forked(const std::function<std::string()>& child, double timeout_s);

}  // namespace sextant::bench
