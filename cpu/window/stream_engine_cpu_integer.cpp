// The CPU backend's stream-window operators over integer values (every aggregate).
#include "api/stream_window_engine.hpp"
#include "cpu/window/stream_window_cpu.hpp"

namespace sextant::window::detail {

std::unique_ptr<StreamWindowEngine> make_cpu_stream_engine_integer(ValueType type, StreamAggregateKind kind,
                                                                   const StreamWindowOptions& options,
                                                                   int threads) {
  const CpuStreamBackend::Config config{threads};
  if (type == ValueType::int32)
    return make_stream_engine<CpuStreamBackend, std::int32_t>(kind, options, config);
  if (type == ValueType::int64)
    return make_stream_engine<CpuStreamBackend, std::int64_t>(kind, options, config);
  throw Error::internal("make_cpu_stream_engine_integer: not a integer value type");
}

}  // namespace sextant::window::detail
