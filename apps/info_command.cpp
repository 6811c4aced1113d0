#include <cstdio>
#include <string>

#include "apps/commands.hpp"
#include "cli/arguments.hpp"
#include "core/config.hpp"
#include "core/cpu_features.hpp"
#include "scheduler/topology.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/device_query.hpp"
#endif

namespace sextant::cli {

int info_command(int argc, char** argv) {
  Arguments args("info", {{"help", "", "this text"}});
  args.parse(argc, argv, 2);
  if (args.has("help")) {
    std::fputs(args.usage().c_str(), stdout);
    return 0;
  }
  std::printf("sextant %s\n", build::version);
  std::printf("build: cuda=%s (architectures %s), papi=%s\n", build::has_cuda ? "yes" : "no",
              build::has_cuda ? build::cuda_architectures : "-", build::has_papi ? "yes" : "no");
  std::printf("cpu: simd=%s\n", std::string(to_string(simd_level())).c_str());
  const auto topo = scheduler::discover_topology();
  for (const auto& node : topo.numa_nodes) std::printf("numa%d: %zu cores\n", node.index, node.cores.size());
#if SEXTANT_HAS_CUDA
  const auto gpus = gpu::all_devices();
  if (gpus.empty()) std::printf("gpus: none found\n");
  for (const auto& g : gpus)
    std::printf("gpu%d: %s, sm_%d%d, %d SMs, %.1f GiB, bus %s\n", g.ordinal, g.name.c_str(), g.compute_major,
                g.compute_minor, g.multiprocessors, static_cast<double>(g.global_memory_bytes) / (1u << 30),
                g.pci_bus_id.c_str());
#else
  std::printf("gpus: this build has no CUDA support\n");
#endif
  return 0;
}

}  // namespace sextant::cli
