// Credit sizing and the credit return of credit-based links (see credit_state.h).
#include "sim/packet/credit_state.h"

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/packet/egress.h"

namespace weft::packet {
namespace {

constexpr uint32_t kLargestSegment = 4096;  // bytes of payload per packet off the network (intra-host)

}  // namespace

CreditState::CreditState(Engine& engine, const CreditConfig& config, size_t links, Egress& egress)
    : engine_(engine), config_(config), egress_(egress), credits_(links), returns_(links) {
  engine_.hold_sequences(*this);
}

void CreditState::set_up(const EgressPort& p) {
  // Credits for line rate: the credit loop (data one way, credits back) plus two packets.
  uint64_t largest = kLargestSegment + (kLargestSegment + p.mtu - 1) / p.mtu * p.header;
  uint64_t loop = static_cast<uint64_t>(static_cast<uint128>(p.rate) * static_cast<uint128>(2 * p.latency.ps()) /
                                        8'000'000'000'000ULL);
  uint64_t credits = config_.buffer_per_vl.count();
  if (credits == 0) credits = loop + 2 * largest;
  if (credits < largest) {
    throw ConfigError(fmt::format("packet.credits: buffer_per_vl ({} B) cannot hold one packet ({} B) of link {}",
                                  credits, largest, p.link));
  }
  credits_[p.link].fill(static_cast<int64_t>(round_up(credits, config_.block_bytes)));
}

void CreditState::give_back(LinkId link, uint8_t priority, uint32_t charged, Time latency) {
  if (charged == 0) return;  // a read from host memory took none (Egress::takes_no_credits)
  const Time at = engine_.now() + latency;
  const uint64_t sequence = engine_.reserve_sequence();
  returns_[link].items.push_back({at.ps(), sequence, charged, priority});
  egress_.credit_wake(link);
}

void CreditState::settle(LinkId link) const {
  Returns& r = returns_[link];
  const int64_t now = engine_.now().ps();
  const uint64_t current = engine_.current_sequence();
  while (r.head < r.items.size()) {
    const Return& next = r.items[r.head];
    if (next.at > now || (next.at == now && next.sequence > current)) break;
    credits_[link][next.priority] += next.charged;
    ++r.head;
  }
  if (r.head == r.items.size()) {
    r.items.clear();
    r.head = 0;
  } else if (r.head > 64 && 2 * r.head > r.items.size()) {  // keep the list short
    r.items.erase(r.items.begin(), r.items.begin() + static_cast<std::ptrdiff_t>(r.head));
    r.head = 0;
  }
}

bool CreditState::next_return(LinkId link, Time& at, uint64_t& sequence) const {
  settle(link);
  const Returns& r = returns_[link];
  if (r.head == r.items.size()) return false;
  at = Time::ps(r.items[r.head].at);
  sequence = r.items[r.head].sequence;
  return true;
}

void CreditState::sequences(std::vector<uint64_t>& out) const {
  for (const Returns& r : returns_) {
    for (size_t i = r.head; i < r.items.size(); ++i) out.push_back(r.items[i].sequence);
  }
}

void CreditState::renumber(const Engine& engine) {
  for (Returns& r : returns_) {
    for (size_t i = r.head; i < r.items.size(); ++i) r.items[i].sequence = engine.renumbered(r.items[i].sequence);
  }
}

}  // namespace weft::packet
