// Measured latency and bandwidth fits (`weft calibrate` -> PROFILE.network.yaml, format
// weft-network-profile, docs/schedule-json.md) applied to simulations: a collective or send/recv
// whose series was measured takes the fitted time alpha + bytes / beta of its size's regime instead
// of the modelled one. Series are keyed as the executors measured them: kind (collective | p2p),
// op (all_reduce, ..., send_recv), ranks, algorithm and protocol (lower case, as NCCL's tuner
// names them), and the link class of the ranks (self | intra | inter: all on one host or not).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.h"
#include "topologies/topology.h"

namespace weft {

// How well a series' line follows its points (for people: the simulation uses alpha and beta only).
struct FitQuality {
  uint64_t points = 0;
  uint64_t outliers = 0;        // points the robust fit cut
  double rms_rel_residual = 0;  // of the inliers
  double max_rel_residual = 0;  // of any point
};

struct CalibratedSeries {
  std::string kind, op;
  uint32_t ranks = 0;
  std::string algorithm, protocol, link;
  double from_bytes = 0;  // the regime holds from this size up to the next regime's
  double alpha_us = 0;
  double beta_GBps = 0;  // 1e9 bytes/s of the nccl-tests size
  FitQuality quality;
};

// Measured GEMM speed by shape class (min(m, n, k): small < 1024 <= medium < 4096 <= large).
struct GemmClassFit {
  std::string shape_class;
  double efficiency = 0;  // median achieved / dense peak of the dtype
  double tflops = 0;      // median achieved
  uint64_t points = 0;
};

struct NetworkCalibration {
  std::string source;
  std::string gpu;                  // catalogue GPU the measurements ran on ("" when none)
  std::optional<double> launch_us;  // launch overhead, when measured
  std::string launch_from;          // how it was found
  std::vector<CalibratedSeries> series;
  std::vector<GemmClassFit> gemm;
  // The fitted time, or none when no series has this key.
  std::optional<Time> time(std::string_view kind, std::string_view op, uint32_t ranks, std::string_view algorithm,
                           std::string_view protocol, std::string_view link, uint64_t bytes) const;
};

// "self" (one GPU), "intra" (all on one host), "inter".
std::string link_class(std::span<const NodeIndex> gpus, const Topology& topology);

}  // namespace weft
