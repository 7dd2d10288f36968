#include "collectives/all_to_all.h"

#include <fmt/format.h>
#include <algorithm>

#include "collectives/algorithm_util.h"
#include "collectives/ring.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

uint64_t chunk_or_default(Bytes chunk, uint64_t bytes) {
  return chunk.count() > 0 ? chunk.count() : p2p_chunk_bytes(bytes);
}

}  // namespace

uint64_t p2p_chunk_bytes(uint64_t bytes) {
  if (bytes < kSimpleStepBytes) return kP2pChunkBytes / 4;
  if (bytes < kNcclSteps * kSimpleStepBytes) return kP2pChunkBytes / 2;
  return kP2pChunkBytes;
}

// Stream (r, j) = r * (n-1) + j - 1 sends rank r's block for peer r+j. With a bounded fan-out its
// first chunk waits for the last chunk of stream (r, j - peers_in_flight).
Schedule pairwise_all_to_all(uint32_t ranks, Bytes size, const AllToAllOptions& o) {
  Schedule s = detail::empty_schedule("all_to_all/pairwise", ranks, size, kNcclSteps);
  if (ranks == 1) return s;
  uint32_t peers = ranks - 1;
  uint32_t in_flight = o.peers_in_flight == 0 ? peers : std::min(o.peers_in_flight, peers);
  // S/n per peer, rounded up to whole bytes (at most n-1 bytes of padding).
  uint64_t block = detail::ceil_div(size.count(), ranks);
  uint64_t chunk = chunk_or_default(o.chunk, block);
  auto steps = static_cast<int32_t>(detail::chunk_count(block, chunk));
  for (uint32_t r = 0; r < ranks; ++r) {
    for (uint32_t j = 1; j <= peers; ++j) {
      Stream stream{r, j - 1, {}};
      StepRun gate;
      if (j > in_flight) {
        gate.wait_stream = static_cast<int32_t>(r * peers + j - 1 - in_flight);
        gate.wait_offset = steps - 1;  // step 0 waits for that stream's last step
      }
      uint32_t peer = (r + j) % ranks;
      if (block > 0) {
        uint64_t first = std::min(block, chunk);
        detail::append_chunked(stream, peer, first, chunk, gate);
        detail::append_chunked(stream, peer, block - first, chunk);
      }
      s.streams.push_back(std::move(stream));
    }
  }
  return s;
}

Schedule send_recv(uint32_t ranks, Bytes size, const SendRecvOptions& o) {
  Schedule s = detail::empty_schedule("send_recv/p2p", ranks, size, kNcclSteps);
  if (o.source >= ranks || o.destination >= ranks || o.source == o.destination) {
    throw ConfigError(fmt::format("send_recv: source {} and destination {} must be two different ranks of {}", o.source,
                                  o.destination, ranks));
  }
  Stream stream{o.source, 0, {}};
  uint64_t bytes = size.count();
  if (bytes > 0) detail::append_chunked(stream, o.destination, bytes, chunk_or_default(o.chunk, bytes));
  s.streams.push_back(std::move(stream));
  return s;
}

}  // namespace weft
