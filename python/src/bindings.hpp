// What the binding sources of the `sextant` extension share: the registration function of each
// family's source (module.cpp calls them) and the conversions every family uses.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <sextant/core/subspace.hpp>
#include <span>
#include <vector>

namespace sextant::python {

namespace nb = nanobind;

void bind_errors(nb::module_& m);    // errors.cpp
void bind_skyline(nb::module_& m);   // skyline.cpp: skyline, skycube, Skycube
void bind_window(nb::module_& m);    // window.cpp: StreamWindow, count_windows
void bind_matching(nb::module_& m);  // matching.cpp: Matcher
void bind_pipeline(nb::module_& m);  // pipeline.cpp: pipeline_<app> (run, profile, plan), generators

// A C-contiguous read-only host array of T with ndim dimensions (the Python layer converts and
// checks shapes and dtypes first, naming the argument, so a mismatch here is a bug).
template <class T, int N>
using HostArray = nb::ndarray<const T, nb::ndim<N>, nb::c_contig, nb::device::cpu>;

// A new NumPy array that owns `values` (moved, no copy).
template <class T, class Allocator>
nb::ndarray<nb::numpy, T, nb::ndim<1>> to_numpy(std::vector<T, Allocator>&& values) {
  using Vector = std::vector<T, Allocator>;
  auto* owned = new Vector(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<Vector*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), {owned->size()}, owner);
}

// Point ids as int64 (NumPy's index type).
nb::ndarray<nb::numpy, std::int64_t, nb::ndim<1>> ids_to_numpy(const std::vector<PointId>& ids);

}  // namespace sextant::python
