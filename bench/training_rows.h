// The rows of a published training-throughput table (../shared/validation/training.csv) as weft
// simulations: the model from its name, the plan from the row and, where the row is silent, from the
// scripts behind the publication (Megatron-LM SC21, NeMo 24.09, MosaicML llm-foundry), each choice
// stated. A row the catalogue cannot describe comes back empty with the reason.
#pragma once

#include <optional>
#include <string>

#include "bench/csv_rows.h"
#include "scenarios/scenario.h"
#include "topologies/clusters.h"
#include "workloads/training.h"

namespace weft::bench {

struct RowOptions {
  // Rows up to 512 GPUs take a few minutes on one core; each 1,024-GPU Llama 70B row alone takes
  // over a minute, the SC21 rows above grow to several each.
  uint32_t max_gpus = 512;
  bool sc21_sp_zero1 = false;  // apply sequence parallelism and the distributed optimizer to SC21 too
};

// One row made into a simulation.
struct Case {
  std::string name;    // short, for the table ("GPT 1.7B", "MPT-7b amp_bf16")
  std::string family;  // publication and precision, for the per-family medians
  TrainingSpec spec;
  SoftwareStack software = SoftwareStack::y2025;  // the efficiencies' generation (compute_model.h)
  std::string system;                             // the catalogue preset, and what the row changes in it
  ClusterSpec cluster;                            // one node; the simulation sizes it to `gpus`
  uint32_t gpus = 0;
  double measured_s = 0, measured_tflops = 0;
  bool flops_with_recompute = false;  // the publication's TFLOP/s counts the recomputed forward
  std::string choices;                // what we chose where the row is silent
};

std::optional<Case> describe(const Row& row, const RowOptions& options, std::string& why_not);

// The case as a scenario, as weft_validate_training simulates it: its cluster sized to `gpus`, the
// `flow` fabric, collectives timed in isolation, the case's software generation.
Scenario scenario_of(const Case& c);

}  // namespace weft::bench
