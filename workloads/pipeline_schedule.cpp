#include "workloads/pipeline_schedule.h"

#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"

namespace weft {

std::string_view to_string(PipelineKind k) {
  switch (k) {
    case PipelineKind::gpipe:
      return "gpipe";
    case PipelineKind::one_f_one_b:
      return "1f1b";
    case PipelineKind::interleaved:
      return "interleaved";
  }
  return "?";
}

PipelineKind parse_pipeline_kind(std::string_view text) {
  if (text == "gpipe") return PipelineKind::gpipe;
  if (text == "1f1b") return PipelineKind::one_f_one_b;
  if (text == "interleaved") return PipelineKind::interleaved;
  throw ConfigError(fmt::format("pipeline schedule '{}': expected gpipe, 1f1b or interleaved", text));
}

namespace {

// Virtual micro-batch k of the interleaved schedule (Megatron's get_model_chunk_id and micro-batch id).
PipelineAction virtual_action(bool forward, uint32_t k, uint32_t stages, uint32_t chunks) {
  const uint32_t in_group = k % (stages * chunks);
  uint32_t chunk = in_group / stages;
  if (!forward) chunk = chunks - 1 - chunk;
  return {forward, k / (stages * chunks) * stages + k % stages, chunk};
}

// Warm-up forwards, then one forward and one backward in turn, then the rest of the backwards.
std::vector<PipelineAction> warmup_steady_cooldown(uint32_t total, uint32_t warmup, uint32_t stages, uint32_t chunks) {
  std::vector<PipelineAction> out;
  uint32_t f = 0, b = 0;
  for (; f < warmup; ++f) out.push_back(virtual_action(true, f, stages, chunks));
  while (b < total) {
    if (f < total) out.push_back(virtual_action(true, f++, stages, chunks));
    out.push_back(virtual_action(false, b++, stages, chunks));
  }
  return out;
}

}  // namespace

std::vector<PipelineAction> pipeline_actions(PipelineKind kind, uint32_t stage, uint32_t stages, uint32_t micro_batches,
                                             uint32_t chunks) {
  if (stages == 0 || micro_batches == 0 || chunks == 0 || stage >= stages) {
    throw ConfigError(fmt::format("pipeline: stage {} of {}, {} micro-batches, {} chunks is not a pipeline", stage,
                                  stages, micro_batches, chunks));
  }
  if (kind != PipelineKind::interleaved && chunks != 1) {
    throw ConfigError(
        fmt::format("pipeline: {} runs one model chunk per stage, got {} (use interleaved)", to_string(kind), chunks));
  }
  std::vector<PipelineAction> out;
  if (kind == PipelineKind::gpipe) {
    for (uint32_t m = 0; m < micro_batches; ++m) out.push_back({true, m, 0});
    for (uint32_t m = 0; m < micro_batches; ++m) out.push_back({false, m, 0});
    return out;
  }
  if (kind == PipelineKind::one_f_one_b) {
    return warmup_steady_cooldown(micro_batches, std::min(stages - stage - 1, micro_batches), stages, 1);
  }
  if (micro_batches % stages != 0) {
    throw ConfigError(
        fmt::format("pipeline: the interleaved schedule needs micro-batches ({}) divisible by pipeline "
                    "stages ({})",
                    micro_batches, stages));
  }
  const uint32_t total = micro_batches * chunks;
  const uint32_t warmup = std::min(2 * (stages - stage - 1) + (chunks - 1) * stages, total);
  return warmup_steady_cooldown(total, warmup, stages, chunks);
}

}  // namespace weft
