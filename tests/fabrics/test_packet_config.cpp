// Packet-fabric configuration (profiles, validate, ECN threshold scaling) and the congestion-control
// state machines, against closed forms derived in the comments.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "sim/core/errors.h"
#include "sim/core/rng.h"
#include "sim/packet/congestion.h"
#include "sim/packet/packet_config.h"

using namespace weft;
using namespace weft::packet;

namespace {

const Bandwidth kLine = Bandwidth::gbps(100);

// Paper-like DCQCN settings written out here, so every expectation below follows from this block:
// at 100 Gb/s R_AI = 5 Mb/s * 100/25 = 20 Mb/s and R_HAI = 50 Mb/s * 100/25 = 200 Mb/s.
DcqcnConfig test_dcqcn() {
  DcqcnConfig d;
  d.enabled = true;
  d.g = 1.0 / 256;
  d.alpha_update_period = Time::us(55);
  d.rate_increase_timer = Time::us(55);
  d.byte_counter = Bytes(10'000'000);
  d.fast_recovery_steps = 5;
  d.rate_ai = Bandwidth::bps(5'000'000);
  d.rate_hai = Bandwidth::bps(50'000'000);
  d.min_rate = Bandwidth::bps(100'000'000);
  d.initial_alpha = 1.0;
  d.cnp_interval = Time::us(50);
  d.rate_decrease_interval = Time::us(50);
  return d;
}

double bps(Bandwidth b) { return static_cast<double>(b.bps()); }

DctcpConfig test_dctcp() { return DctcpConfig{.g = 1.0 / 16, .initial_window = 10, .k_at_10g = Bytes(30'000)}; }
constexpr uint32_t kMss = 1000;

}  // namespace

// --- ECN ------------------------------------------------------------------------------------------

TEST_CASE("ecn_mark: never at or below kmin, always above kmax", "[packet][validation]") {
  Rng rng(1, "ecn-edges");
  const Bytes kmin(100'000);
  const Bytes kmax(400'000);
  bool any_low = false;
  bool all_high = true;
  for (int i = 0; i < 1000; ++i) {
    any_low = any_low || ecn_mark(Bytes(0), kmin, kmax, 0.2, rng) || ecn_mark(kmin, kmin, kmax, 0.2, rng);
    all_high = all_high && ecn_mark(Bytes(400'001), kmin, kmax, 0.2, rng);
  }
  CHECK_FALSE(any_low);
  CHECK(all_high);
  // DCTCP's single threshold (kmin = kmax = K, pmax 1): marks exactly the packets that find q > K.
  CHECK_FALSE(ecn_mark(Bytes(75'000), Bytes(75'000), Bytes(75'000), 1.0, rng));
  CHECK(ecn_mark(Bytes(75'001), Bytes(75'000), Bytes(75'000), 1.0, rng));
}

TEST_CASE("ecn_mark: mid-band probability pmax (q - kmin)/(kmax - kmin)", "[packet][validation]") {
  // q = 250 KB between 100 and 400 KB with pmax 0.2: p = 0.2 * 150/300 = 0.1. Over n = 100,000 draws the
  // count is binomial: mean np = 10,000, sigma = sqrt(np(1-p)) = sqrt(9,000) = 94.9; allow 3 sigma.
  Rng rng(7, "ecn-band");
  int marks = 0;
  const int n = 100'000;
  for (int i = 0; i < n; ++i) marks += ecn_mark(Bytes(250'000), Bytes(100'000), Bytes(400'000), 0.2, rng) ? 1 : 0;
  CHECK(std::abs(marks - 10'000) < 3.0 * std::sqrt(9'000.0));
}

TEST_CASE("ECN thresholds scale linearly with the port rate from 25 Gb/s", "[packet][validation]") {
  const EcnConfig e;  // 100 KB / 400 KB at 25 G
  CHECK(e.kmin(Bandwidth::gbps(25)).count() == 100'000);
  // 100 G = 4 x 25 G: 400 KB / 1.6 MB, the HPCC ns-3 map's 100G row.
  CHECK(e.kmin(Bandwidth::gbps(100)).count() == 400'000);
  CHECK(e.kmax(Bandwidth::gbps(100)).count() == 1'600'000);
  // 400 G = 16 x 25 G: 1.6 MB / 6.4 MB.
  CHECK(e.kmin(Bandwidth::gbps(400)).count() == 1'600'000);
  CHECK(e.kmax(Bandwidth::gbps(400)).count() == 6'400'000);
  // The paper profile's 25 G values give back the DCQCN paper's 5 KB / 200 KB at 40 GbE (x 40/25).
  const EcnConfig paper = packet_profile("roce-paper").ecn;
  CHECK(paper.kmin(Bandwidth::gbps(40)).count() == 5'000);
  CHECK(paper.kmax(Bandwidth::gbps(40)).count() == 200'000);
  // The tcp profile's K gives back DCTCP's 30 KB at 10 G (x 10/25).
  const PacketConfig tcp = packet_profile("tcp");
  CHECK(tcp.ecn.kmin(Bandwidth::gbps(10)) == tcp.dctcp.k_at_10g);
  CHECK(tcp.ecn.kmax(Bandwidth::gbps(10)) == tcp.dctcp.k_at_10g);
}

// --- DCQCN reaction point -------------------------------------------------------------------------

TEST_CASE("DCQCN: a CNP at alpha 1 halves the rate; one inside rate_decrease_interval is ignored",
          "[packet][validation]") {
  const DcqcnConfig cfg = test_dcqcn();
  DcqcnSender s(cfg, kLine, Time());
  CHECK(s.rate(Time()).bps() == 100'000'000'000);
  // Rc = 100 G (1 - 1/2) = 50 G, Rt = old Rc = 100 G, alpha = (1 - g) 1 + g = 1.
  s.on_cnp(Time::us(10));
  CHECK(s.rate(Time::us(10)).bps() == 50'000'000'000);
  CHECK(s.target().bps() == 100'000'000'000);
  CHECK(s.alpha() == Approx(1.0));
  CHECK(s.cuts() == 1);
  // 49 us after the cut (< 50 us): ignored.
  s.on_cnp(Time::us(59));
  CHECK(s.rate(Time::us(59)).bps() == 50'000'000'000);
  CHECK(s.cuts() == 1);
  // Exactly 50 us after: a cut (no timer has fired: 50 us < T = K = 55 us): Rc = 25 G, Rt = 50 G.
  s.on_cnp(Time::us(60));
  CHECK(s.rate(Time::us(60)).bps() == 25'000'000'000);
  CHECK(s.target().bps() == 50'000'000'000);
  CHECK(s.cuts() == 2);
}

TEST_CASE("DCQCN: fast recovery halves the gap to Rt per timer period", "[packet][validation]") {
  // After a cut at t = 0 (Rc0 = 50 G, Rt = 100 G), timer events k = 1..F with the byte counter idle
  // are fast recovery: Rc_k = (Rt + Rc_{k-1})/2, i.e. Rc_k = Rt - (Rt - Rc0)/2^k.
  const DcqcnConfig cfg = test_dcqcn();
  DcqcnSender s(cfg, kLine, Time());
  s.on_cnp(Time());
  for (int k = 1; k <= cfg.fast_recovery_steps; ++k) {
    const Time due = cfg.rate_increase_timer * k;
    const double expected = 100e9 - 50e9 / std::pow(2.0, k);
    CHECK(bps(s.rate(due - Time::ps(1))) == 100e9 - 50e9 / std::pow(2.0, k - 1));  // not before its time
    CHECK(bps(s.rate(due)) == expected);
    CHECK(s.target().bps() == 100'000'000'000);
  }
}

TEST_CASE("DCQCN: additive, then hyper increase", "[packet][validation]") {
  const DcqcnConfig cfg = test_dcqcn();
  const Time t = cfg.rate_increase_timer;
  const uint64_t b = cfg.byte_counter.count();
  DcqcnSender s(cfg, kLine, Time());
  // Two cuts at alpha 1: Rt = 50 G, Rc = 25 G; counters restart at t1 = 50 us.
  s.on_cnp(Time());
  const Time t1 = Time::us(50);
  s.on_cnp(t1);
  REQUIRE(s.target().bps() == 50'000'000'000);
  // Timer events 1..5: fast recovery, Rc5 = 50 G - 25 G/32 = 49.21875 G.
  CHECK(bps(s.rate(t1 + t * 5)) == 49.21875e9);
  // Timer event 6 (> F, byte count 0 <= F): additive, Rt = 50 G + 20 Mb/s; Rc6 = (Rt + Rc5)/2.
  CHECK(bps(s.rate(t1 + t * 6)) == (50.02e9 + 49.21875e9) / 2);
  CHECK(s.target().bps() == 50'020'000'000);
  // Timer event 7: additive again, Rt = 50.04 G; Rc7 = (50.04 G + 49.619375 G)/2 = 49.8296875 G.
  CHECK(bps(s.rate(t1 + t * 7)) == 49.8296875e9);
  CHECK(s.target().bps() == 50'040'000'000);
  // Byte events 1..5 (timer count 7 > F): additive, Rt = 50.04 G + 5 x 20 Mb/s = 50.14 G. Byte event 6:
  // both counts > F, hyper with i = min(7, 6) - 5 = 1: Rt = 50.14 G + 200 Mb/s = 50.34 G.
  s.on_sent(Bytes(6 * b), t1 + t * 7);
  CHECK(s.target().bps() == 50'340'000'000);
  // Byte event 7: i = min(7, 7) - 5 = 2, Rt += 400 Mb/s -> 50.74 G; timer event 8: i = min(8, 7) - 5 = 2
  // again -> 51.14 G.
  s.on_sent(Bytes(b), t1 + t * 7);
  CHECK(s.target().bps() == 50'740'000'000);
  const double before = bps(s.rate(t1 + t * 8 - Time::ps(1)));
  CHECK(bps(s.rate(t1 + t * 8)) == Approx((51.14e9 + before) / 2).margin(1));
  CHECK(s.target().bps() == 51'140'000'000);
}

TEST_CASE("DCQCN: alpha decays by (1 - g)^n over n periods without a CNP", "[packet][validation]") {
  const DcqcnConfig cfg = test_dcqcn();
  const Time k = cfg.alpha_update_period;
  DcqcnSender s(cfg, kLine, Time());
  // Before any CNP a flow sends at line rate and alpha stays at initial_alpha.
  CHECK(s.rate(Time::ms(100)).bps() == kLine.bps());
  CHECK(s.alpha() == cfg.initial_alpha);
  const Time t0 = Time::ms(100);
  s.on_cnp(t0);                                       // alpha 1 -> (1 - g) 1 + g = 1, Rc = 50 G
  const double alpha_n = std::pow(1.0 - cfg.g, 100);  // (255/256)^100 = 0.6765
  s.rate(t0 + k * 100);
  CHECK(s.alpha() == Approx(alpha_n).epsilon(1e-12));
  s.rate(t0 + k * 100 + Time::us(27));  // half a period more: no further decay
  CHECK(s.alpha() == Approx(alpha_n).epsilon(1e-12));
  // 100 timer periods brought Rc back to Rt = line (the gap of 50 G halves per event: < 1 bit/s after
  // 36). A cut now uses the decayed alpha: Rc = 100 G (1 - alpha/2).
  const Time t2 = t0 + k * 100 + Time::us(27);
  CHECK(s.rate(t2).bps() == kLine.bps());
  s.on_cnp(t2);
  CHECK(bps(s.rate(t2)) == Approx(100e9 * (1.0 - alpha_n / 2)).margin(1));
  CHECK(s.alpha() == Approx((1.0 - cfg.g) * alpha_n + cfg.g).epsilon(1e-12));
}

TEST_CASE("DCQCN: never above line rate, never below min_rate", "[packet][validation]") {
  const DcqcnConfig cfg = test_dcqcn();
  DcqcnSender s(cfg, kLine, Time());
  s.on_cnp(Time());
  bool within = true;
  for (int i = 1; i <= 200; ++i) {
    const Time now = Time::us(37) * i;
    s.on_sent(Bytes(25'000'000), now);  // 2.5 byte-counter periods per step: hyper increases soon
    within = within && s.rate(now) <= kLine && s.target() <= kLine;
  }
  CHECK(within);
  CHECK(s.rate(Time::ms(100)) == kLine);
  CHECK(s.target() == kLine);

  // CNPs every rate_decrease_interval (50 us < T): no increase in between, alpha stays 1, each cut
  // halves Rc: 100 G / 2^10 < 100 Mb/s, so after 20 cuts the rate sits on the floor.
  DcqcnSender f(cfg, kLine, Time());
  for (int i = 0; i < 20; ++i) f.on_cnp(cfg.rate_decrease_interval * i);
  CHECK(f.cuts() == 20);
  CHECK(f.rate(Time::us(950)) == cfg.min_rate);
  CHECK(f.target() == cfg.min_rate);
}

TEST_CASE("DCQCN: a disabled config never cuts", "[packet]") {
  DcqcnConfig cfg = test_dcqcn();
  cfg.enabled = false;
  DcqcnSender s(cfg, kLine, Time());
  s.on_cnp(Time::us(1));
  CHECK(s.rate(Time::us(2)) == kLine);
  CHECK(s.cuts() == 0);
}

TEST_CASE("CnpLimiter sends at most one CNP per interval", "[packet][validation]") {
  CnpLimiter np(Time::us(50));
  CHECK(np.should_send(Time::us(3)));
  CHECK_FALSE(np.should_send(Time::us(3)));
  CHECK_FALSE(np.should_send(Time::us(53) - Time::ps(1)));
  CHECK(np.should_send(Time::us(53)));
  CHECK_FALSE(np.should_send(Time::us(60)));
  CHECK(np.should_send(Time::us(200)));
}

// --- DCTCP window ---------------------------------------------------------------------------------

TEST_CASE("DCTCP: slow start doubles per window; unmarked windows decay alpha", "[packet][validation]") {
  const DctcpConfig cfg = test_dctcp();
  DctcpWindow w(cfg, kMss);
  CHECK(w.cwnd() == 10'000);  // initial_window x MSS
  CHECK(w.alpha() == 1.0);
  w.on_ack(10'000, 0);  // a full window: 10 -> 20 MSS, alpha = 15/16
  CHECK(w.cwnd() == 20'000);
  CHECK(w.alpha() == Approx(15.0 / 16));
  w.on_ack(20'000, 0);
  CHECK(w.cwnd() == 40'000);
  // Half a window does not close it: alpha unchanged until the other half arrives.
  w.on_ack(20'000, 0);
  CHECK(w.cwnd() == 60'000);
  CHECK(w.alpha() == Approx(std::pow(15.0 / 16, 2)));
  w.on_ack(20'000, 0);
  CHECK(w.cwnd() == 80'000);
  CHECK(w.alpha() == Approx(std::pow(15.0 / 16, 3)));
}

TEST_CASE("DCTCP: all-marked windows drive alpha to 1 and halve the window", "[packet][validation]") {
  const DctcpConfig cfg = test_dctcp();
  {
    // alpha = 1 from the start: the window grows 10 -> 20 MSS, then is cut by 1 - 1/2 to 10 MSS and
    // becomes ssthresh. Next window, congestion avoidance adds one MSS (11) and the cut halves it: 5.5.
    DctcpWindow w(cfg, kMss);
    w.on_ack(10'000, 10'000);
    CHECK(w.alpha() == Approx(1.0));
    CHECK(w.cwnd() == 10'000);
    w.on_ack(10'000, 10'000);
    CHECK(w.cwnd() == 5'500);
  }
  // From alpha0 = (15/16)^3 (three clean windows, cwnd 80 KB), m all-marked windows give
  // alpha_m = 1 - (1 - alpha0)(15/16)^m, and each closes with cwnd = (cwnd + growth)(1 - alpha_m/2),
  // growth = cwnd in slow start (the first) and one MSS after (ssthresh was set by the first cut).
  DctcpWindow w(cfg, kMss);
  for (uint64_t bytes : {10'000, 20'000, 40'000}) w.on_ack(bytes, 0);
  const double alpha0 = std::pow(15.0 / 16, 3);
  bool cuts_match = true;
  for (int m = 1; m <= 40; ++m) {
    const uint64_t before = w.cwnd();
    const uint64_t grown = before + (m == 1 ? before : kMss);
    w.on_ack(before, before);
    CHECK(w.alpha() == Approx(1.0 - (1.0 - alpha0) * std::pow(15.0 / 16, m)).epsilon(1e-12));
    const auto expected = static_cast<uint64_t>(static_cast<double>(grown) * (1.0 - w.alpha() / 2));
    cuts_match = cuts_match && w.cwnd() == std::max<uint64_t>(kMss, expected);
  }
  CHECK(cuts_match);
  CHECK(w.alpha() > 0.98);  // 1 - 0.176 x 0.076 = 0.9866: the cut factor is within 0.7 % of 1/2
  // c -> (c + MSS) f per window, f = 1 - alpha/2, has the fixed point c* = MSS f/(1 - f): 1.03 MSS at
  // alpha 0.9866 (one MSS exactly at alpha 1).
  const double f = 1.0 - w.alpha() / 2;
  CHECK(static_cast<double>(w.cwnd()) == Approx(kMss * f / (1 - f)).margin(3));
}

TEST_CASE("DCTCP: a loss halves the window, never below one MSS", "[packet][validation]") {
  const DctcpConfig cfg = test_dctcp();
  DctcpWindow w(cfg, kMss);
  w.on_ack(10'000, 0);  // 20 KB
  w.on_loss();
  CHECK(w.cwnd() == 10'000);
  w.on_loss();
  CHECK(w.cwnd() == 5'000);
  w.on_loss();
  w.on_loss();
  CHECK(w.cwnd() == 1'250);
  w.on_loss();
  CHECK(w.cwnd() == 1'000);  // max(MSS, 625)
  // ssthresh = cwnd: congestion avoidance adds MSS * acked / cwnd = 1000 * 1000 / 1000.
  w.on_ack(1'000, 0);
  CHECK(w.cwnd() == 2'000);
}

// --- Profiles and validate() ----------------------------------------------------------------------

TEST_CASE("every profile is fully populated and validates", "[packet]") {
  CHECK(default_packet_profile() == "roce-paper");
  for (std::string_view name : {"roce", "roce-paper", "roce-lossy", "ib", "tcp"}) {
    INFO(name);
    const PacketConfig c = packet_profile(name);
    CHECK_NOTHROW(validate(c));
    // Fully populated even where a feature is off, so switching it on gives sourced values.
    CHECK(c.dcqcn.alpha_update_period > Time());
    CHECK(c.dcqcn.rate_increase_timer > Time());
    CHECK(c.dcqcn.byte_counter > Bytes());
    CHECK(c.dcqcn.rate_ai > Bandwidth());
    CHECK(c.dcqcn.rate_hai > Bandwidth());
    CHECK(c.dcqcn.min_rate > Bandwidth());
    CHECK(c.dcqcn.cnp_interval > Time());
    CHECK(c.dcqcn.rate_decrease_interval > Time());
    CHECK(c.lossy.rto > Time());
    CHECK(c.deadlock_timeout > Time());
  }
}

TEST_CASE("profile contents follow their sources", "[packet]") {
  const PacketConfig roce = packet_profile("roce");
  CHECK(roce.transport == Transport::rdma);
  CHECK(roce.dcqcn.g == 5.0 / 1024);  // dce_tcp_g 1019
  CHECK(roce.dcqcn.alpha_update_period == Time::us(1));
  CHECK(roce.dcqcn.rate_increase_timer == Time::us(300));
  CHECK(roce.dcqcn.byte_counter == Bytes(32'767));
  CHECK(roce.dcqcn.fast_recovery_steps == 1);
  CHECK(roce.dcqcn.rate_ai == Bandwidth::bps(5'000'000));
  CHECK(roce.dcqcn.rate_hai == Bandwidth::bps(50'000'000));
  CHECK(roce.dcqcn.min_rate == Bandwidth::bps(1'000'000));
  CHECK(roce.dcqcn.initial_alpha == 1023.0 / 1024);
  CHECK(roce.dcqcn.cnp_interval == Time::us(4));
  CHECK(roce.dcqcn.rate_decrease_interval == Time::us(4));
  CHECK(roce.ecn.pmax == 0.2);
  CHECK(roce.pfc.enabled);
  CHECK(roce.pfc.alpha == 1.0 / 8);
  CHECK(roce.pfc.xon_offset == Bytes(3'000));
  CHECK(roce.control_priority == 6);
  CHECK(roce.switches.buffer == Bytes(32'000'000));

  const PacketConfig paper = packet_profile("roce-paper");
  CHECK(paper.dcqcn.g == 1.0 / 256);
  CHECK(paper.dcqcn.alpha_update_period == Time::us(55));
  CHECK(paper.dcqcn.rate_increase_timer == Time::us(55));
  CHECK(paper.dcqcn.byte_counter == Bytes(10'000'000));
  CHECK(paper.dcqcn.fast_recovery_steps == 5);
  CHECK(paper.dcqcn.rate_ai == Bandwidth::bps(25'000'000));  // 40 Mb/s at 40 G
  CHECK(paper.dcqcn.cnp_interval == Time::us(50));
  CHECK(paper.ecn.pmax == 0.01);

  const PacketConfig lossy = packet_profile("roce-lossy");
  CHECK_FALSE(lossy.pfc.enabled);
  CHECK(lossy.dcqcn.enabled);
  CHECK(lossy.lossy.mode == Retransmit::go_back_n);

  const PacketConfig ib = packet_profile("ib");
  CHECK_FALSE(ib.ecn.enabled);
  CHECK_FALSE(ib.dcqcn.enabled);
  CHECK(ib.credits.block_bytes == 64);

  const PacketConfig tcp = packet_profile("tcp");
  CHECK(tcp.transport == Transport::dctcp);
  CHECK_FALSE(tcp.pfc.enabled);
  CHECK_FALSE(tcp.dcqcn.enabled);
  CHECK(tcp.ecn.kmin_at_25g == Bytes(75'000));
  CHECK(tcp.ecn.kmax_at_25g == Bytes(75'000));
  CHECK(tcp.ecn.pmax == 1.0);
}

TEST_CASE("an unknown profile lists the known ones", "[packet]") {
  CHECK_THROWS_AS(packet_profile("roce2"), ConfigError);
  CHECK_THROWS_WITH(packet_profile("rcoe"), Catch::Contains("known: roce, roce-paper, roce-lossy, ib, tcp") &&
                                                Catch::Contains("did you mean 'roce'"));
}

TEST_CASE("validate names each bad field and its allowed range", "[packet]") {
  struct Breakage {
    std::string_view base;
    std::string_view message;
    void (*apply)(PacketConfig&);
  };
  const Breakage breakages[] = {
      {"roce", "packet.ecn: kmin (500000 B) is above kmax (400000 B)",
       [](PacketConfig& c) { c.ecn.kmin_at_25g = Bytes(500'000); }},
      {"roce", "packet.ecn.pmax: 0 is outside (0, 1]", [](PacketConfig& c) { c.ecn.pmax = 0; }},
      {"roce", "packet.ecn.pmax: 1.5 is outside (0, 1]", [](PacketConfig& c) { c.ecn.pmax = 1.5; }},
      {"roce", "packet.ecn.pmax", [](PacketConfig& c) { c.ecn.pmax = std::numeric_limits<double>::quiet_NaN(); }},
      {"roce", "packet.dcqcn.g: 0 is outside (0, 1]", [](PacketConfig& c) { c.dcqcn.g = 0; }},
      {"roce", "packet.dcqcn.g: 2 is outside (0, 1]", [](PacketConfig& c) { c.dcqcn.g = 2; }},
      {"roce", "packet.dcqcn.alpha_update_period: 0 us must be > 0",
       [](PacketConfig& c) { c.dcqcn.alpha_update_period = Time(); }},
      {"roce", "packet.dcqcn.rate_increase_timer: -1 us must be > 0",
       [](PacketConfig& c) { c.dcqcn.rate_increase_timer = Time::us(-1); }},
      {"roce", "packet.dcqcn.byte_counter", [](PacketConfig& c) { c.dcqcn.byte_counter = Bytes(); }},
      {"roce", "packet.dcqcn.fast_recovery_steps: -1 must be >= 0",
       [](PacketConfig& c) { c.dcqcn.fast_recovery_steps = -1; }},
      {"roce", "packet.dcqcn.rate_ai", [](PacketConfig& c) { c.dcqcn.rate_ai = Bandwidth(); }},
      {"roce", "packet.dcqcn.rate_hai", [](PacketConfig& c) { c.dcqcn.rate_hai = Bandwidth(); }},
      {"roce", "packet.dcqcn.min_rate: 0 b/s must be > 0", [](PacketConfig& c) { c.dcqcn.min_rate = Bandwidth(); }},
      {"roce", "packet.dcqcn.initial_alpha: 1.5 is outside [0, 1]",
       [](PacketConfig& c) { c.dcqcn.initial_alpha = 1.5; }},
      {"roce", "packet.dcqcn.cnp_interval", [](PacketConfig& c) { c.dcqcn.cnp_interval = Time::ns(-1); }},
      {"roce", "packet.dcqcn.rate_decrease_interval",
       [](PacketConfig& c) { c.dcqcn.rate_decrease_interval = Time::ns(-1); }},
      {"roce", "packet.pfc.alpha: 0 must be > 0", [](PacketConfig& c) { c.pfc.alpha = 0; }},
      {"roce", "packet.pfc: xon_offset (100000 B) is not below xoff (100000 B)",
       [](PacketConfig& c) {
         c.pfc.dynamic = false;
         c.pfc.xon_offset = c.pfc.xoff;
       }},
      {"roce", "packet.pfc.quanta: 0 is outside [1, 65535]", [](PacketConfig& c) { c.pfc.quanta = 0; }},
      {"ib", "packet.credits.block_bytes", [](PacketConfig& c) { c.credits.block_bytes = 0; }},
      {"roce", "packet.lossy.ack_every: 0 must be >= 1", [](PacketConfig& c) { c.lossy.ack_every = 0; }},
      {"roce-lossy", "packet.lossy.rto: 0 us must be > 0 when links can drop",
       [](PacketConfig& c) { c.lossy.rto = Time(); }},
      {"tcp", "packet.lossy.rto", [](PacketConfig& c) { c.lossy.rto = Time(); }},
      {"tcp", "packet.dctcp.g: 0 is outside (0, 1]", [](PacketConfig& c) { c.dctcp.g = 0; }},
      {"tcp", "packet.dctcp.initial_window", [](PacketConfig& c) { c.dctcp.initial_window = 0; }},
      {"roce", "packet.control_priority: 8 is outside [0, 7]", [](PacketConfig& c) { c.control_priority = 8; }},
      {"roce", "packet.switches.buffer", [](PacketConfig& c) { c.switches.buffer = Bytes(); }},
      {"roce", "packet.queue_sample_interval", [](PacketConfig& c) { c.queue_sample_interval = Time::ps(-5); }},
      {"roce", "packet.deadlock_timeout: 0 us must be > 0", [](PacketConfig& c) { c.deadlock_timeout = Time(); }},
  };
  for (const Breakage& b : breakages) {
    INFO(b.message);
    PacketConfig c = packet_profile(b.base);
    b.apply(c);
    CHECK_THROWS_AS(validate(c), ConfigError);
    CHECK_THROWS_WITH(validate(c), Catch::Contains(std::string(b.message)));
  }
}

TEST_CASE("validate checks a feature's fields only while it is on", "[packet]") {
  PacketConfig c = packet_profile("ib");
  c.dcqcn = DcqcnConfig{};  // zero timers: fine while DCQCN is off
  c.dcqcn.enabled = false;
  c.ecn.kmin_at_25g = Bytes(500'000);  // above kmax: fine while ECN is off
  c.lossy.rto = Time();                // PFC on and RDMA: nothing drops
  CHECK_NOTHROW(validate(c));
  c.pfc.xon_offset = Bytes(200'000);  // above the static xoff, but the dynamic threshold is in use
  CHECK_NOTHROW(validate(c));
  c.dcqcn.enabled = true;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("packet.dcqcn.alpha_update_period"));
  // A default-constructed PacketConfig leaves the timers at zero: only the profiles are complete.
  CHECK_THROWS_AS(validate(PacketConfig{}), ConfigError);
  // Zero intervals are meaningful (a CNP per marked packet, a cut per CNP).
  PacketConfig z = packet_profile("roce");
  z.dcqcn.cnp_interval = Time();
  z.dcqcn.rate_decrease_interval = Time();
  CHECK_NOTHROW(validate(z));
}
