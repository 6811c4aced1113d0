// Device-side time of the GPU skycube hooks, measured with CUDA events: how much of a phase the
// GPU spent copying and computing. Plain C++ (no CUDA headers).
#pragma once

#include <mutex>
#include <string>

#include "core/stopwatch.hpp"

namespace sextant::gpu {

// Seconds of device time. `kernels` runs from the first kernel's start to the last one's end of
// each piece of work (launch gaps inside it included), the copies from their start to their end.
struct DeviceTimes {
  double upload = 0;    // host -> device
  double kernels = 0;   // kernels
  double download = 0;  // device -> host

  DeviceTimes& operator+=(const DeviceTimes& o) noexcept {
    upload += o.upload;
    kernels += o.kernels;
    download += o.download;
    return *this;
  }
  bool empty() const noexcept { return upload == 0 && kernels == 0 && download == 0; }

  // Adds "<phase>: gpu upload", "<phase>: gpu kernels" and "<phase>: gpu download" to `out`.
  void add_to(PhaseTimes& out, const std::string& phase) const {
    out.add(phase + ": gpu upload", upload);
    out.add(phase + ": gpu kernels", kernels);
    out.add(phase + ": gpu download", download);
  }
};

// Where hooks that live only inside a template run (one per worker, made and dropped by the
// template) leave their times for the caller. Thread-safe: several hooks may add at once.
class DeviceTimeLog {
 public:
  void add(const DeviceTimes& t) {
    const std::lock_guard lock(mutex_);
    total_ += t;
  }
  DeviceTimes total() const {
    const std::lock_guard lock(mutex_);
    return total_;
  }

 private:
  mutable std::mutex mutex_;
  DeviceTimes total_;
};

}  // namespace sextant::gpu
