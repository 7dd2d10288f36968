// The order in which one pipeline stage runs its forward and backward passes (pure functions).
// GPipe: all forwards, then all backwards (Huang et al. 2019, arXiv:1811.06965). 1F1B
// (PipeDream-Flush, Narayanan et al. 2021, arXiv:2006.09503): p - r - 1 warm-up forwards on stage r,
// then one forward and one backward in turn, then the remaining backwards. Interleaved 1F1B
// (arXiv:2104.04473, Megatron-LM schedules.py): each stage holds v model chunks; warm-up
// 2(p - r - 1) + (v - 1) p forwards; virtual micro-batch k runs chunk (k / p) mod v forward (backward:
// v - 1 - that) of micro-batch (k / (p v)) p + k mod p. Bubble fraction (p-1)/(m+p-1), and /v interleaved.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace weft {

enum class PipelineKind : uint8_t { gpipe, one_f_one_b, interleaved };
std::string_view to_string(PipelineKind k);
// "gpipe", "1f1b", "interleaved"; ConfigError listing them otherwise.
PipelineKind parse_pipeline_kind(std::string_view text);

struct PipelineAction {
  bool forward = true;
  uint32_t micro_batch = 0;
  uint32_t chunk = 0;  // model chunk on this stage (0 unless interleaved)
};

// Actions of stage `stage` of `stages`, with `micro_batches` micro-batches and `chunks` model chunks
// per stage (1 unless interleaved). Interleaving needs micro_batches divisible by stages (Megatron's
// rule): ConfigError otherwise.
std::vector<PipelineAction> pipeline_actions(PipelineKind kind, uint32_t stage, uint32_t stages, uint32_t micro_batches,
                                             uint32_t chunks = 1);

}  // namespace weft
