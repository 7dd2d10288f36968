// A small dense GPT-style model (MHA, GELU, 1,024 hidden) so training replays in tests take
// milliseconds.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/model.h"

namespace weft::test {

inline ModelConfig small_model(std::string name = "test-small", uint32_t layers = 4) {
  ModelConfig m;
  m.name = std::move(name);
  m.layers = layers;
  m.hidden = 1024;
  m.heads = 16;
  m.kv_heads = 16;
  m.ffn = 4096;
  m.vocab = 1024;
  m.max_seq = 1024;
  return m;
}

}  // namespace weft::test
