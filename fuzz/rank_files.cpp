#include "fuzz/rank_files.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace weft::fuzz {

namespace {

// Not a ConfigError: the harness itself failed, which must not pass for a rejected input.
[[noreturn]] void fail(const char* what) { throw std::runtime_error(std::string(what) + ": " + std::strerror(errno)); }

}  // namespace

InputFile::InputFile(const std::string& name) : fd_(memfd_create(name.c_str(), MFD_CLOEXEC)) {
  if (fd_ < 0) fail("memfd_create");
  path_ = "/proc/self/fd/" + std::to_string(fd_);
}

InputFile::~InputFile() { close(fd_); }

const std::string& InputFile::write(std::string_view data) {
  if (ftruncate(fd_, 0) != 0) fail("ftruncate");
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("pwrite");
    done += static_cast<size_t>(n);
  }
  return path_;
}

std::vector<std::string> RankFiles::write(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> paths;
  while (true) {
    if (files_.size() <= paths.size()) {
      files_.push_back(std::make_unique<InputFile>(name_ + "." + std::to_string(paths.size())));
    }
    const size_t cut = paths.size() + 1 < kMaxRankFiles ? rest.find(kRankSeparator) : std::string_view::npos;
    paths.push_back(files_[paths.size()]->write(rest.substr(0, cut)));
    if (cut == std::string_view::npos) return paths;
    rest.remove_prefix(cut + kRankSeparator.size());
  }
}

}  // namespace weft::fuzz
