// The dynamic type of an exception, demangled ("weft::ModelError"), for fuzzing reports.
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <typeinfo>

namespace weft::fuzz {

inline std::string exception_name(const std::exception& e) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(typeid(e).name());
}

}  // namespace weft::fuzz
