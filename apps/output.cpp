#include "apps/output.hpp"

#include <cstdio>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sextant::cli {

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write, bool binary) {
  AtomicFile file(path, binary);
  write(file.stream());
  file.commit();
}

std::string format_phases(const PhaseTimes& phases) {
  std::string out;
  for (const auto& p : phases.phases()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.3f s", out.empty() ? "" : ", ", p.name.c_str(), p.seconds);
    out += buf;
  }
  return out;
}

}  // namespace sextant::cli
