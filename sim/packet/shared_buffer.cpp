// Buffer sizes and the static-PFC sizing check of the shared buffers (see shared_buffer.h).
#include "sim/packet/shared_buffer.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft::packet {
namespace {

constexpr uint64_t kNicBuffer = 2'000'000;  // bytes a NIC buffers from the wire [assumption: ConnectX class, MBs]

}  // namespace

SharedBuffer::SharedBuffer(const PacketConfig& config, const Topology& topology, PfcState& pfc)
    : config_(config), topology_(topology), pfc_(pfc) {
  used_.assign(topology.node_count(), 0);
  size_.assign(topology.node_count(), UINT64_MAX);
  for (NodeIndex n = 0; n < topology.node_count(); ++n) {
    if (topology.node(n).kind == NodeKind::network_switch) size_[n] = config_.switches.buffer.count();
    if (topology.node(n).kind == NodeKind::nic) size_[n] = kNicBuffer;
  }
}

// An incast from every lossless ingress port pauses only past XOFF; a smaller shared buffer drops
// what PFC was to keep, which a lossless transport never recovers: say so before running.
void SharedBuffer::check_static_pfc_fits(const std::vector<EgressPort>& ports) const {
  if (!config_.pfc.enabled || config_.pfc.dynamic) return;
  const Topology& t = topology_;
  std::vector<uint64_t> need(t.node_count(), 0);
  std::vector<uint32_t> lossless(t.node_count(), 0);
  for (const EgressPort& p : ports) {
    if (p.control != Control::pfc) continue;
    need[p.to] += config_.pfc.xoff.count() + pfc_.headroom(p.link);
    ++lossless[p.to];
  }
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    if (t.node(n).kind != NodeKind::network_switch || need[n] <= size_[n]) continue;
    throw ConfigError(fmt::format(
        "packet.pfc: switch {} has {} lossless ports; static xoff {} B plus headroom on each needs {} B, more than "
        "its {} B buffer (packet.switches.buffer): PFC could not keep it lossless. Lower xoff, raise the buffer, or "
        "use the dynamic threshold (pfc.dynamic: true)",
        t.node(n).name, lossless[n], config_.pfc.xoff.count(), need[n], size_[n]));
  }
}

}  // namespace weft::packet
