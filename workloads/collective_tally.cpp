#include "workloads/collective_tally.h"

#include <algorithm>

#include "sim/core/errors.h"

namespace weft {
namespace {

// The enum value whose to_string() is `name` (the records carry the names).
template <class E, size_t N>
E named(std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (to_string(static_cast<E>(i)) == name) return static_cast<E>(i);
  }
  throw InvariantError("collective tally: a record names an unknown group or op");
}

constexpr size_t kCollectiveOps = static_cast<size_t>(CollectiveOp::send_recv) + 1;

}  // namespace

void CollectiveTally::on_comm_done(const CommRecord& r) {
  std::string algorithm(r.algorithm);
  if (r.calibrated) algorithm += " calibrated";
  CollectiveStat& row = rows_[Key{r.group, r.op, r.bytes.count(), algorithm}];
  if (row.count == 0) {
    row.group = named<CommGroup, kCommGroups>(r.group);
    row.op = named<CollectiveOp, kCollectiveOps>(r.op);
    row.bytes = r.bytes;
    row.algorithm = std::move(algorithm);
  }
  row.ranks = r.ranks;
  row.count += 1;
  row.total += r.end - r.start;
}

std::vector<CollectiveStat> CollectiveTally::stats() const {
  std::vector<CollectiveStat> out;
  out.reserve(rows_.size());
  for (const auto& [key, row] : rows_) out.push_back(row);
  std::sort(out.begin(), out.end(), [](const CollectiveStat& a, const CollectiveStat& b) {
    return std::tie(a.group, a.op, a.bytes, a.algorithm) < std::tie(b.group, b.op, b.bytes, b.algorithm);
  });
  return out;
}

}  // namespace weft
