#include "bench/support/forked_run.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <sstream>
#include <thread>

#include "core/error.hpp"

namespace sextant::bench {

std::string ForkedRun::error() const {
  if (timed_out) return "timeout";
  if (fields.size() >= 2 && fields[0] == "error") return fields[1];
  return "child died (status " + std::to_string(status) + ")";
}

ForkedRun run_forked(const std::function<std::string()>& child, double timeout_s) {
  int fds[2];
  if (pipe(fds) != 0) throw Error::internal("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw Error::internal("fork failed");
  }
  if (pid == 0) {
    close(fds[0]);
    std::string line;
    try {
      line = child();
    } catch (const std::exception& e) {
      std::string what = e.what();
      std::replace(what.begin(), what.end(), '\t', ' ');
      std::replace(what.begin(), what.end(), '\n', ' ');
      line = "error\t" + what;
    }
    line.erase(std::find(line.begin(), line.end(), '\n'), line.end());  // one line
    line += '\n';
    for (std::size_t done = 0; done < line.size();) {
      const ssize_t k = write(fds[1], line.data() + done, line.size() - done);
      if (k <= 0) break;
      done += static_cast<std::size_t>(k);
    }
    _exit(0);
  }
  close(fds[1]);
  ForkedRun run;
  // The child's one line fits the pipe's buffer: read it once the child is gone.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (waitpid(pid, &run.status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &run.status, 0);
      run.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string text;
  char buf[4096];
  for (ssize_t k; (k = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(k));
  close(fds[0]);
  if (run.timed_out) return run;
  std::stringstream ss(text.substr(0, text.find('\n')));
  for (std::string item; std::getline(ss, item, '\t');) run.fields.push_back(item);
  return run;
}

}  // namespace sextant::bench
