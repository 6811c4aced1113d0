// Wall-clock timing of named phases (host side; GPU work is synchronised by its caller).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace sextant {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  void restart() { start_ = std::chrono::steady_clock::now(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

struct PhaseTime {
  std::string name;
  double seconds = 0;
};

// Ordered list of phases; adding to an existing name accumulates.
class PhaseTimes {
 public:
  void add(const std::string& name, double seconds) {
    for (auto& p : phases_)
      if (p.name == name) {
        p.seconds += seconds;
        return;
      }
    phases_.push_back({name, seconds});
  }
  const std::vector<PhaseTime>& phases() const noexcept { return phases_; }
  double total() const noexcept {
    double t = 0;
    for (const auto& p : phases_) t += p.seconds;
    return t;
  }

 private:
  std::vector<PhaseTime> phases_;
};

}  // namespace sextant
