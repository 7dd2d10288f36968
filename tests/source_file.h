// The text of a file of the source tree (README.md, docs/...), for the tests that prove the docs
// hold what the field tables say. The test target defines WEFT_SOURCE_DIR.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

inline std::string source_file(const std::string& relative) {
  std::ifstream file(std::string(WEFT_SOURCE_DIR) + "/" + relative);
  if (!file) throw std::runtime_error("cannot read " + relative);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}
