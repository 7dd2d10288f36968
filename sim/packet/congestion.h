// Congestion control pieces of the packet fabric, as small state machines with no engine inside:
// the fabric calls them with the current time. Timers are evaluated lazily (a call at `now` first
// applies every period that elapsed since the last call), so an idle flow costs no events.
#pragma once

#include <cstdint>

#include "sim/core/rng.h"
#include "sim/core/units.h"
#include "sim/packet/packet_config.h"

namespace weft::packet {

// RED-style ECN marking decision at dequeue for a queue holding `queued` bytes.
bool ecn_mark(Bytes queued, Bytes kmin, Bytes kmax, double pmax, Rng& rng);

// DCQCN reaction point (one per sending queue pair). Rates in bit/s.
//  - CNP: Rt <- Rc, Rc <- Rc * (1 - alpha/2) (not below min_rate), alpha <- (1 - g) alpha + g, and
//    the increase state resets (at most one cut per rate_decrease_interval);
//  - every alpha_update_period without a CNP: alpha <- (1 - g) alpha;
//  - increase events, from the timer (every rate_increase_timer) and the byte counter (every
//    byte_counter bytes sent): fast recovery while both counts <= F: Rc <- (Rt + Rc)/2; additive
//    when one exceeds F: Rt += R_AI, then Rc <- (Rt + Rc)/2; hyper when both exceed F:
//    Rt += i * R_HAI with i = min(timer count, byte count) - F; Rc, Rt never above the line rate.
//    R_AI and R_HAI are configured at 25 Gb/s and scale with the line rate.
class DcqcnSender {
 public:
  DcqcnSender(const DcqcnConfig& config, Bandwidth line_rate, Time now);
  // The current rate, after the timer events due by `now`.
  Bandwidth rate(Time now);
  void on_cnp(Time now);
  void on_sent(Bytes bytes, Time now);
  double alpha() const { return alpha_; }
  Bandwidth target() const { return Bandwidth::bps(static_cast<uint64_t>(target_)); }
  uint64_t cuts() const { return cuts_; }

 private:
  void advance(Time now);
  void increase();

  const DcqcnConfig* config_;
  double line_;
  double current_;
  double target_;
  double alpha_;
  double ai_;   // R_AI at this line rate
  double hai_;  // R_HAI at this line rate
  Time last_alpha_update_;
  Time last_timer_;
  Time last_cut_;
  bool cut_before_ = false;
  uint64_t timer_count_ = 0;
  uint64_t byte_count_ = 0;
  uint64_t bytes_since_ = 0;
  uint64_t cuts_ = 0;
};

// DCQCN notification point: at most one CNP per flow per interval.
class CnpLimiter {
 public:
  explicit CnpLimiter(Time interval) : interval_(interval) {}
  bool should_send(Time now);

 private:
  Time interval_;
  Time last_;
  bool sent_ = false;
};

// DCTCP sender window (Alizadeh et al., SIGCOMM 2010; RFC 8257), in bytes: slow start then
// congestion avoidance; once per window of data alpha <- (1 - g) alpha + g F (F = fraction of acked
// bytes that carried ECN-Echo) and, if any was marked, cwnd <- cwnd (1 - alpha/2); a loss halves it.
class DctcpWindow {
 public:
  DctcpWindow(const DctcpConfig& config, uint32_t mss);
  uint64_t cwnd() const { return cwnd_; }
  double alpha() const { return alpha_; }
  // `acked` new bytes acknowledged; `marked` of them carried ECN-Echo.
  void on_ack(uint64_t acked, uint64_t marked);
  void on_loss();

 private:
  const DctcpConfig* config_;
  uint32_t mss_;
  uint64_t cwnd_;
  uint64_t ssthresh_ = UINT64_MAX;
  double alpha_ = 1.0;
  uint64_t window_acked_ = 0;
  uint64_t window_marked_ = 0;
  uint64_t window_end_ = 0;  // bytes acked in all when the current observation window closes
  uint64_t total_acked_ = 0;
};

}  // namespace weft::packet
