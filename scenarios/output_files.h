// The files of `weft run --out DIR`, and writing them so that an interrupted or failed run never
// leaves a half-written file: each goes to DIR/.NAME.tmp first, then is renamed (atomic on POSIX).
// summary.json is removed first and written last, so its presence means the whole set is there.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "scenarios/chrome_trace.h"
#include "scenarios/run_scenario.h"

namespace weft {

struct OutputFile {
  std::string name;                   // inside the output folder
  std::function<std::string()> text;  // made when written, so big traces are never all in memory
};

// summary.json (format_scenario json), report.txt (the table), CSV tables (variants.csv and
// collectives.csv for a training run, results.csv otherwise) and, for a training run, trace.json
// (the baseline's timeline) and trace-NAME.json per compare: variant. summary.json comes last.
// `result` must outlive the texts' makers.
std::vector<OutputFile> scenario_files(const ScenarioResult& result, const ChromeTraceOptions& trace = {});

// Writes `text` to dir/name through dir/.name.tmp and a rename. Throws ConfigError when it cannot.
void write_file_atomically(const std::filesystem::path& dir, const std::string& name, const std::string& text);

// Creates `dir`, then writes `files` in order. `keep_going` is asked before each file (Ctrl-C);
// when it says stop, throws RunStopped with the files written so far complete and no summary.json.
void write_files(const std::filesystem::path& dir, const std::vector<OutputFile>& files,
                 const std::function<bool()>& keep_going = {});

}  // namespace weft
