// PFC pause frames, their refresh and their effect on the upstream port (see pfc_state.h).
#include "sim/packet/pfc_state.h"

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/packet/egress.h"

namespace weft::packet {
namespace {

constexpr uint32_t kPauseFrameBytes = 64;  // 802.1Qbb MAC control frame

}  // namespace

PfcState::PfcState(Engine& engine, const PfcConfig& config, FabricStats& stats, size_t links, Egress& egress)
    : engine_(engine), config_(config), stats_(stats), egress_(egress), links_(links) {}

// What arrives after the pause is sent: a frame being sent at each end, the pause frame, and a
// round trip of the cable at line rate (IEEE 802.1Qbb headroom terms).
uint64_t PfcState::headroom_for(const EgressPort& p) const {
  uint64_t frame = p.mtu + p.header;
  uint64_t round_trip = static_cast<uint64_t>(static_cast<uint128>(p.rate) * static_cast<uint128>(2 * p.latency.ps()) /
                                              8'000'000'000'000ULL);
  uint64_t needed = 2 * frame + kPauseFrameBytes + round_trip;
  uint64_t given = config_.headroom.count();
  if (given == 0) return needed;
  if (given < needed) {
    throw ConfigError(
        fmt::format("packet.pfc: headroom {} B is below what link {} needs ({} B: two {} B frames, a "
                    "pause frame and the {} B in flight over a round trip)",
                    given, p.link, needed, frame, round_trip));
  }
  return given;
}

// A pause (or resume) frame from link's receiver back to its sender: one minimum frame of wire time
// plus the propagation delay. While pausing, the receiver refreshes it at half the quanta.
void PfcState::send_pause(LinkId link, uint8_t priority, bool pause) {
  const EgressPort& port = egress_.port(link);
  links_[link].pausing[priority] = pause;
  Time quanta = pause ? transmit_time_bits(static_cast<uint128>(512ULL * config_.quanta), port.rate) : Time();
  Time arrival = engine_.now() + transmit_time(Bytes(kPauseFrameBytes), Bandwidth::bps(port.rate)) + port.latency;
  if (pause) {
    ++stats_.pause_frames;
    engine_.schedule_at(engine_.now() + Time::ps(quanta.ps() / 2),
                        [this, link, priority] { refresh_pause(link, priority); });
  }
  engine_.schedule_at(arrival, [this, link, priority, pause, quanta] {
    pause_arrived(link, priority, pause ? engine_.now() + quanta : engine_.now());
  });
}

void PfcState::refresh_pause(LinkId link, uint8_t priority) {
  if (links_[link].pausing[priority]) send_pause(link, priority, true);
}

void PfcState::pause_arrived(LinkId link, uint8_t priority, Time until) {
  Link& l = links_[link];
  Time now = engine_.now();
  bool paused = l.paused_until[priority] > now;
  if (!paused) {
    // A previous pause that ran out of quanta: count it, then start anew.
    Time expired = l.paused_until[priority] - l.paused_since[priority];
    stats_.paused_time += expired;
    l.paused += expired;
    l.paused_since[priority] = now;
    l.paused_until[priority] = now;
  }
  if (until > now) {
    ++l.pauses;
    l.paused_until[priority] = until;
    return;
  }
  stats_.paused_time += now - l.paused_since[priority];  // resume
  l.paused += now - l.paused_since[priority];
  l.paused_since[priority] = now;
  l.paused_until[priority] = now;
  egress_.try_send(link);
}

}  // namespace weft::packet
