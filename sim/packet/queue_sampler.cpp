// Queue-depth sampling of the packet fabric (see queue_sampler.h).
#include "sim/packet/queue_sampler.h"

namespace weft::packet {

QueueSampler::QueueSampler(const FabricContext& c, const Egress& egress)
    : engine_(c.engine), config_(c.config), recorder_(c.recorder), stats_(c.stats), egress_(egress) {}

void QueueSampler::start() {
  if (config_.queue_sample_interval > Time() && recorder_.wants(Hook::queue_samples) && !sampling_) {
    sampling_ = true;
    engine_.schedule_at(engine_.now(), [this] { sample(); });
  }
}

void QueueSampler::sample() {
  sampling_ = false;
  if (stats_.transfers_done == stats_.transfers_started) return;
  for (const EgressPort& p : egress_.ports()) {
    for (int pr = 0; pr < kPriorities; ++pr) {
      if (p.queued[pr] > 0) {
        recorder_.on_queue_sample({engine_.now(), p.link, static_cast<uint8_t>(pr), Bytes(p.queued[pr])});
      }
    }
  }
  sampling_ = true;
  engine_.schedule_at(engine_.now() + config_.queue_sample_interval, [this] { sample(); });
}

}  // namespace weft::packet
