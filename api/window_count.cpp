#include "api/window_count.hpp"

#include <mutex>
#include <optional>

#include "api/backends.hpp"
#include "api/machine.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "templates/window/count_window_planner.hpp"

namespace sextant::window {

namespace {

// A GPU that is not there is unsupported on this machine (exit 4), like every other command;
// an ordinal beyond the GPUs present is a bad argument.
int gpu_ordinal(DeviceId device) {
  if (device.index < 0) throw Error::argument("device", to_string(device), "gpu0, gpu1, ...", "name one GPU");
  const int count = backends::gpu_count();
  if (count == 0)
    throw Error::unsupported(
        "cannot run on GPU " + to_string(device) + ": " +
        (build::has_cuda ? "no GPU found on this machine" : "this build of Sextant has no CUDA support") +
        "; use --device cpu");
  if (device.index >= count)
    throw Error::argument("device", to_string(device),
                          "gpu0 .. gpu" + std::to_string(count - 1) + " (the GPUs of this machine)",
                          "no such GPU");
  return device.index;
}

}  // namespace

void check_count_window_device(DeviceId device) {
  if (device.kind == DeviceKind::gpu) (void)gpu_ordinal(device);
}

struct CountWindows::State {
  DeviceId device;
  CountWindowOptions options;
  std::mutex mutex;  // one column at a time
  // The CPU's workers, once a column needs them (or start()).
  std::optional<scheduler::Scheduler> scheduler;
  std::optional<scheduler::SchedulerTeam> team;

  scheduler::SchedulerTeam& cpu_team() {
    if (team) {
      // A kept team: forget the earlier columns' statistics (they say what ran on this one), and
      // free the cores of the OpenMP loop that may have produced this column.
      scheduler->reset_statistics();
      scheduler::release_openmp_threads();
      return *team;
    }
    scheduler::SchedulerOptions so;
    so.layout.cpu_cores = options.threads;
    scheduler.emplace(api::cpu_machine(), so);
    return team.emplace(*scheduler, scheduler::TeamMode::cpu_only);
  }
};

CountWindows::CountWindows(DeviceId device, CountWindowOptions options) : state_(std::make_unique<State>()) {
  check_count_window_device(device);
  if (device.kind == DeviceKind::cpu && options.algorithm != CountAlgorithm::automatic)
    throw Error::argument(
        "algorithm", std::string(to_string(options.algorithm)), "auto on the CPU",
        "the CPU has one count-window specialisation; the named algorithms are GPU kernels");
  state_->device = device;
  state_->options = options;
}

CountWindows::~CountWindows() = default;
CountWindows::CountWindows(CountWindows&&) noexcept = default;
CountWindows& CountWindows::operator=(CountWindows&&) noexcept = default;

void CountWindows::start() {
  std::lock_guard lock(state_->mutex);
  if (state_->device.kind == DeviceKind::cpu && !state_->team) (void)state_->cpu_team();
}

CountWindowResult CountWindows::aggregate(ColumnView in, CountWindowSpec spec, AggregateKind kind) {
  spec.validate();
  State& st = *state_;
  std::lock_guard lock(st.mutex);
  CountWindowResult result;
  result.values = make_column(result_type(in.type, kind), spec.window_count(in.size));
  const MutableColumnView out = mutable_view(result.values);
  if (reports_position(kind)) result.positions.resize(spec.window_count(in.size));
  std::int64_t* positions = result.positions.empty() ? nullptr : result.positions.data();
  const CountWindowArgs args{in, out, spec, kind, positions};
  if (st.device.kind == DeviceKind::cpu) {
    result.algorithm =
        backends::count_window_on_cpu(args, [&st]() -> scheduler::SchedulerTeam& { return st.cpu_team(); });
    return result;
  }
  check_count_algorithm(st.options.algorithm, kind);
  result.algorithm =
      backends::count_window_on_gpu(gpu_ordinal(st.device), args, st.options.algorithm).describe();
  return result;
}

CountWindowResult aggregate_count(ColumnView in, CountWindowSpec spec, AggregateKind kind, DeviceId device,
                                  const CountWindowOptions& options) {
  spec.validate();  // a bad spec names itself before a bad device
  return CountWindows(device, options).aggregate(in, spec, kind);
}

std::string aggregate_count_on_device(const CountWindowArgs& args, DeviceId device, CountAlgorithm algorithm,
                                      void* stream) {
  if (device.kind != DeviceKind::gpu)
    throw Error::argument("device", to_string(device), "a GPU (gpu0, ...)", "device pointers need a GPU");
  return backends::count_window_in_gpu_memory(gpu_ordinal(device), args, algorithm, stream).describe();
}

}  // namespace sextant::window
