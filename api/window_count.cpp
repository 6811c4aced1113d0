#include "api/window_count.hpp"

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

CountWindowResult aggregate_count(ColumnView in, CountWindowSpec spec, AggregateKind kind, DeviceId device,
                                  const CountWindowOptions& options) {
  spec.validate();
  CountWindowResult result;
  result.values = make_column(result_type(in.type, kind), spec.window_count(in.size));
  const MutableColumnView out = mutable_view(result.values);
  if (reports_position(kind)) result.positions.resize(spec.window_count(in.size));
  std::int64_t* positions = result.positions.empty() ? nullptr : result.positions.data();
  if (device.kind == DeviceKind::cpu) {
    if (options.algorithm != CountAlgorithm::automatic)
      throw Error::argument(
          "algorithm", std::string(to_string(options.algorithm)), "auto on the CPU",
          "the CPU has one count-window specialisation; the named algorithms are GPU kernels");
    result.algorithm = backends::count_window_on_cpu(CountWindowArgs{in, out, spec, kind, positions},
                                                     options.threads, api::cpu_machine);
    return result;
  }
  check_count_algorithm(options.algorithm, kind);
  result.algorithm =
      backends::count_window_on_gpu(gpu_ordinal(device), CountWindowArgs{in, out, spec, kind, positions},
                                    options.algorithm)
          .describe();
  return result;
}

std::string aggregate_count_on_device(const CountWindowArgs& args, DeviceId device, CountAlgorithm algorithm,
                                      void* stream) {
  if (device.kind != DeviceKind::gpu)
    throw Error::argument("device", to_string(device), "a GPU (gpu0, ...)", "device pointers need a GPU");
  return backends::count_window_in_gpu_memory(gpu_ordinal(device), args, algorithm, stream).describe();
}

}  // namespace sextant::window
