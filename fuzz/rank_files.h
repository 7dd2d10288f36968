// The trace readers take file paths, one file per rank: a fuzz input holds up to kMaxRankFiles rank
// files joined by kRankSeparator, and each is handed to the readers as an in-memory file (memfd),
// rewritten for every input. Nothing touches the disk, nothing is left behind, and parallel fuzzing
// processes (-jobs, -fork) each have their own. Several ranks let the fuzzer reach the checks across
// files (a send without its recv, a rank twice, communicators).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft::fuzz {

inline constexpr std::string_view kRankSeparator = "\n--weft-fuzz-next-rank--\n";
// More separators than this stay inside the last file.
inline constexpr size_t kMaxRankFiles = 8;

class InputFile {
 public:
  explicit InputFile(const std::string& name);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the contents with `data`; returns a path any open() reads them from.
  const std::string& write(std::string_view data);

 private:
  int fd_ = -1;
  std::string path_;  // /proc/self/fd/N
};

class RankFiles {
 public:
  explicit RankFiles(std::string name) : name_(std::move(name)) {}
  // The input split at kRankSeparator into files; their paths in rank order (at least one).
  std::vector<std::string> write(const uint8_t* data, size_t size);

 private:
  std::string name_;
  std::vector<std::unique_ptr<InputFile>> files_;
};

}  // namespace weft::fuzz
