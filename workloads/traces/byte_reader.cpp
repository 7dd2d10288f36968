#include "workloads/traces/byte_reader.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <climits>

#include "sim/core/errors.h"

namespace weft {

TraceFile::TraceFile(const std::string& path) : path_(path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) throw ConfigError(fmt::format("trace file '{}': cannot open", path));
  gzbuffer(f, 1 << 17);
  gz_ = f;
}

TraceFile::~TraceFile() { gzclose(static_cast<gzFile>(gz_)); }

size_t TraceFile::read(char* out, size_t n) {
  auto f = static_cast<gzFile>(gz_);
  const int got = gzread(f, out, static_cast<unsigned>(std::min<size_t>(n, INT_MAX)));
  int code = Z_OK;
  const char* message = gzerror(f, &code);
  // A truncated gzip member reads as a short count with Z_BUF_ERROR set: not a clean end.
  if (got < 0 || (code != Z_OK && code != Z_STREAM_END)) {
    throw ConfigError(fmt::format("trace file '{}': cannot decompress at byte {}: {}", path_, offset_,
                                  message != nullptr ? message : "zlib error"));
  }
  offset_ += static_cast<uint64_t>(got);
  return static_cast<size_t>(got);
}

bool DelimitedReader::read_length(uint64_t& length) {
  length = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    char c = 0;
    if (file_.read(&c, 1) == 0) {
      if (shift == 0) return false;
      throw ConfigError(
          fmt::format("trace file '{}': message #{}: file ends inside its length varint", file_.path(), index_));
    }
    const auto byte = static_cast<uint8_t>(c);
    length |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  throw ConfigError(
      fmt::format("trace file '{}': message #{}: length varint longer than 10 bytes", file_.path(), index_));
}

bool DelimitedReader::next(std::string& message) {
  const uint64_t start = file_.offset();
  uint64_t length = 0;
  if (!read_length(length)) return false;
  if (length > kMaxChakraMessageBytes) {
    throw ConfigError(
        fmt::format("trace file '{}': message #{} at byte {}: length {} B exceeds the {} B cap "
                    "(not a Chakra ET, or corrupt)",
                    file_.path(), index_, start, length, kMaxChakraMessageBytes));
  }
  message.clear();
  // Grow by at most 1 MiB per read: a lying length on a short file costs no more than the file.
  while (message.size() < length) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(length - message.size(), 1u << 20));
    const size_t old = message.size();
    message.resize(old + chunk);
    const size_t got = file_.read(message.data() + old, chunk);
    message.resize(old + got);
    if (got == 0) {
      throw ConfigError(fmt::format("trace file '{}': message #{} at byte {}: truncated ({} of {} B)", file_.path(),
                                    index_, start, message.size(), length));
    }
  }
  ++index_;
  return true;
}

TraceStreambuf::int_type TraceStreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const size_t got = file_.read(buffer_, sizeof(buffer_));
  if (got == 0) return traits_type::eof();
  setg(buffer_, buffer_, buffer_ + got);
  return traits_type::to_int_type(*gptr());
}

}  // namespace weft
