// The CPU backend's stream-window operators over floating values (every aggregate).
#include "api/stream_window_engine.hpp"
#include "cpu/window/stream_window_cpu.hpp"

namespace sextant::window::detail {

std::unique_ptr<StreamWindowEngine> make_cpu_stream_engine_floating(ValueType type, StreamAggregateKind kind,
                                                                    const StreamWindowOptions& options,
                                                                    int threads) {
  const CpuStreamBackend::Config config{threads};
  if (type == ValueType::float32) return make_stream_engine<CpuStreamBackend, float>(kind, options, config);
  if (type == ValueType::float64) return make_stream_engine<CpuStreamBackend, double>(kind, options, config);
  throw Error::internal("make_cpu_stream_engine_floating: not a floating value type");
}

}  // namespace sextant::window::detail
