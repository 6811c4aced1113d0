// The CPU hook of the pipeline family: one replica per core, a vector of 16 lanes (the AVX-512
// width of 32-bit lanes) or 8 (AVX2's). A type per width; the front door runs the widest the cores
// can run unless the caller names one (policy::cpu_lanes_*), since queue sizes are planned for one
// width.
#pragma once

#include <cstdint>
#include <string_view>
#include <tuple>

#include "core/device.hpp"
#include "cpu/pipeline/replica_cpu.hpp"
#include "cpu/simd/isa.hpp"
#include "templates/pipeline/pipeline_policy.hpp"
#include "templates/pipeline/run_spec.hpp"

namespace sextant::pipeline::cpu {

template <PipelineType P, std::uint32_t Lanes, bool Profile = false>
class PipelineCpu {
 public:
  using Output = typename P::Output;
  static constexpr std::uint32_t lanes = Lanes;
  static constexpr std::string_view name = Lanes == policy::cpu_lanes_avx512 ? "cpu 16 lanes" : "cpu 8 lanes";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static bool can_run() {
    return Lanes <= policy::cpu_lanes_avx2 || sextant::cpu::allowed<sextant::cpu::Avx512Isa>();
  }

  // options.layout must be planned for Lanes lanes.
  PipelineCpu(const Instance<P>& instance, const ReplicaOptions& options) : replica_(instance, options) {}

  void run(std::uint64_t begin, std::uint64_t end, ChunkOutput<Output>& out) {
    replica_.run(begin, end, out);
  }

 private:
  CpuReplica<P, Profile> replica_;
};

// The registered widths, widest first.
template <PipelineType P, bool Profile>
using PipelineCpuVariants = std::tuple<PipelineCpu<P, policy::cpu_lanes_avx512, Profile>,
                                       PipelineCpu<P, policy::cpu_lanes_avx2, Profile>>;

}  // namespace sextant::pipeline::cpu
