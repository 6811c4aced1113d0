#include "apps/output.hpp"

#include <atomic>
#include <cstdio>
#include <thread>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sextant::cli {

namespace {
std::atomic<const char*> phase{""};
}  // namespace

void enter_phase(const char* what) noexcept {
  phase.store(what, std::memory_order_relaxed);
}
const char* current_phase() noexcept {
  return phase.load(std::memory_order_relaxed);
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write, bool binary) {
  enter_phase("writing the output");
  AtomicFile file(path, binary);
  write(file.stream());
  file.commit();
}

cpu::OmpTeam output_team(int threads) {
  return cpu::OmpTeam(threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency()));
}

std::string format_phases(const PhaseTimes& phases) {
  std::string out;
  for (const auto& p : phases.phases()) {
    char buf[96];
    // A tenth of a millisecond below 0.1 s: short phases are what a reader compares there.
    std::snprintf(buf, sizeof buf, "%s%s %.*f s", out.empty() ? "" : ", ", p.name.c_str(),
                  p.seconds < 0.1 ? 4 : 3, p.seconds);
    out += buf;
  }
  return out;
}

}  // namespace sextant::cli
