// weft-exec-mpi SCHEDULE --out MEASURED: runs a lowered schedule on MPI ranks (one per schedule
// rank) on CPUs — collectives as their algorithm's point-to-point steps or as MPI collectives,
// compute as busy loops of its duration — and writes measured.json (docs/schedule-json.md).
// Exit codes: 0 done; 2 bad input (nothing ran); 3 the run failed (no measurement written); 64 usage.
#include <mpi.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "executor/measured_file.h"
#include "executor/mpi/mpi_runner.h"
#include "sim/core/errors.h"

namespace {

using nlohmann::json;
using weft::mpi_exec::CollectiveMode;
using weft::mpi_exec::OpTimes;

struct Args {
  std::string schedule;
  std::string out;
  uint32_t warmup = 2;
  uint32_t repeats = 5;
  bool mpi_collectives = false;
  double timeout_s = 120;
};

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "";
}

json environment(int size, const std::vector<std::string>& hosts) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  utsname u{};
  uname(&u);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::string mpi(lib, static_cast<size_t>(len));
  while (!mpi.empty() && (mpi.back() == '\n' || mpi.back() == '\0')) mpi.pop_back();
  return json{{"host", hosts.empty() ? "" : hosts[0]},
              {"hosts", hosts},
              {"processes", size},
              {"mpi", mpi},
              {"kernel", fmt::format("{} {} {}", u.sysname, u.release, u.machine)},
              {"cpu", cpu_model()},
              {"cores", sysconf(_SC_NPROCESSORS_ONLN)},
              {"date", date},
              {"clock", "MPI_Wtime per rank, each repeat from that rank's exit of an MPI_Barrier"}};
}

// This rank's rows, as JSON text for the gather.
std::string rows_of(const weft::LoweredSchedule& s, uint32_t rank, const std::vector<std::vector<OpTimes>>& runs,
                    const std::vector<std::string>& executed) {
  json rows = json::array();
  for (const weft::LoweredOp& o : s.programs[rank]) {
    weft::MeasuredOp m;
    m.rank = rank;
    m.id = o.id;
    m.op = o;
    m.comm_ranks = o.kind == weft::LoweredKind::collective ? static_cast<uint32_t>(s.comms[o.comm].ranks.size()) : 1;
    m.executed = executed[o.id];
    for (const auto& run : runs) {
      m.start_us.push_back(run[o.id].start_us);
      m.end_us.push_back(run[o.id].end_us);
    }
    rows.push_back(weft::to_json(m));
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return json{{"host", host}, {"rows", rows}}.dump();
}

// Gathers every rank's text at rank 0.
std::vector<std::string> gather_text(const std::string& mine, int rank, int size) {
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size)), offsets(static_cast<size_t>(size));
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    int total = 0;
    for (int i = 0; i < size; ++i) {
      offsets[static_cast<size_t>(i)] = total;
      total += counts[static_cast<size_t>(i)];
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (rank == 0) {
    for (int i = 0; i < size; ++i)
      out.push_back(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(i)]),
                               static_cast<size_t>(counts[static_cast<size_t>(i)])));
  }
  return out;
}

// The schedule, checked against the launch; nullopt (rank 0 says why) when it cannot run.
std::optional<weft::LoweredSchedule> load_for_launch(const Args& a, int rank, int size) {
  try {
    weft::LoweredSchedule s = weft::load_schedule(a.schedule);
    if (s.ranks() != static_cast<uint32_t>(size)) {
      throw weft::ConfigError(
          fmt::format("{}: the schedule has {} ranks but {} processes were launched (mpirun -np {})", a.schedule,
                      s.ranks(), size, s.ranks()));
    }
    if (a.repeats == 0) throw weft::ConfigError("--repeats must be at least 1");
    return s;
  } catch (const weft::ConfigError& e) {
    if (rank == 0) fmt::print(stderr, "weft-exec-mpi: error: {}\n", e.what());
    return std::nullopt;
  }
}

// One MPI communicator per schedule comm, its members in comm-rank order (MPI_COMM_NULL where this
// rank is not a member). Collective over MPI_COMM_WORLD: every rank calls it.
std::vector<MPI_Comm> split_comms(const weft::LoweredSchedule& s, int rank) {
  std::vector<MPI_Comm> comms;
  for (const weft::LoweredComm& c : s.comms) {
    const auto it = std::find(c.ranks.begin(), c.ranks.end(), static_cast<uint32_t>(rank));
    const bool member = it != c.ranks.end();
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, member ? static_cast<int>(it - c.ranks.begin()) : 0,
                   &comm);
    comms.push_back(comm);
  }
  return comms;
}

// The timed runs after the warm-up ones, each started from a barrier; nullopt when one failed (this
// rank said why and aborted the job).
std::optional<std::vector<std::vector<OpTimes>>> timed_runs(const Args& a, weft::mpi_exec::RankRunner& runner) {
  std::vector<std::vector<OpTimes>> runs;
  try {
    for (uint32_t i = 0; i < a.warmup + a.repeats; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      std::vector<OpTimes> t = runner.run_once(MPI_Wtime());
      if (i >= a.warmup) runs.push_back(std::move(t));
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft-exec-mpi: run failed: {}\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);
    return std::nullopt;
  }
  return runs;
}

// Rank 0: measured.json from every rank's gathered rows.
void write_measured(const Args& a, const weft::LoweredSchedule& s, const std::vector<std::string>& texts, int size) {
  std::vector<json> ranks;
  std::vector<std::string> hosts;
  for (const std::string& t : texts) {
    ranks.push_back(json::parse(t));
    hosts.push_back(ranks.back().at("host").get<std::string>());
  }
  const weft::MeasuredRun run{"weft-exec-mpi", a.mpi_collectives ? "mpi-collectives" : "p2p", a.warmup, a.repeats};
  weft::Measured m = weft::gathered_measurement(s, run, ranks);
  m.environment = environment(size, hosts);
  weft::write_file_atomically(a.out, weft::to_json(m).dump(1) + "\n");
  fmt::print("weft-exec-mpi: {} ranks x {} ops, {} warm-up + {} repeats ({}) -> {}\n", size, m.ops.size() / s.ranks(),
             a.warmup, a.repeats, m.mode, a.out);
}

int run(const Args& a, int rank, int size) {
  const std::optional<weft::LoweredSchedule> s = load_for_launch(a, rank, size);
  if (!s) return 2;
  if (rank == 0) std::remove(a.out.c_str());  // a failed run must not leave an older measurement behind
  std::vector<MPI_Comm> comms = split_comms(*s, rank);
  MPI_Comm p2p = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &p2p);
  const CollectiveMode mode = a.mpi_collectives ? CollectiveMode::mpi : CollectiveMode::p2p;
  weft::mpi_exec::RankRunner runner(*s, static_cast<uint32_t>(rank), comms, p2p, mode, a.timeout_s);
  const std::optional<std::vector<std::vector<OpTimes>>> runs = timed_runs(a, runner);
  if (!runs) return 3;
  const std::vector<std::string> texts =
      gather_text(rows_of(*s, static_cast<uint32_t>(rank), *runs, runner.executed()), rank, size);
  if (rank == 0) write_measured(a, *s, texts, size);
  for (MPI_Comm& c : comms) {
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  }
  MPI_Comm_free(&p2p);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"weft-exec-mpi: run a lowered schedule (weft lower) on MPI ranks, one per schedule rank"};
  Args a;
  app.add_option("schedule", a.schedule, "schedule.json from weft lower")->required();
  app.add_option("--out", a.out, "measured.json to write (atomically, by rank 0)")->required();
  app.add_option("--warmup", a.warmup, "Untimed runs of the whole schedule first")->capture_default_str();
  app.add_option("--repeats", a.repeats, "Timed runs; measured.json keeps each and the median")->capture_default_str();
  app.add_flag("--mpi-collectives", a.mpi_collectives,
               "MPI's non-blocking collectives instead of the algorithm's p2p steps");
  app.add_option("--timeout", a.timeout_s, "Seconds without progress before the run is declared stuck")
      ->capture_default_str();
  int rc = 0;
  try {
    app.parse(argc, argv);
    rc = run(a, rank, size);
  } catch (const CLI::ParseError& e) {
    if (rank == 0) app.exit(e);
    rc = e.get_exit_code() == 0 ? 0 : 64;
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft-exec-mpi: error: {}\n", e.what());
    rc = 2;
  }
  MPI_Finalize();
  return rc;
}
