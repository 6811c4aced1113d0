// The count-window family's front door (paper 001): one result per count-based sliding window
// of a column, on the CPU or a GPU. Semantics and result types: templates/window/count_window.hpp.
//
//   auto r = sextant::window::aggregate_count(std::span<const int>(values), 1024, 64,
//                                             sextant::window::AggregateKind::sum,
//                                             sextant::DeviceId{sextant::DeviceKind::gpu, 0});
//   std::span<const std::int64_t> sums = r.values_as<std::int64_t>();
//
// Host columns work on every device: the CPU aggregates in place; a GPU gets the values that
// some window reads copied in, and the results copied back (through a device workspace the
// library keeps per GPU, so repeated calls allocate nothing). For input already in device
// memory, aggregate_count_on_device takes device pointers and copies nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "templates/window/count_window.hpp"
#include "templates/window/count_window_hooks.hpp"

namespace sextant::window {

struct CountWindowOptions {
  // GPU only: a named algorithm, or the selector. The CPU has a single specialisation and
  // accepts only `automatic`.
  CountAlgorithm algorithm = CountAlgorithm::automatic;
  int threads = 0;  // CPU threads; 0 = every core
};

struct CountWindowResult {
  Column values;  // K results of type result_type(input type, kind)
  // argmin, argmax, first, last (reports_position): the position of each result's value in the
  // input column; empty otherwise.
  std::vector<std::int64_t> positions;
  std::string algorithm;  // what ran: "cpu (avx2)" or the GPU plan, e.g. "coop (tile 16384, ...)"

  // The results as T (result_type(input type, kind)); another T throws Error::argument naming
  // both types.
  template <WindowValue T>
  std::span<const T> values_as() const {
    return column_as<T>(values, "count-window results");
  }
  ValueType value_type() const noexcept { return type_of(values); }
};

// Count windows on one device for a series of columns. On the CPU its workers start with the first
// column long enough to need them (or with start()) and stay until it is destroyed, keeping the
// rate each measured for each variant: later columns neither start threads nor try variants again.
// aggregate_count() below is one column on a fresh CountWindows. Calls from several threads take
// turns.
//
//   sextant::window::CountWindows windows;  // the CPU, every core
//   for (const auto& column : columns) use(windows.aggregate(column, {1024, 64}, AggregateKind::max));
class CountWindows {
 public:
  // Throws like check_count_window_device, and Error::argument for a named algorithm on the CPU.
  explicit CountWindows(DeviceId device = {}, CountWindowOptions options = {});
  ~CountWindows();
  CountWindows(CountWindows&&) noexcept;
  CountWindows& operator=(CountWindows&&) noexcept;

  // Starts what a long column will need now (the CPU's machine discovery and workers; nothing on a
  // GPU), e.g. on another thread while the input loads. Safe to call while no aggregate() runs.
  void start();
  // Throws Error for a bad spec (naming "length"/"slide"), an algorithm that cannot run the problem,
  // or a CUDA failure.
  CountWindowResult aggregate(ColumnView in, CountWindowSpec spec, AggregateKind kind);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Checks `device` without running anything: a GPU that this build or machine lacks throws
// Error::unsupported (exit 4), a GPU ordinal beyond those present Error::argument; the CPU passes.
void check_count_window_device(DeviceId device);

// Throws Error for a bad spec (naming "length"/"slide"), a device that does not exist or that
// this build cannot use, an algorithm that cannot run the problem, or a CUDA failure.
CountWindowResult aggregate_count(ColumnView in, CountWindowSpec spec, AggregateKind kind,
                                  DeviceId device = {}, const CountWindowOptions& options = {});

template <WindowValue T>
CountWindowResult aggregate_count(std::span<const T> in, std::uint64_t length, std::uint64_t slide,
                                  AggregateKind kind, DeviceId device = {},
                                  const CountWindowOptions& options = {}) {
  return aggregate_count(ColumnView(in), CountWindowSpec{length, slide}, kind, device, options);
}

// In-device: args.in and args.out (and args.positions) are device pointers of GPU
// device.index (args.out sized for K results of the result type). Synchronous; `stream` is a cudaStream_t or
// null. Returns the description of the plan that ran.
std::string aggregate_count_on_device(const CountWindowArgs& args, DeviceId device,
                                      CountAlgorithm algorithm = CountAlgorithm::automatic,
                                      void* stream = nullptr);

}  // namespace sextant::window
