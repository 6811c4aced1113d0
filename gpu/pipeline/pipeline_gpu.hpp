// The GPU hook of the pipeline family (paper 003's Mercator model on CUDA): one persistent kernel,
// one pipeline replica per thread block of policy::gpu_lanes threads (the vector width), blocks
// claiming inputs from the chunk their GPU was handed, queues in shared memory when they fit
// (policy::gpu_shared_queue_bytes) or in global memory, warp-level compaction of the outputs, the
// same firing policy as the CPU (templates/pipeline/firing_policy.hpp).
//
// Plain C++: no CUDA header. The members are defined in replica_gpu.cuh and instantiated per
// pipeline in a .cu file (gpu/pipeline/<app>_gpu.cu): `template class PipelineGpu<MyPipeline>;`.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "core/device.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/run_spec.hpp"

namespace sextant::pipeline::gpu {

template <PipelineType P>
class PipelineGpu {
 public:
  using Output = typename P::Output;
  static constexpr std::string_view name = "cuda";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;

  // Uploads the nodes' parameters (params_to_device) and allocates the replicas' queues on GPU
  // `ordinal`. options.layout must be planned for policy::gpu_lanes lanes. Throws Error on a CUDA
  // error (resource for out of memory).
  PipelineGpu(int ordinal, const Instance<P>& instance, const ReplicaOptions& options);
  ~PipelineGpu();
  PipelineGpu(PipelineGpu&&) noexcept;
  PipelineGpu& operator=(PipelineGpu&&) noexcept;

  // Sources [begin, end) through the pipeline: the sink's items (in input order when
  // options.ordered; as the blocks emit them otherwise) and the counters go to `out`. A node that
  // breaks its gain limit is reported after the kernel as Error (bad_input) naming the node; its
  // extra outputs were dropped, never written.
  void run(std::uint64_t begin, std::uint64_t end, ChunkOutput<Output>& out);

  int blocks() const noexcept;          // replicas per launch
  bool shared_queues() const noexcept;  // queues in shared memory

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sextant::pipeline::gpu
