// weft-exec SCHEDULE --out MEASURED: runs a lowered schedule on GPUs — NCCL collectives and
// send/recv with the schedule's algorithm/protocol/channels forced (or NCCL's own choice), cuBLAS
// bf16 GEMMs or timed spin kernels for compute, CUDA events around every op — and writes
// measured.json (docs/schedule-json.md). One process per GPU under mpirun, or --single-process
// (one thread per local GPU).
// Exit codes: 0 done; 2 bad input (nothing ran); 3 the run failed (no measurement written);
// 64 usage; 69 no usable CUDA GPU here (EX_UNAVAILABLE of sysexits.h).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <array>
#include <cstdio>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <thread>

#ifdef WEFT_EXEC_HAVE_MPI
#include <mpi.h>
#endif

#include "executor/cuda/bootstrap.h"
#include "executor/cuda/gpu_runner.h"
#include "executor/measured_file.h"
#include "sim/core/errors.h"

namespace {

using nlohmann::json;
using weft::gpu_exec::Bootstrap;

constexpr int kNoGpu = 69;

struct Args {
  std::string schedule;
  std::string out;
  uint32_t warmup = 2;
  uint32_t repeats = 5;
  bool single_process = false;
  bool nccl_choice = false;
  bool check_only = false;
};

std::string run_command(const char* cmd) {
  std::string out;
  if (FILE* p = popen(cmd, "r")) {
    std::array<char, 4096> buf{};
    size_t n = 0;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    pclose(p);
  }
  return out;
}

json gpu_environment(int device) {
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  int driver = 0, runtime = 0, nccl = 0, cublas = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  ncclGetVersion(&nccl);
  cublasGetProperty(MAJOR_VERSION, &cublas);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return json{{"host", host},
              {"gpu", prop.name},
              {"device", device},
              {"sm", fmt::format("{}.{}", prop.major, prop.minor)},
              {"memory_bytes", prop.totalGlobalMem},
              {"cuda_driver", fmt::format("{}.{}", driver / 1000, driver % 1000 / 10)},
              {"cuda_runtime", fmt::format("{}.{}", runtime / 1000, runtime % 1000 / 10)},
              {"nccl", fmt::format("{}.{}.{}", nccl / 10000, nccl % 10000 / 100, nccl % 100)},
              {"cublas_major", cublas}};
}

// The rows of this rank (and its environment), as JSON text for the gather.
std::string run_rank(const weft::LoweredSchedule& s, const Args& a, Bootstrap& boot, int device) {
  weft::gpu_exec::GpuRunner runner(s, device, boot, !a.nccl_choice);
  std::vector<std::vector<weft::gpu_exec::OpTimes>> runs;
  for (uint32_t i = 0; i < a.warmup + a.repeats; ++i) {
    auto t = runner.run_once();
    if (i >= a.warmup) runs.push_back(std::move(t));
  }
  const auto rank = static_cast<uint32_t>(boot.rank());
  json rows = json::array();
  for (const weft::LoweredOp& o : s.programs[rank]) {
    weft::MeasuredOp m{rank, o.id, o, 1, runner.executed()[o.id], {}, {}};
    if (o.kind == weft::LoweredKind::collective) m.comm_ranks = static_cast<uint32_t>(s.comms[o.comm].ranks.size());
    for (const auto& run : runs) {
      m.start_us.push_back(run[o.id].start_us);
      m.end_us.push_back(run[o.id].end_us);
    }
    rows.push_back(weft::to_json(m));
  }
  return json{{"environment", gpu_environment(device)}, {"rows", rows}}.dump();
}

void write_measured(const weft::LoweredSchedule& s, const Args& a, const std::vector<std::string>& texts) {
  std::vector<json> gathered;
  json ranks = json::array();
  for (const std::string& t : texts) {
    gathered.push_back(json::parse(t));
    ranks.push_back(gathered.back().at("environment"));
  }
  const weft::MeasuredRun run{"weft-exec", a.nccl_choice ? "nccl-choice" : "nccl-forced", a.warmup, a.repeats};
  weft::Measured m = weft::gathered_measurement(s, run, gathered);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.environment =
      json{{"host", ranks.empty() ? json("") : ranks[0]["host"]},
           {"ranks", ranks},
           {"date", date},
           {"bootstrap", a.single_process ? "single process, one thread per GPU" : "MPI, one process per GPU"},
           {"topology", run_command("nvidia-smi topo -m 2>/dev/null")},
           {"clock", "cudaEventElapsedTime from an origin event recorded after a barrier, per rank"}};
  weft::write_file_atomically(a.out, weft::to_json(m).dump(1) + "\n");
  fmt::print("weft-exec: {} ranks, {} warm-up + {} repeats ({}) -> {}\n", s.ranks(), a.warmup, a.repeats, m.mode,
             a.out);
}

int gpu_count() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    fmt::print(stderr, "weft-exec: no usable CUDA GPU here ({}); weft-exec-mpi runs the same schedule on CPUs\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 0;
  }
  return n;
}

int single_process(const weft::LoweredSchedule& s, const Args& a) {
  const int gpus = gpu_count();
  if (gpus == 0) return kNoGpu;
  if (static_cast<int>(s.ranks()) > gpus) {
    fmt::print(stderr, "weft-exec: error: the schedule has {} ranks but this machine has {} GPUs\n", s.ranks(), gpus);
    return 2;
  }
  std::remove(a.out.c_str());
  weft::gpu_exec::ThreadGroup group(static_cast<int>(s.ranks()));
  std::vector<std::string> texts(s.ranks());
  std::vector<std::string> errors(s.ranks());
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < s.ranks(); ++r) {
    threads.emplace_back([&, r] {
      auto boot = weft::gpu_exec::thread_bootstrap(group, static_cast<int>(r));
      try {
        texts[r] = run_rank(s, a, *boot, static_cast<int>(r));
      } catch (const std::exception& e) {
        errors[r] = e.what();
        group.sync.arrive_and_drop();  // let the others pass their barriers and fail too
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (uint32_t r = 0; r < s.ranks(); ++r) {
    if (!errors[r].empty()) {
      fmt::print(stderr, "weft-exec: rank {} failed: {}\n", r, errors[r]);
      return 3;
    }
  }
  write_measured(s, a, texts);
  return 0;
}

#ifdef WEFT_EXEC_HAVE_MPI
int with_mpi(const weft::LoweredSchedule& s, const Args& a) {
  auto boot = weft::gpu_exec::mpi_bootstrap();
  if (s.ranks() != static_cast<uint32_t>(boot->size())) {
    if (boot->rank() == 0) {
      fmt::print(stderr, "weft-exec: error: the schedule has {} ranks but {} processes were launched (mpirun -np {})\n",
                 s.ranks(), boot->size(), s.ranks());
    }
    return 2;
  }
  const int gpus = gpu_count();
  int ok = gpus > 0 ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) return kNoGpu;
  if (boot->rank() == 0) std::remove(a.out.c_str());
  try {
    const std::vector<std::string> texts = boot->gather(run_rank(s, a, *boot, boot->local_rank() % gpus));
    if (boot->rank() == 0) write_measured(s, a, texts);
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft-exec: rank {} failed: {}\n", boot->rank(), e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
  return 0;
}
#endif

int run(const Args& a) {
  weft::LoweredSchedule s;
  try {
    s = weft::load_schedule(a.schedule);
    if (a.repeats == 0) throw weft::ConfigError("--repeats must be at least 1");
  } catch (const weft::ConfigError& e) {
    fmt::print(stderr, "weft-exec: error: {}\n", e.what());
    return 2;
  }
  if (a.check_only) {
    fmt::print("weft-exec: {} is a valid schedule of {} ranks (fingerprint {})\n", a.schedule, s.ranks(),
               weft::fingerprint(s));
    return 0;
  }
  if (a.single_process) return single_process(s, a);
#ifdef WEFT_EXEC_HAVE_MPI
  return with_mpi(s, a);
#else
  fmt::print(stderr, "weft-exec: built without MPI: use --single-process\n");
  return 64;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft-exec: run a lowered schedule (weft lower) on GPUs with NCCL and cuBLAS"};
  Args a;
  app.add_option("schedule", a.schedule, "schedule.json from weft lower")->required();
  app.add_option("--out", a.out, "measured.json to write (atomically, by rank 0)");
  app.add_option("--warmup", a.warmup, "Untimed runs of the whole schedule first")->capture_default_str();
  app.add_option("--repeats", a.repeats, "Timed runs; measured.json keeps each and the median")->capture_default_str();
  app.add_flag("--single-process", a.single_process, "One process, one thread per local GPU (no mpirun)");
  app.add_flag("--nccl-choice", a.nccl_choice, "Let NCCL choose algorithm, protocol and channels");
  app.add_flag("--check", a.check_only, "Only validate the schedule (no GPU needed)");
  try {
    app.parse(argc, argv);
    if (!a.check_only && a.out.empty()) throw CLI::RequiredError("--out");
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 64;
  }
#ifdef WEFT_EXEC_HAVE_MPI
  const bool mpi = !a.single_process && !a.check_only;
  if (mpi) MPI_Init(&argc, &argv);
#endif
  int rc = 0;
  try {
    rc = run(a);
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft-exec: error: {}\n", e.what());
    rc = 3;
  }
#ifdef WEFT_EXEC_HAVE_MPI
  if (mpi) MPI_Finalize();
#endif
  return rc;
}
