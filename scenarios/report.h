// Output formats for sweeps and scenario runs (collectives, or a traffic pattern's FCT statistics
// and fabric counters): an nccl-tests-like table, CSV and JSON. Pure functions from results to
// text; the CLI decides where the text goes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "collectives/sweep.h"
#include "scenarios/run_scenario.h"

namespace weft {

enum class OutputFormat { table, csv, json };

// Throws ConfigError for anything but table, csv or json.
OutputFormat parse_output_format(std::string_view text);

struct SweepHeader {
  std::string op;
  std::string topology;
  uint32_t ranks;
  std::string fabric;
  std::string link_rate;  // empty for a catalogue system (its links vary by kind)
  std::string latency;
  uint32_t channels;  // 0: chosen per size by NCCL's tuner (catalogue systems)
};

std::string format_sweep(const SweepHeader& header, const std::vector<SweepRow>& rows, OutputFormat format);
std::string format_scenario(const ScenarioResult& result, OutputFormat format);

}  // namespace weft
