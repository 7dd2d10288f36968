// The pieces of the weft._core module, one function per source file that adds its part.
#pragma once

#include <pybind11/pybind11.h>

namespace weft::python {

void bind_run(pybind11::module_& m);      // run_bindings.cpp: scenarios and their results
void bind_systems(pybind11::module_& m);  // system_bindings.cpp: catalogue, topologies, collectives, cost

}  // namespace weft::python
