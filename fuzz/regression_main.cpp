// Runs every file of fuzz/corpus/<target>/ and fuzz/crashes/<target>/ through its fuzz target, as
// the libFuzzer executables would, without libFuzzer (any compiler, every `make test`). A file passes
// when the reader returned or threw ConfigError; any other exception fails the run with its name.
// A crash or a sanitizer report (under WEFT_SANITIZE) stops the process, which CTest shows.
//
//   weft_fuzz_regression FUZZ_DIR              every target's corpus and crashes under FUZZ_DIR
//   weft_fuzz_regression TARGET PATH...        files, or folders of files, through one target
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/exception_name.h"
#include "fuzz/fuzz_targets.h"

namespace fs = std::filesystem;
using weft::fuzz::Target;

namespace {

struct Tally {
  size_t files = 0;
  size_t failures = 0;
};

std::vector<fs::path> files_under(const fs::path& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());  // a reproducible order
  return files;
}

void run_file(const Target& target, const fs::path& file, Tally& tally) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "FAIL %s: cannot read the file\n", file.c_str());
    ++tally.failures;
    return;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ++tally.files;
  try {
    target.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL %s (%.*s): uncaught %s: %s\n", file.c_str(), static_cast<int>(target.name.size()),
                 target.name.data(), weft::fuzz::exception_name(e).c_str(), e.what());
    ++tally.failures;
  }
}

const Target* find_target(std::string_view name) {
  for (const Target& t : weft::fuzz::kTargets) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// The corpus of each target must be there: an empty run would pass without testing anything.
int run_fuzz_dir(const fs::path& dir) {
  Tally tally;
  for (const Target& t : weft::fuzz::kTargets) {
    const fs::path corpus = dir / "corpus" / t.name;
    const size_t before = tally.files;
    if (fs::is_directory(corpus)) {
      for (const fs::path& f : files_under(corpus)) run_file(t, f, tally);
    }
    const size_t seeds = tally.files - before;
    if (seeds == 0) {
      std::fprintf(stderr, "FAIL %s: no corpus files\n", corpus.c_str());
      ++tally.failures;
    }
    const fs::path crashes = dir / "crashes" / t.name;
    if (fs::is_directory(crashes)) {
      for (const fs::path& f : files_under(crashes)) run_file(t, f, tally);
    }
    std::printf("%.*s: %zu corpus + %zu crash files\n", static_cast<int>(t.name.size()), t.name.data(), seeds,
                tally.files - before - seeds);
  }
  std::printf("%zu files, %zu failures\n", tally.files, tally.failures);
  return tally.failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && find_target(argv[1]) == nullptr) return run_fuzz_dir(argv[1]);
  const Target* target = argc >= 3 ? find_target(argv[1]) : nullptr;
  if (target == nullptr) {
    std::fprintf(stderr, "usage: %s FUZZ_DIR | %s TARGET PATH...  (targets: chakra, kineto, scenario)\n", argv[0],
                 argv[0]);
    return 2;
  }
  Tally tally;
  for (int i = 2; i < argc; ++i) {
    for (const fs::path& f : files_under(argv[i])) run_file(*target, f, tally);
  }
  std::printf("%zu files, %zu failures\n", tally.files, tally.failures);
  return tally.failures == 0 ? 0 : 1;
}
