#include "scenarios/output_files.h"

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <system_error>

#include "scenarios/report.h"
#include "scenarios/report_serving.h"
#include "scenarios/report_training.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSummary = "summary.json";

// A variant's name as part of a file name: letters, digits, '.' and '_' kept, every other run of
// characters one '-' ("x8 + bridges, 25GbE TCP" -> "x8-bridges-25GbE-TCP").
std::string file_stem(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "variant" : out;
}

// trace.json for the baseline, trace-NAME.json for each compare: variant (numbered when two names
// come out the same).
void add_traces(std::vector<OutputFile>& files, const ScenarioResult& result, const ChromeTraceOptions& options) {
  auto trace_of = [options](const ScenarioResult& r, const std::string& title) {
    return [&r, options, title] {
      ChromeTraceOptions o = options;
      o.title = title;
      return chrome_trace(*r.training->workload, r.training->replay, o, r.training->links);
    };
  };
  files.push_back({"trace.json", trace_of(result, result.scenario.baseline)});
  std::set<std::string> used{"trace.json"};
  for (size_t i = 0; i < result.variants.size() && i < result.scenario.compare.size(); ++i) {
    const std::string& name = result.scenario.compare[i].name;
    std::string file = "trace-" + file_stem(name) + ".json";
    if (!used.insert(file).second) file = fmt::format("trace-{}-{}.json", file_stem(name), i + 1);
    used.insert(file);
    if (result.variants[i].training) files.push_back({file, trace_of(result.variants[i], name)});
  }
}

void remove_if_present(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
  if (ec) throw ConfigError(fmt::format("cannot remove {}: {}", path.string(), ec.message()));
}

}  // namespace

std::vector<OutputFile> scenario_files(const ScenarioResult& result, const ChromeTraceOptions& trace) {
  std::vector<OutputFile> files;
  files.push_back({"report.txt", [&result] { return format_scenario(result, OutputFormat::table); }});
  if (result.training) {
    files.push_back({"variants.csv", [&result] { return training_csv(result); }});
    files.push_back({"collectives.csv", [&result] { return collectives_csv(result); }});
    add_traces(files, result, trace);
  } else if (result.serving) {
    files.push_back({"variants.csv", [&result] { return serving_csv(result); }});
    files.push_back({"requests.csv", [&result] { return serving_requests_csv(result); }});
    files.push_back({"trace.json", [&result] { return serving_trace(result); }});
  } else {
    files.push_back({"results.csv", [&result] { return format_scenario(result, OutputFormat::csv); }});
  }
  files.push_back({kSummary, [&result] { return format_scenario(result, OutputFormat::json); }});
  return files;
}

void write_file_atomically(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path tmp = dir / ("." + name + ".tmp");
  const fs::path target = dir / name;
  {
    errno = 0;  // iostreams set it on most failures but do not promise to
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      const std::string why = errno != 0 ? std::strerror(errno) : "write failed";
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw ConfigError(fmt::format("cannot write {}: {}", tmp.string(), why));
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);  // atomic within one folder: readers see the old file or the new one
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw ConfigError(fmt::format("cannot write {}: {}", target.string(), ec.message()));
  }
}

void write_files(const fs::path& dir, const std::vector<OutputFile>& files, const std::function<bool()>& keep_going) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ConfigError(fmt::format("cannot create output folder {}: {}", dir.string(), ec.message()));
  // A summary from an earlier run must not stand beside this run's other files if this one stops.
  remove_if_present(dir / kSummary);
  for (const OutputFile& f : files) {
    if (keep_going && !keep_going()) throw RunStopped("run stopped while writing " + dir.string());
    write_file_atomically(dir, f.name, f.text());
  }
}

}  // namespace weft
