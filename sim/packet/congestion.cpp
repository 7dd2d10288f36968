// ECN marking, DCQCN (reaction and notification points) and the DCTCP window. Semantics as in
// congestion.h; the choices the header leaves open are noted where they are made.
#include "sim/packet/congestion.h"

#include <algorithm>
#include <cmath>

#include "sim/core/errors.h"

namespace weft::packet {
namespace {

constexpr double kReferenceRate = 25e9;  // bit/s: R_AI and R_HAI are configured at 25 Gb/s

double scaled_step(Bandwidth at_25g, Bandwidth line) {
  return static_cast<double>(at_25g.bps()) * static_cast<double>(line.bps()) / kReferenceRate;
}

}  // namespace

bool ecn_mark(Bytes queued, Bytes kmin, Bytes kmax, double pmax, Rng& rng) {
  if (queued <= kmin) return false;
  if (queued > kmax) return true;  // also covers kmin == kmax (DCTCP's single threshold)
  const double p =
      pmax * static_cast<double>(queued.count() - kmin.count()) / static_cast<double>(kmax.count() - kmin.count());
  return rng.uniform01() < p;
}

// --- DcqcnSender ----------------------------------------------------------------------------------
// Until its first CNP a flow sends at line rate and its timers do not run: NVIDIA's
// initial_alpha_value is "the alpha to use at a flow's first CNP", and the HPCC ns-3 fork starts the
// alpha and rate timers there too. Afterwards a CNP restarts the alpha period ("every period without
// a CNP"), the rate-increase timer and the byte counter.

DcqcnSender::DcqcnSender(const DcqcnConfig& config, Bandwidth line_rate, Time now)
    : config_(&config),
      line_(static_cast<double>(line_rate.bps())),
      current_(line_),
      target_(line_),
      alpha_(config.initial_alpha),
      ai_(scaled_step(config.rate_ai, line_rate)),
      hai_(scaled_step(config.rate_hai, line_rate)),
      last_alpha_update_(now),
      last_timer_(now),
      last_cut_(now) {
  // validate() guarantees these for an enabled config; a zero period would never end the loops below.
  WEFT_ASSERT(!config.enabled || (config.alpha_update_period > Time() && config.rate_increase_timer > Time() &&
                                  config.byte_counter > Bytes() && config.fast_recovery_steps >= 0));
}

Bandwidth DcqcnSender::rate(Time now) {
  advance(now);
  return Bandwidth::bps(static_cast<uint64_t>(std::llround(current_)));
}

void DcqcnSender::on_cnp(Time now) {
  if (!config_->enabled) return;
  advance(now);
  // A CNP inside rate_decrease_interval of the last cut is ignored entirely (alpha too): the
  // firmware's rate_reduce_monitor_period coalesces the CNPs of one period into one reaction.
  if (cut_before_ && now - last_cut_ < config_->rate_decrease_interval) return;
  const double floor = std::min(static_cast<double>(config_->min_rate.bps()), line_);
  target_ = current_;
  current_ = std::max(floor, current_ * (1.0 - alpha_ / 2.0));
  alpha_ = (1.0 - config_->g) * alpha_ + config_->g;
  last_cut_ = now;
  last_alpha_update_ = now;
  last_timer_ = now;
  timer_count_ = 0;
  byte_count_ = 0;
  bytes_since_ = 0;
  cut_before_ = true;
  ++cuts_;
}

void DcqcnSender::on_sent(Bytes bytes, Time now) {
  if (!cut_before_) return;  // nothing to recover yet; the counter restarts at the first cut anyway
  advance(now);
  const uint64_t b = config_->byte_counter.count();
  bytes_since_ += bytes.count();
  for (; bytes_since_ >= b; bytes_since_ -= b) {
    if (current_ == line_ && target_ == line_) {  // fully recovered: further events change nothing
      bytes_since_ %= b;
      break;
    }
    ++byte_count_;
    increase();
  }
}

void DcqcnSender::advance(Time now) {
  if (!cut_before_) return;
  const Time k = config_->alpha_update_period;
  if (now > last_alpha_update_) {
    const int64_t periods = (now - last_alpha_update_).ps() / k.ps();
    // The closed form of `periods` decays; pow(x, 0) is 1 and pow(x, 1) is x exactly, and those
    // two (the usual cases: this runs per packet) need no call.
    if (periods == 1) {
      alpha_ *= 1.0 - config_->g;
    } else if (periods > 1) {
      alpha_ *= std::pow(1.0 - config_->g, static_cast<double>(periods));
    }
    last_alpha_update_ += k * periods;
  }
  const Time t = config_->rate_increase_timer;
  if (now <= last_timer_) return;
  for (int64_t due = (now - last_timer_).ps() / t.ps(); due > 0; --due) {
    if (current_ == line_ && target_ == line_) {  // fully recovered: keep only the timer's phase
      last_timer_ += t * due;
      break;
    }
    last_timer_ += t;
    ++timer_count_;
    increase();
  }
}

void DcqcnSender::increase() {
  const auto f = static_cast<uint64_t>(config_->fast_recovery_steps);
  if (timer_count_ > f && byte_count_ > f) {
    target_ += static_cast<double>(std::min(timer_count_, byte_count_) - f) * hai_;  // hyper increase
  } else if (timer_count_ > f || byte_count_ > f) {
    target_ += ai_;  // additive increase
  }
  target_ = std::min(target_, line_);
  current_ = (target_ + current_) / 2.0;
  // Below 1 bit/s the halving would go on for ~50 more events as doubles round; the gap means nothing.
  if (target_ - current_ < 1.0) current_ = target_;
}

// --- CnpLimiter -----------------------------------------------------------------------------------

bool CnpLimiter::should_send(Time now) {
  if (sent_ && now - last_ < interval_) return false;
  sent_ = true;
  last_ = now;
  return true;
}

// --- DctcpWindow ----------------------------------------------------------------------------------
// The observation window closes once a cwnd's worth of bytes (cwnd when it opened) has been acked;
// an ACK that straddles the boundary counts wholly in the closing window. Growth from an ACK is
// applied before the window's reaction, so a marked window ends cut from its grown size.

DctcpWindow::DctcpWindow(const DctcpConfig& config, uint32_t mss)
    : config_(&config), mss_(mss), cwnd_(uint64_t{config.initial_window} * mss), window_end_(cwnd_) {
  WEFT_ASSERT(mss > 0 && config.initial_window > 0);
}

void DctcpWindow::on_ack(uint64_t acked, uint64_t marked) {
  WEFT_ASSERT(marked <= acked);
  if (cwnd_ < ssthresh_) {
    cwnd_ += acked;  // slow start: doubles per window
  } else {
    cwnd_ += static_cast<uint64_t>(uint128{mss_} * acked / cwnd_);  // congestion avoidance: + 1 MSS per window
  }
  total_acked_ += acked;
  window_acked_ += acked;
  window_marked_ += marked;
  if (total_acked_ < window_end_) return;

  const double g = config_->g;
  const double fraction =
      window_acked_ == 0 ? 0.0 : static_cast<double>(window_marked_) / static_cast<double>(window_acked_);
  alpha_ = (1.0 - g) * alpha_ + g * fraction;
  if (window_marked_ > 0) {
    const auto reduced = static_cast<uint64_t>(static_cast<double>(cwnd_) * (1.0 - alpha_ / 2.0));
    cwnd_ = std::max<uint64_t>(mss_, reduced);
    ssthresh_ = cwnd_;
  }
  window_acked_ = 0;
  window_marked_ = 0;
  window_end_ = total_acked_ + cwnd_;
}

void DctcpWindow::on_loss() {
  cwnd_ = std::max<uint64_t>(mss_, cwnd_ / 2);
  ssthresh_ = cwnd_;
}

}  // namespace weft::packet
