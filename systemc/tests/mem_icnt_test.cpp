// Interconnect: latency, flit serialisation (bandwidth), routing by the
// address map, and back pressure through a full netlist without loss or
// deadlock. Clocks are 1000 MHz (1 ns).
#include "mem_test_rig.h"

namespace relgpu::mem::test {
namespace {

TEST(MemIcnt, AddressMapInterleavesLinesAcrossPartitions) {
  AddressMap m(6, 256);
  EXPECT_EQ(m.partition(0), 0u);
  EXPECT_EQ(m.partition(128), 0u);
  EXPECT_EQ(m.partition(256), 1u);
  EXPECT_EQ(m.partition(6 * 256), 0u);
  EXPECT_EQ(m.local(6 * 256 + 128), 256u + 128u);
  for (uint64_t a = 0; a < 100000; a += 128) EXPECT_EQ(m.global(m.partition(a), m.local(a)), a);
  EXPECT_THROW(AddressMap(6, 192), InputError);
}

// One SM, one sink partition: packets are serialised at one flit per cycle.
TEST(MemIcnt, BandwidthLimitsThroughput) {
  config::Config cfg = simple_config({"icnt.latency=3", "icnt.flit_bytes=32"});
  Initiator ini("ini");
  Interconnect icnt("icnt", cfg, 1);
  Sink sink("sink");
  ini.sock.bind(icnt.sm_side);
  icnt.mem_side.bind(sink.sock);
  const int n = 16;
  std::vector<uint8_t> line(kLineBytes, 1);
  for (int i = 0; i < n; ++i) ini.write(uint64_t(i) * 128, 0, line.data(), kLineBytes);  // 8 + 128 B: 5 flits
  Req& rd = ini.read(0, sc_time(500, SC_NS));
  sc_core::sc_start(sc_time(1000, SC_NS));
  ASSERT_EQ(ini.finished, unsigned(n + 1));
  ASSERT_EQ(sink.arrivals.size(), size_t(n + 1));
  // first: edge after arrival (1), 5 flits, latency 3 -> delivered at 1 + 4 + 3
  EXPECT_EQ(ns(sink.arrivals[0]), 8.0);
  for (int i = 1; i < n; ++i) EXPECT_EQ(ns(sink.arrivals[i] - sink.arrivals[i - 1]), 5.0) << i;
  EXPECT_GE(ns(ini.reqs[n - 1]->done), double(n * 5));
  // a lone read: 1 header flit out, 5 flits (header + line) back
  EXPECT_EQ(ns(sink.arrivals[n]) - ns(rd.sent), 1.0 + 3.0);
  EXPECT_EQ(rd.latency_ns(), (1.0 + 3.0) + (1.0 + 4.0 + 3.0));
  config::json s = icnt.stats();
  EXPECT_EQ(s["request"]["flits"], n * 5 + 1);
  EXPECT_EQ(s["request"]["bytes"], n * 136 + 8);
  EXPECT_EQ(s["response"]["flits"], n * 1 + 5);
  EXPECT_EQ(s["sm"][0]["to_icnt"]["packets"], n + 1);
  EXPECT_EQ(s["partition"][0]["to_icnt"]["bytes"], n * 8 + 136);
  EXPECT_TRUE(icnt.idle());
}

// Two SMs, two partitions; the SMs hold END_RESP back, so every queue on
// the way fills up and END_REQ is withheld from the SMs. All requests must
// still complete, once each, with the right data.
TEST(MemIcnt, BackPressureWithoutLossOrDeadlock) {
  config::Config cfg = simple_config({"mem.num_partitions=2", "icnt.queue_depth=2", "l2.queue_depth=2",
                                      "l2.mshrs=4", "dram.queue_depth=2"});
  func::GlobalMemory g;
  uint64_t a = pattern_alloc(g, 64 * 1024, 7);
  Initiator i0("i0"), i1("i1");
  Interconnect icnt("icnt", cfg, 2);
  Partition p0("p0", cfg, 0, g), p1("p1", cfg, 1, g);
  i0.sock.bind(icnt.sm_side);
  i1.sock.bind(icnt.sm_side);
  icnt.mem_side.bind(p0.tgt);
  icnt.mem_side.bind(p1.tgt);
  i0.end_resp_delay = i1.end_resp_delay = sc_time(20, SC_NS);
  const int n = 40;
  unsigned to_p0 = 0;
  for (int k = 0; k < n; ++k) {
    uint64_t x = a + uint64_t(k) * 128, y = a + uint64_t(n + k) * 128;
    i0.read(x);
    i1.read(y);
    to_p0 += (icnt.map().partition(x) == 0) + (icnt.map().partition(y) == 0);
  }
  sc_core::sc_start(sc_time(100, sc_core::SC_US));
  EXPECT_EQ(i0.finished, unsigned(n));
  EXPECT_EQ(i1.finished, unsigned(n));
  bool pressed = false;
  for (Initiator* ini : {&i0, &i1})
    for (auto& r : ini->reqs) {
      ASSERT_TRUE(r->finished);
      pressed |= r->accepted > r->sent;
      std::vector<uint8_t> v(kLineBytes);
      g.read(v.data(), r->gp.get_address(), kLineBytes, "test");
      EXPECT_EQ(std::vector<uint8_t>(r->data, r->data + kLineBytes), v);
    }
  EXPECT_TRUE(pressed) << "some BEGIN_REQ had to wait for END_REQ";
  EXPECT_EQ(p0.stats()["l2"]["accesses"], to_p0);
  EXPECT_EQ(p1.stats()["l2"]["accesses"], 2 * n - to_p0);
  EXPECT_GT(p0.stats()["l2"]["stall_cycles"].get<int64_t>() + p1.stats()["l2"]["stall_cycles"].get<int64_t>(), 0);
  EXPECT_TRUE(icnt.idle() && p0.idle() && p1.idle());
}

// The defaults (GTX480): 6 channels of 2 slices, 128 KB 8-way L2 per
// channel, 256-B interleave; a 15-SM netlist routes each chunk to its slice.
TEST(MemIcnt, DefaultNetlistRoutesByInterleave) {
  config::Config cfg;
  EXPECT_EQ(cfg.get(kL2Sets) * cfg.get(kL2Ways) * kLineBytes * cfg.get(kSubPartitions), 128 * 1024);
  func::GlobalMemory g;
  uint64_t a = pattern_alloc(g, 64 * 1024, 11);
  Interconnect icnt("icnt", cfg, 15);
  std::vector<std::unique_ptr<Initiator>> sms;
  std::vector<std::unique_ptr<Partition>> parts;
  for (int i = 0; i < 15; ++i) {
    sms.push_back(std::make_unique<Initiator>(("sm" + std::to_string(i)).c_str()));
    sms.back()->sock.bind(icnt.sm_side);
  }
  for (unsigned j = 0; j < 12; ++j) {
    parts.push_back(std::make_unique<Partition>(("p" + std::to_string(j)).c_str(), cfg, j, g));
    icnt.mem_side.bind(parts.back()->tgt);
    if (j % 2) parts.back()->share_dram_with(*parts[j - 1]);
  }
  for (int k = 0; k < 48; ++k) sms[k % 15]->read(a + uint64_t(k) * 128);  // 24 chunks of 256 B
  sc_core::sc_start(sc_time(20, sc_core::SC_US));
  for (auto& s : sms)
    for (auto& r : s->reqs) {
      ASSERT_TRUE(r->finished);
      std::vector<uint8_t> v(kLineBytes);
      g.read(v.data(), r->gp.get_address(), kLineBytes, "test");
      EXPECT_EQ(std::vector<uint8_t>(r->data, r->data + kLineBytes), v);
    }
  unsigned first = icnt.map().partition(a);
  for (unsigned j = 0; j < 12; ++j) {
    EXPECT_EQ(parts[j]->stats()["l2"]["accesses"], 4) << j;  // 2 chunks x 2 lines each
    EXPECT_EQ(icnt.stats()["partition"][j]["from_icnt"]["packets"], 4);
  }
  // Consecutive chunks go to consecutive channels; the next round of 6
  // chunks to each channel's other slice.
  EXPECT_EQ(icnt.map().channel(a + 256), (icnt.map().channel(a) + 1) % 6);
  EXPECT_EQ(icnt.map().partition(a + 6 * 256), first ^ 1);
  // Each channel's DRAM is reported once, by its first slice, and served both.
  for (unsigned j = 0; j < 12; ++j)
    EXPECT_EQ(parts[j]->stats()["dram"]["reads"], j % 2 ? 0 : 8) << j;
}

}  // namespace
}  // namespace relgpu::mem::test
