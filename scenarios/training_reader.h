// The `workload:` of a training scenario (DESIGN §7): a model from the catalogue (or defined in
// place), a parallel plan, batch and sequence, precision, read through the one YAML door.
#pragma once

#include <filesystem>
#include <string>

#include <optional>

#include <memory>

#include "collectives/network_calibration.h"
#include "scenarios/trace_workload.h"
#include "sim/core/errors.h"
#include "workloads/compute_model.h"
#include "workloads/replayer.h"
#include "workloads/training.h"

namespace weft {

class YamlMap;
struct SystemSpec;

struct TrainingWorkload {
  TrainingSpec spec;
  ComputeProfile profile;  // weft's defaults, or `profile:` (a calibration file) on top of them
  CollectiveTiming timing = CollectiveTiming::shared;  // `collective_timing:`
  std::string gpu;                                     // catalogue GPU of the system
  SourceLocation where;                                // of `workload:`
  // `trace:` instead of `model:`: the step comes from a trace; spec.model.name is its label and the
  // rest of spec is unused.
  std::optional<TraceWorkload> trace;
  std::optional<double> token_budget;  // `tokens:` to train on, for time and cost to train
  bool allow_oom = false;              // `allow_oom:` simulate a plan that does not fit in GPU memory
  // `calibration: profile.yaml` (weft calibrate's output): its compute efficiencies replace the
  // profile, and the measured latency/bandwidth fits of profile.network.yaml (beside it, or the
  // file itself when it is one) time the collectives and sends that were measured.
  std::shared_ptr<const NetworkCalibration> network;
  // The files `profile:` and `calibration:` named, resolved beside the scenario ("" when absent),
  // for writing the scenario back (scenario_yaml.h).
  std::string profile_file;
  std::string calibration_file;
};

// `key:`'s path, relative to the scenario file when it is relative.
std::filesystem::path beside_scenario(const YamlMap& workload, const std::string& key);
// weft's compute defaults for `profile.software`, with the file `profile:` names on top (its resolved
// path in `file`). Shared by the training and serving forms.
void read_compute_profile(const YamlMap& workload, ComputeProfile& profile, std::string& file);

// `model: NAME` (the catalogue), or a map of ModelConfig fields (training_fields()' model.*) on top of
// the catalogue model `name:` when given; checked. Shared by the training and serving forms.
ModelConfig read_model(const YamlMap& workload);

// Keys: model (a name, or a map: `name:` of a catalogue model to start from and any ModelConfig
// field), parallel, batch and the top-level knobs of training_fields() (workload_fields.h), plus
// profile and calibration (files, relative to the scenario). dp defaults to GPUs / (tp pp cp).
// Every impossible plan is a ConfigError at the key's file:line:column. With `trace:`
// (trace_workload.h) instead of `model:`, only collective_timing and calibration may sit beside it.
TrainingWorkload read_training(const YamlMap& workload, const SystemSpec& system);

}  // namespace weft
