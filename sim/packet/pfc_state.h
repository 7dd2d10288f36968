// PFC (IEEE 802.1Qbb) per link x priority. At a link's far end: the bytes buffered that arrived over
// it, whether that node pauses it, and the headroom above XOFF. At its near end: until when the
// egress port is paused. Pause and resume frames take wire time back upstream; a pause is refreshed
// at half its quanta while the ingress stays above XON. The XOFF threshold itself is the shared
// buffer's (SharedBuffer::xoff).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/engine.h"
#include "sim/fabric.h"
#include "sim/packet/packet_config.h"

namespace weft::packet {

class Egress;
struct EgressPort;

class PfcState {
 public:
  // `egress` is woken when a pause ends; it may be constructed after this object.
  PfcState(Engine& engine, const PfcConfig& config, FabricStats& stats, size_t links, Egress& egress);

  // PFC headroom of a port (bytes): what arrives after the pause is sent. Throws ConfigError when a
  // configured headroom is below it.
  uint64_t headroom_for(const EgressPort& port) const;
  void set_headroom(LinkId link, uint64_t bytes) { links_[link].headroom = bytes; }
  uint64_t headroom(LinkId link) const { return links_[link].headroom; }

  // Egress side: the port may not start a packet of this priority before this time.
  Time paused_until(LinkId link, uint8_t priority) const { return links_[link].paused_until[priority]; }

  // Ingress side (lossy Ethernet links count their ingress bytes too; they never pause).
  uint64_t ingress(LinkId link, uint8_t priority) const { return links_[link].ingress[priority]; }
  bool pausing(LinkId link, uint8_t priority) const { return links_[link].pausing[priority]; }
  // Would `bytes` more overflow the headroom reserved when the pause left (a lossless violation)?
  bool beyond_headroom(LinkId link, uint8_t priority, uint64_t bytes) const {
    const Link& l = links_[link];
    return l.pausing[priority] && l.ingress[priority] + bytes > l.pause_level[priority] + l.headroom;
  }
  void add_ingress(LinkId link, uint8_t priority, uint64_t bytes) { links_[link].ingress[priority] += bytes; }
  void remove_ingress(LinkId link, uint8_t priority, uint64_t bytes) { links_[link].ingress[priority] -= bytes; }
  // XOFF crossed: the far end pauses the link, reserving headroom above what it holds now.
  void pause(LinkId link, uint8_t priority) {
    links_[link].pause_level[priority] = links_[link].ingress[priority];
    send_pause(link, priority, true);
  }
  void resume(LinkId link, uint8_t priority) { send_pause(link, priority, false); }

  // For link_stats: pause frames the link's sender received, and the time it spent paused.
  uint64_t pauses(LinkId link) const { return links_[link].pauses; }
  Time paused(LinkId link) const { return links_[link].paused; }

 private:
  struct Link {
    uint64_t headroom = 0;                         // bytes accepted above XOFF (in flight when the pause left)
    std::array<Time, kPriorities> paused_until{};  // set by the far end's pauses
    std::array<Time, kPriorities> paused_since{};
    std::array<uint64_t, kPriorities> ingress{};      // bytes buffered at the far end
    std::array<bool, kPriorities> pausing{};          // the far end has paused this link
    std::array<uint64_t, kPriorities> pause_level{};  // ingress bytes when the pause left
    uint64_t pauses = 0;
    Time paused;
  };

  void send_pause(LinkId link, uint8_t priority, bool pause);
  void refresh_pause(LinkId link, uint8_t priority);
  void pause_arrived(LinkId link, uint8_t priority, Time until);

  Engine& engine_;
  const PfcConfig& config_;
  FabricStats& stats_;
  Egress& egress_;
  std::vector<Link> links_;  // by LinkId
};

}  // namespace weft::packet
