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
    : engine_(engine), config_(config), egress_(egress), credits_(links) {}

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
  engine_.schedule_at(engine_.now() + latency, [this, link, priority, charged] {
    credits_[link][priority] += charged;
    egress_.try_send(link);
  });
}

}  // namespace weft::packet
