// weft run: simulate a scenario file, or the bundled default scenario. With --out DIR, also write
// the result files (scenarios/output_files.h). A progress line on stderr for runs longer than a
// second when stderr is a terminal; Ctrl-C stops cleanly (main turns RunStopped into exit 130).
#include <fmt/format.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "scenarios/output_files.h"
#include "scenarios/report.h"
#include "scenarios/run_scenario.h"
#include "sim/fabric_registry.h"

namespace weft::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::string fabric;
  std::string format = "table";
  std::string out;
  std::vector<std::string> sets;  // --set KEY=VALUE
  bool quiet = false;
};

// Ctrl-C. A signal handler can reach nothing but static flags, so these two live here, in the CLI;
// the library sees only the poll the CLI gives run_scenario.
volatile std::sig_atomic_t g_interrupted = 0;
// 1 while nothing polls g_interrupted (loading, a collective or traffic simulation): Ctrl-C then
// ends the process at once, which is clean because no output file is open then.
volatile std::sig_atomic_t g_exit_at_once = 1;

void on_sigint(int) {
  if (g_exit_at_once || g_interrupted) {  // a second Ctrl-C never waits for the next poll
    static const char kMessage[] = "\nweft: interrupted\n";
    const ssize_t written = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    (void)written;
    _exit(130);  // 128 + SIGINT, as shells report it
  }
  g_interrupted = 1;
}

// Installs on_sigint for the scope of a run (unless the shell had SIGINT ignored), then restores.
class SigintScope {
 public:
  SigintScope() {
    struct sigaction action {};
    action.sa_handler = on_sigint;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, nullptr, &previous_);
    if (previous_.sa_handler != SIG_IGN) sigaction(SIGINT, &action, nullptr);
  }
  ~SigintScope() { sigaction(SIGINT, &previous_, nullptr); }
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;

 private:
  struct sigaction previous_ {};
};

// While alive, Ctrl-C only sets g_interrupted, for a poll to see.
class PolledScope {
 public:
  explicit PolledScope(bool polled) : polled_(polled) {
    if (polled_) g_exit_at_once = 0;
  }
  ~PolledScope() {
    if (polled_) g_exit_at_once = 1;
  }
  PolledScope(const PolledScope&) = delete;
  PolledScope& operator=(const PolledScope&) = delete;

 private:
  bool polled_;
};

std::string simulated_text(Time t) {
  const double s = t.seconds();
  if (s >= 1) return fmt::format("{:.2f} s", s);
  if (s >= 1e-3) return fmt::format("{:.1f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

std::string events_text(uint64_t n) {
  if (n >= 1'000'000'000) return fmt::format("{:.1f} G events", static_cast<double>(n) * 1e-9);
  if (n >= 1'000'000) return fmt::format("{:.1f} M events", static_cast<double>(n) * 1e-6);
  if (n >= 1'000) return fmt::format("{:.1f} k events", static_cast<double>(n) * 1e-3);
  return fmt::format("{} events", n);
}

// The progress line: shown once a run has taken a second, redrawn in place at most every 100 ms
// (wall), erased when the run ends or stops.
class Progress {
  using Clock = std::chrono::steady_clock;

 public:
  explicit Progress(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  ~Progress() {
    if (shown_) fmt::print(stderr, "\r\x1b[K");
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The poll given to run_scenario: false once Ctrl-C was pressed.
  bool poll(const RunProgress& p) {
    if (g_interrupted) return false;
    const Clock::time_point now = Clock::now();
    if (!enabled_ || now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) {
      return true;
    }
    last_ = now;
    shown_ = true;
    std::string line = fmt::format("weft: variant {}/{} '{}', simulated {}", p.variant + 1, p.variants, p.name,
                                   simulated_text(p.simulated));
    if (p.events > 0) line += ", " + events_text(p.events);
    fmt::print(stderr, "\r{}\x1b[K", line);
    std::fflush(stderr);
    return true;
  }

 private:
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_;
  Clock::time_point last_;
};

// Links with a utilisation counter in trace.json (--out): enough to find the hot spots, few enough
// for a trace viewer.
constexpr uint32_t kTracedLinks = 16;

ScenarioResult simulate(const Scenario& scenario, bool show_progress, bool traces) {
  Progress progress(show_progress);
  // Only a training replay and a serving run poll often enough for Ctrl-C to wait for them.
  PolledScope polled(scenario.training() != nullptr || scenario.serving() != nullptr);
  return run_scenario(
      scenario, [&progress](const RunProgress& p) { return progress.poll(p); },
      RunRecording{.busiest_links = traces ? kTracedLinks : 0});
}

void write_outputs(const ScenarioResult& result, const std::string& dir, bool quiet) {
  PolledScope polled(true);  // never stop inside a file: write_files checks between files
  const std::vector<OutputFile> files = scenario_files(result);
  write_files(dir, files, [] { return g_interrupted == 0; });
  if (!quiet) fmt::print(stderr, "weft: wrote {} files to {}\n", files.size(), dir);
}

void run(const RunArgs& a) {
  OutputFormat format = parse_output_format(a.format);
  Scenario scenario = a.scenario.empty() ? default_scenario(a.sets) : load_scenario_file(a.scenario, a.sets);
  if (!a.fabric.empty()) {
    find_fabric(a.fabric);
    scenario.fabric = a.fabric;
    for (ScenarioVariant& v : scenario.compare) v.scenario->fabric = a.fabric;
  }
  SigintScope sigint;
  g_interrupted = 0;
  ScenarioResult result = simulate(scenario, !a.quiet && isatty(STDERR_FILENO) == 1, !a.out.empty());
  if (!a.out.empty()) write_outputs(result, a.out, a.quiet);
  fmt::print("{}", format_scenario(result, format));
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate a scenario (YAML); without one, the bundled default scenario");
  cmd->add_option("scenario", args->scenario, "Scenario file (YAML)");
  cmd->add_option("--fabric", args->fabric,
                  "Override the scenario's fabric model (its packet settings are kept): " + fabric_names());
  cmd->add_option("--format", args->format, "table | csv | json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_option("--out", args->out,
                  "Also write summary.json, report.txt, CSV tables and a Chrome/Perfetto trace.json (training) "
                  "to this folder; summary.json is written last, each file atomically");
  cmd->add_option("--set", args->sets,
                  "Change a key of the scenario (and of every variant): KEY=VALUE, e.g. workload.batch.global=16, "
                  "system.nodes=4 (repeatable)");
  cmd->add_flag("--quiet,-q", args->quiet, "No progress line or notes on stderr (errors still go there)");
  return [args] { run(*args); };
}

}  // namespace weft::cli
