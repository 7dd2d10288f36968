// schedule.json and predicted.json (docs/schedule-json.md): what `weft lower` writes and the real
// executors (weft-exec, weft-exec-mpi) run. Plain data with exact integers (bytes, picoseconds), so a
// file round-trips bit for bit; the fingerprint ties predictions and measurements to one schedule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace weft {

inline constexpr int kScheduleVersion = 1;
inline constexpr int kPredictedVersion = 1;

enum class LoweredKind : uint8_t { compute, collective, send, recv, copy };
std::string_view to_string(LoweredKind k);

// A compute op as a GEMM C[m,n] = A[m,k] B[k,n] of `dtype` (2mnk FLOPs).
struct GemmShape {
  uint64_t m = 0, n = 0, k = 0;
  std::string dtype = "bf16";
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};

struct LoweredOp {
  uint32_t id = 0;  // position in its rank's program: stable, what deps, predictions and measurements name
  LoweredKind kind = LoweredKind::compute;
  uint32_t stream = 0;         // 0 compute, 1.. communication (one CUDA stream each)
  std::vector<uint32_t> deps;  // ids of earlier ops of the same rank
  std::string label;           // "fwd attn", "dp bucket", ... ("" when none)
  std::string group;           // parallel dimension: none dp tp pp cp ep other
  // collective, send, recv, copy
  uint64_t bytes = 0;  // collective: nccl-tests size; copy: bytes moved
  std::string dtype;   // collective element type: float32 | bf16 | uint8
  // collective
  std::string op;         // all_reduce all_gather reduce_scatter broadcast all_to_all reduce
  uint32_t comm = 0;      // index into LoweredSchedule::comms
  uint64_t instance = 0;  // n-th collective of `comm` (collective); n-th of (src, dst, tag) (send/recv)
  std::string algorithm;  // weft tuner's choice: ring tree nvls nvls_tree collnet_direct collnet_chain pat p2p
  std::string protocol;   // simple ll ll128 ("" for p2p)
  uint32_t channels = 0;
  uint32_t root = 0;  // broadcast / reduce: comm rank of the root
  // send / recv
  uint32_t peer = 0;
  uint32_t tag = 0;
  std::string link;  // collective / send / recv: self | intra | inter (hosts the data crosses)
  // compute
  int64_t duration_ps = 0;  // weft's time for the op (compute: always; the GPU runs `gemm` when given)
  double flops = 0;
  std::optional<GemmShape> gemm;
  // copy: d2d | h2d | d2h (GPU executor only; the MPI executor copies host memory)
  std::string direction;
};

struct LoweredComm {
  std::vector<uint32_t> ranks;  // global ranks in communicator-rank order
  std::string group;
  std::string link;  // self | intra | inter
};

struct LoweredSchedule {
  int version = kScheduleVersion;
  std::string name;
  std::string source;  // scenario file, variant and --set values, or the sweep's description
  std::string gpu;     // catalogue GPU the predictions assume ("" for a simple topology)
  std::vector<LoweredComm> comms;
  std::vector<std::vector<LoweredOp>> programs;  // [rank] -> ops in issue order
  uint32_t ranks() const { return static_cast<uint32_t>(programs.size()); }
};

// weft's time per op, from the replay (or the calibrated model) of the same schedule.
struct PredictedOp {
  uint32_t rank = 0, id = 0;
  int64_t issued_ps = 0, start_ps = 0, end_ps = 0;
};
struct Predicted {
  int version = kPredictedVersion;
  std::string schedule_name;
  std::string fingerprint;
  std::string model;  // how the times were made: "replay (flow fabric)", "calibrated: FILE"
  int64_t step_ps = 0;
  std::vector<PredictedOp> ops;
};

// FNV-1a 64 of the canonical JSON of comms and programs, as 16 hex digits.
std::string fingerprint(const LoweredSchedule& s);

nlohmann::json to_json(const LoweredOp& o);
// `where` names the op in messages.
LoweredOp lowered_op_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json to_json(const LoweredSchedule& s);
// ConfigError naming `source` for another format or version, a missing or mistyped field.
LoweredSchedule schedule_from_json(const nlohmann::json& j, const std::string& source);
nlohmann::json to_json(const Predicted& p);
Predicted predicted_from_json(const nlohmann::json& j, const std::string& source);

// Reads a JSON file (ConfigError when missing or not JSON).
nlohmann::json read_json_file(const std::string& path);
// Writes `text` to path.tmp.PID and renames it over `path`: readers never see half a file.
void write_file_atomically(const std::string& path, const std::string& text);

// Reads the file and checks it (check_schedule, executor/schedule_check.h); errors name the file.
LoweredSchedule load_schedule(const std::string& path);
void save_schedule(const LoweredSchedule& s, const std::string& path);

// Element size of a collective dtype (ConfigError for an unknown one).
uint32_t collective_dtype_bytes(std::string_view dtype);

}  // namespace weft
