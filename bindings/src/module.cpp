// weft._core: the C++ engine behind the pure-Python package `weft` (DESIGN §8). Python never runs
// inside the event loop: every entry point takes plain values (YAML text, names, numbers), releases
// the GIL while it simulates, and hands back text, numbers or numpy columns for pandas.
#include <pybind11/pybind11.h>

#include <utility>

#include "bindings/src/bindings.h"
#include "sim/core/engine.h"
#include "sim/core/errors.h"

namespace py = pybind11;

namespace {

// weft.errors holds the Python classes; the module is imported when an error is raised, so _core
// stays importable on its own.
void raise_as(const char* name, PyObject* fallback, const char* message) {
  try {
    py::object cls = py::module_::import("weft.errors").attr(name);
    PyErr_SetString(cls.ptr(), message);
  } catch (py::error_already_set&) {
    PyErr_SetString(fallback, message);
  }
}

// weft.ConfigError with the C++ error's fields (None where unknown), its text as printed.
void raise_config_error(const weft::ConfigError& e) {
  try {
    py::object cls = py::module_::import("weft.errors").attr("ConfigError");
    const weft::SourceLocation& w = e.where();
    auto or_none = [](bool known, py::object value) { return known ? std::move(value) : py::none(); };
    py::object error = cls(e.message(), py::arg("file") = or_none(w.known(), py::str(w.file)),
                           py::arg("line") = or_none(w.line > 0, py::int_(w.line)),
                           py::arg("column") = or_none(w.line > 0, py::int_(w.column)),
                           py::arg("key") = or_none(!e.key().empty(), py::str(e.key())), py::arg("text") = e.what());
    PyErr_SetObject(cls.ptr(), error.ptr());
  } catch (py::error_already_set&) {
    PyErr_SetString(PyExc_ValueError, e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "weft's simulator core (C++); use the `weft` package, not this module";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const weft::ConfigError& e) {
      raise_config_error(e);
    } catch (const weft::ModelError& e) {
      raise_as("ModelError", PyExc_RuntimeError, e.what());
    } catch (const weft::RunStopped& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });
  weft::python::bind_run(m);
  weft::python::bind_systems(m);
}
