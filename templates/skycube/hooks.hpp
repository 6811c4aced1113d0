// The hooks of the skycube templates (paper 004, sections 4-6) as concepts. A specialisation
// is a plain type that names itself, says which kind of device it runs on, and does the heavy
// step; the templates (stsc.hpp, sdsc.hpp, mdmc.hpp) own the control flow and never ask which
// device they are on. All ids are dataset row ids; all id lists are ascending.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "core/dataset.hpp"
#include "core/device.hpp"
#include "core/subspace.hpp"
#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/quad_tree.hpp"

namespace sextant::skycube {

// Every specialisation says what it is.
template <class S>
concept Specialisation = requires {
  { S::name } -> std::convertible_to<std::string_view>;
  { S::device_kind } -> std::convertible_to<DeviceKind>;
};

// The full-space extended skyline S+(P): ids of the points no other point strictly dominates.
// The first step of every template: no other point can be in any subspace skyline, and these
// points alone decide every subspace skyline (strict dominance is transitive).
template <class S>
concept ExtendedSkylineHook = Specialisation<S> && requires(S& s, const Dataset& data) {
  { s.extended_skyline(data) } -> std::same_as<std::vector<PointId>>;
};

// MDMC's static quad tree over S+ (quad_tree.hpp), built once per run before the filter and
// refine; every builder makes the same tree.
template <class S>
concept QuadTreeHook = Specialisation<S> &&
    requires(S& s, const Dataset& data, std::span<const PointId> points) {
  { s.quad_tree(data, points) } -> std::same_as<QuadTree>;
};

// One cuboid of the lattice traversal: from the candidates (the chosen parent's extended
// skyline), the skyline of `subspace` and the points of its extended skyline that are not in
// its skyline (L[δ] and L+[δ] of Algorithms 1 and 2).
struct CuboidInput {
  const Dataset& data;
  std::span<const PointId> candidates;  // ascending
  Mask subspace = 0;
  // Only CuboidOutput::skyline is wanted (the skyline front door): a hook may then drop dominated
  // points early and leave extended_only incomplete. The templates never set it.
  bool skyline_only = false;
};
struct CuboidOutput {
  std::vector<PointId> skyline;        // S_δ, ascending
  std::vector<PointId> extended_only;  // S+_δ \ S_δ, ascending
};

// STSC needs a single-threaded cuboid algorithm (many cuboids run at once); SDSC a parallel
// one that uses its whole device for one cuboid. `S::parallel` says which a type is.
template <class S>
concept CuboidHook = Specialisation<S> && requires(S& s, const CuboidInput& in, CuboidOutput& out) {
  { S::parallel } -> std::convertible_to<bool>;
  s.compute(in, out);
};
template <class S>
concept SequentialCuboidHook = CuboidHook<S> && !S::parallel;
template <class S>
concept ParallelCuboidHook = CuboidHook<S> && S::parallel;

// MDMC: the shared, read-only state every device reads (built once per run) and a range of
// tasks (positions in the extended skyline's leaf order). `process` runs the filter and the
// refine for every point of the range and inserts each point's "dominated in" words into
// `out` (a per-device part; the template merges parts once at the end).
template <class Shared>
struct MdmcTasks {
  const Shared& shared;
  std::size_t begin = 0;  // positions in leaf order
  std::size_t end = 0;
};

template <class S, class Shared>
concept MdmcHook = Specialisation<S> && requires(S& s, const MdmcTasks<Shared>& tasks, HashCubePart& out) {
  s.process(tasks, out);
};

// Optional: a hook with per-run setup (device buffers, uploading the shared state) does it in
// prepare(shared), which a template calls once per worker before the first range, so the setup is
// neither repeated per range nor counted as the device's processing time.
template <class S, class Shared>
concept PreparedMdmcHook = MdmcHook<S, Shared> && requires(S& s, const Shared& shared) {
  s.prepare(shared);
};

}  // namespace sextant::skycube
