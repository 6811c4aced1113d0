// sextant::Error as Python exceptions, one class per ErrorKind with the C++ message unchanged.
// The classes are defined in Python (sextant/errors.py: each derives from sextant.Error and the
// matching built-in, e.g. ValueError); the package hands them over once with set_error_classes.
#include <array>
#include <new>
#include <sextant/core/error.hpp>

#include "bindings.hpp"

namespace sextant::python {

namespace {

// Indexed by ErrorKind; owned references, set once at import.
std::array<PyObject*, 6> classes{};

PyObject* class_of(ErrorKind kind) {
  PyObject* c = classes[static_cast<std::size_t>(kind)];
  return c != nullptr ? c : PyExc_RuntimeError;
}

}  // namespace

void bind_errors(nb::module_& m) {
  m.def(
      "set_error_classes",
      [](nb::dict by_kind) {
        const std::array<const char*, 6> names = {"bad_input",   "bad_argument", "io",
                                                  "unsupported", "resource",     "internal"};
        for (std::size_t k = 0; k < names.size(); ++k) {
          nb::object c = by_kind[names[k]];
          Py_XDECREF(classes[k]);
          classes[k] = c.release().ptr();
        }
      },
      "Internal: the exception class of each error kind.");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(class_of(e.kind()), e.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(class_of(ErrorKind::resource), "out of memory");
    }
  });
}

}  // namespace sextant::python
