// Sequential reading of trace files, plain or gzip (zlib tells them apart by the 1f 8b magic), and
// the varint-length-delimited message stream of Chakra ETs (../shared/reference/workloads.md §1.2).
// Lengths are capped before anything is allocated, so a corrupt length cannot ask for gigabytes.
#pragma once

#include <cstdint>
#include <memory>
#include <streambuf>
#include <string>

namespace weft {

// One file, decompressed on the fly when it is gzip. Errors are ConfigErrors naming the file.
class TraceFile {
 public:
  explicit TraceFile(const std::string& path);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  // Up to `n` bytes into `out`; 0 at the end of the data.
  size_t read(char* out, size_t n);
  const std::string& path() const { return path_; }
  uint64_t offset() const { return offset_; }  // decompressed bytes read so far

 private:
  std::string path_;
  void* gz_ = nullptr;  // gzFile
  uint64_t offset_ = 0;
};

// The largest message of a Chakra ET we accept: a node or the metadata (which may embed the whole
// source text of a converted workload) is far below this.
inline constexpr uint64_t kMaxChakraMessageBytes = 256ull << 20;

// Chakra's stream: each message preceded by its length as a base-128 varint.
class DelimitedReader {
 public:
  explicit DelimitedReader(TraceFile& file) : file_(file) {}
  // The next message into `message`; false at a clean end of file. A truncated length or body, or a
  // length over kMaxChakraMessageBytes, throws ConfigError naming the message index and offset.
  bool next(std::string& message);
  uint64_t index() const { return index_; }  // messages returned so far

 private:
  bool read_length(uint64_t& length);
  TraceFile& file_;
  uint64_t index_ = 0;
};

// A std::streambuf over a TraceFile, for the JSON parsers.
class TraceStreambuf : public std::streambuf {
 public:
  explicit TraceStreambuf(TraceFile& file) : file_(file) {}

 protected:
  int_type underflow() override;

 private:
  TraceFile& file_;
  char buffer_[1 << 16];
};

}  // namespace weft
