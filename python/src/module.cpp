// The `sextant._sextant` extension: each family registers its calls (bindings.hpp). The Python
// package (python/sextant/__init__.py) checks and converts arguments, then calls these.
#include <sextant/core/config.hpp>

#include "bindings.hpp"

NB_MODULE(_sextant, m) {
  m.doc() = "Sextant's C++ core (use the sextant package, not this module)";
  m.attr("version") = sextant::build::version;
  m.attr("has_cuda") = sextant::build::has_cuda;
  sextant::python::bind_errors(m);
  sextant::python::bind_skyline(m);
  sextant::python::bind_window(m);
  sextant::python::bind_matching(m);
  sextant::python::bind_pipeline(m);
}
