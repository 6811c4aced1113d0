#include "core/out_of_memory.hpp"

#include <sys/sysinfo.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <new>

namespace sextant {

namespace {

std::atomic<std::size_t> failed_bytes{0};

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

double available_bytes() {  // MemAvailable counts reclaimable caches, unlike sysinfo's freeram
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024.0;
  return 0;
}

}  // namespace

bool beyond_this_machine(std::size_t bytes) noexcept {
  if (bytes < (std::size_t{1} << 30)) return false;  // every machine this runs on has more
  static const double limit = [] {
    struct sysinfo info {};
    if (::sysinfo(&info) != 0) return 0.0;
    return (static_cast<double>(info.totalram) + static_cast<double>(info.totalswap)) * info.mem_unit;
  }();
  return limit > 0 && static_cast<double>(bytes) > limit;
}

void throw_out_of_memory(std::size_t bytes) {
  failed_bytes.store(bytes, std::memory_order_relaxed);
  throw std::bad_alloc();
}

std::size_t last_failed_allocation() noexcept {
  return failed_bytes.load(std::memory_order_relaxed);
}

std::string out_of_memory_message() {
  std::string msg = "out of host memory";
  if (const std::size_t bytes = last_failed_allocation(); bytes != 0)
    msg += ": an allocation of " + gib(static_cast<double>(bytes)) + " failed";
  struct sysinfo info {};
  if (::sysinfo(&info) == 0) {
    msg += " (this machine has " + gib(static_cast<double>(info.totalram) * info.mem_unit);
    if (const double avail = available_bytes(); avail > 0) msg += ", " + gib(avail) + " available";
    msg += ")";
  }
  return msg;
}

}  // namespace sextant
