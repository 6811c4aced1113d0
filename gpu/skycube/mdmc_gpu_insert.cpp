// The host side of the MDMC GPU hook's output: a batch of downloaded bitmaps appended to the
// worker's HashCubePart on an OpenMP team of the worker's cores (a C++ file: OpenMP is not on in
// CUDA translation units).
#include "cpu/omp_team.hpp"
#include "gpu/skycube/mdmc_gpu.hpp"

namespace sextant::skycube::detail {

void insert_downloaded(HashCubePart& out, std::span<const PointId> ids, std::span<const Word> dominated,
                       int threads) {
  cpu::OmpTeam team(threads);
  out.insert_batch(ids, dominated, team);
}

}  // namespace sextant::skycube::detail
