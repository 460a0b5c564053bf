// Partition (L2 slice + DRAM controller) behind a scripted initiator:
// hit/miss latency, write-back, write-allocate merge, MSHR merging, DRAM
// row timing, FR-FCFS, flush and invalidate. Clocks are 1000 MHz (1 ns).
#include "mem_test_rig.h"

namespace relgpu::mem::test {
namespace {

using Rig = PartitionRig;

TEST(MemPartition, ReadMissThenHitLatency) {
  Rig r;
  uint64_t a = pattern_alloc(r.g, 4096, 3);
  Req& miss = r.ini.read(a);
  Req& hit = r.ini.read(a, sc_time(1000, SC_NS));
  sc_core::sc_start(sc_time(2000, SC_NS));
  ASSERT_TRUE(miss.finished && hit.finished);
  // Arrival is seen at the next L2 edge (1), the pipeline (L), the DRAM
  // queue at the next DRAM edge (1), ACT + tRCD, tCL + the line's bursts
  // (4 sector bursts x 2 cycles), dram.latency, then the fill serves its request (1).
  int64_t L = r.c("l2.hit_latency");
  double expect_miss = 1 + L + 1 + r.c("dram.tRCD") + r.c("dram.tCL") + 8 + r.c("dram.latency") + 1;
  EXPECT_EQ(miss.latency_ns(), expect_miss);
  EXPECT_EQ(hit.latency_ns(), double(1 + L));
  EXPECT_EQ(std::vector<uint8_t>(miss.data, miss.data + kLineBytes), gmem_line(r.g, a));
  EXPECT_EQ(std::vector<uint8_t>(hit.data, hit.data + kLineBytes), gmem_line(r.g, a));
  EXPECT_EQ(r.l2()["hits"], 1);
  EXPECT_EQ(r.l2()["misses"], 1);
  EXPECT_EQ(r.dram()["reads"], 1);
  EXPECT_TRUE(r.part->idle());
}

TEST(MemPartition, DirtyEvictionWritesBackToGlobalMemory) {
  Rig r({"l2.sets=1", "l2.ways=2"});
  uint64_t a = pattern_alloc(r.g, 4096, 5);
  auto before = gmem_line(r.g, a);
  uint32_t v = 0xdeadbeef;
  r.ini.write(a, 8, &v, 4);
  r.ini.read(a + 128, sc_time(200, SC_NS));
  r.ini.read(a + 256, sc_time(400, SC_NS));  // evicts a (LRU)
  sc_core::sc_start(sc_time(150, SC_NS));
  EXPECT_EQ(gmem_line(r.g, a), before) << "write-back cache: DRAM untouched while the line is resident";
  sc_core::sc_start(sc_time(1000, SC_NS));
  ASSERT_EQ(r.ini.finished, 3u);
  auto after = gmem_line(r.g, a);
  uint32_t got;
  std::memcpy(&got, after.data() + 8, 4);
  EXPECT_EQ(got, v);
  after[8] = before[8], after[9] = before[9], after[10] = before[10], after[11] = before[11];
  EXPECT_EQ(after, before) << "only the written bytes changed";
  EXPECT_EQ(r.l2()["writebacks"], 1);
  EXPECT_EQ(r.dram()["writes"], 1);
  EXPECT_EQ(r.part->cache().lookup(a), -1);
}

// Writes allocate without fetching (lazy fetch on read): the line holds only
// the written bytes until a read fetches the rest and merges.
TEST(MemPartition, WriteAllocatesLazilyAndReadMergesFetchedLine) {
  Rig r;
  uint64_t a = pattern_alloc(r.g, 4096, 9);
  uint64_t b = a + 1024;
  auto mem = gmem_line(r.g, a);
  uint8_t w1[4] = {1, 2, 3, 4}, w2[3] = {9, 8, 7};
  r.ini.write(a, 4, w1, 4);    // miss: allocated, nothing fetched
  r.ini.write(a, 100, w2, 3);  // hits the partial line
  Req& rd = r.ini.read(a);     // fetches the line, keeps the written bytes
  std::vector<uint8_t> full(kLineBytes, 0x5a);
  r.ini.write(b, 0, full.data(), kLineBytes);  // full-line write miss
  Req& rb = r.ini.read(b, sc_time(500, SC_NS));
  sc_core::sc_start(sc_time(1000, SC_NS));
  ASSERT_EQ(r.ini.finished, 5u);
  std::memcpy(mem.data() + 4, w1, 4);
  std::memcpy(mem.data() + 100, w2, 3);
  EXPECT_EQ(std::vector<uint8_t>(rd.data, rd.data + kLineBytes), mem);
  EXPECT_EQ(std::vector<uint8_t>(rb.data, rb.data + kLineBytes), full);
  EXPECT_EQ(r.dram()["reads"], 1) << "one fetch, by the read of the partial line";
  EXPECT_EQ(r.l2()["per_kind"]["write"]["misses"], 2);
  EXPECT_EQ(r.l2()["per_kind"]["write"]["hits"], 1);
  EXPECT_EQ(r.l2()["per_kind"]["read"]["misses"], 1);
  r.part->flush();
  EXPECT_EQ(gmem_line(r.g, a), mem);
  EXPECT_EQ(gmem_line(r.g, b), full);
}

// GPGPU-Sim 3.x's policy (l2.write_allocate=fetch): a partial write miss
// fetches the line and later writes merge into its MSHR; a full-line write
// still allocates without fetching.
TEST(MemPartition, FetchOnWriteMergesIntoTheFetch) {
  Rig r({"l2.write_allocate=fetch"});
  uint64_t a = pattern_alloc(r.g, 4096, 9);
  uint64_t b = a + 1024;
  auto mem = gmem_line(r.g, a);
  uint8_t w1[4] = {1, 2, 3, 4}, w2[3] = {9, 8, 7};
  r.ini.write(a, 4, w1, 4);
  r.ini.write(a, 100, w2, 3);
  Req& rd = r.ini.read(a);
  std::vector<uint8_t> full(kLineBytes, 0x5a);
  r.ini.write(b, 0, full.data(), kLineBytes);
  sc_core::sc_start(sc_time(1000, SC_NS));
  ASSERT_EQ(r.ini.finished, 4u);
  std::memcpy(mem.data() + 4, w1, 4);
  std::memcpy(mem.data() + 100, w2, 3);
  EXPECT_EQ(std::vector<uint8_t>(rd.data, rd.data + kLineBytes), mem);
  EXPECT_EQ(r.dram()["reads"], 1) << "one fetch for the partial writes, none for the full-line write";
  EXPECT_EQ(r.l2()["per_kind"]["write"]["misses"], 3);
  EXPECT_EQ(r.l2()["mshr_merges"], 2);
}

// A partial line written back (evicted or flushed) writes only its written
// bytes: the bytes it never fetched keep their DRAM contents.
TEST(MemPartition, PartialLineWritesBackOnlyWrittenBytes) {
  Rig r({"l2.sets=1", "l2.ways=1"});
  uint64_t a = pattern_alloc(r.g, 4096, 4);
  auto mem = gmem_line(r.g, a);
  uint8_t w[2] = {0xee, 0xdd};
  r.ini.write(a, 10, w, 2);
  r.g.write(a + 64, "host", 4, "host");  // DRAM changes under the partial line
  r.ini.read(a + 256, sc_time(300, SC_NS));  // evicts it
  sc_core::sc_start(sc_time(1000, SC_NS));
  ASSERT_EQ(r.ini.finished, 2u);
  std::memcpy(mem.data() + 10, w, 2);
  std::memcpy(mem.data() + 64, "host", 4);
  EXPECT_EQ(gmem_line(r.g, a), mem);
  EXPECT_EQ(r.dram()["reads"], 1);
  EXPECT_EQ(r.dram()["writes"], 1);
}

TEST(MemPartition, MshrMergesRequestsToALineInFlight) {
  Rig r({"l2.mshr_merge=3"});
  uint64_t a = pattern_alloc(r.g, 4096, 1);
  std::vector<Req*> q;
  for (int i = 0; i < 5; ++i) q.push_back(&r.ini.read(a));
  sc_core::sc_start(sc_time(1000, SC_NS));
  ASSERT_EQ(r.ini.finished, 5u);
  // Three fit in the MSHR (1 miss + 2 merges); the 4th stalls the lookup
  // until the fill and then hits, as does the 5th.
  EXPECT_EQ(r.l2()["mshr_merges"], 2);
  EXPECT_EQ(r.l2()["misses"], 3);
  EXPECT_EQ(r.l2()["hits"], 2);
  EXPECT_EQ(r.dram()["reads"], 1);
  for (Req* x : q) EXPECT_EQ(std::vector<uint8_t>(x->data, x->data + kLineBytes), gmem_line(r.g, a));
  // merged requests are served one per cycle after the fill
  EXPECT_EQ(ns(q[1]->done) - ns(q[0]->done), 1.0);
  EXPECT_EQ(ns(q[2]->done) - ns(q[1]->done), 1.0);
  EXPECT_GT(r.l2()["stall_cycles"].get<int64_t>(), 0);
}

TEST(MemPartition, DramRowHitVersusRowMissTiming) {
  Rig r({"dram.tRP=7", "dram.tRCD=9"});
  uint64_t base = pattern_alloc(r.g, 1 << 17, 2);
  // dram.row_bytes 4096 x 16 banks: +128 is the same row, +64 KiB the same
  // bank one row further.
  Req& first = r.ini.read(base);
  Req& hit = r.ini.read(base + 128, sc_time(300, SC_NS));
  Req& conflict = r.ini.read(base + 65536, sc_time(600, SC_NS));
  sc_core::sc_start(sc_time(2000, SC_NS));
  ASSERT_EQ(r.ini.finished, 3u);
  EXPECT_EQ(first.latency_ns() - hit.latency_ns(), 9.0) << "closed bank: + tRCD";
  EXPECT_EQ(conflict.latency_ns() - hit.latency_ns(), 7.0 + 9.0) << "row conflict: + tRP + tRCD";
  EXPECT_EQ(r.dram()["row_hits"], 1);
  EXPECT_EQ(r.dram()["row_misses"], 2);
  EXPECT_EQ(r.dram()["precharges"], 1);
}

// X opens row R; Z (older, row R' of the same bank) cannot precharge before
// tRAS; Y (younger, row R) arrives meanwhile.
void frfcfs_case(const char* sched, bool y_first) {
  Rig r({std::string("dram.scheduler=") + sched});
  uint64_t base = pattern_alloc(r.g, 1 << 17, 4);
  Req& x = r.ini.read(base);
  Req& z = r.ini.read(base + 65536);
  Req& y = r.ini.read(base + 256);
  sc_core::sc_start(sc_time(2000, SC_NS));
  ASSERT_EQ(r.ini.finished, 3u);
  EXPECT_LT(x.done, z.done);
  EXPECT_EQ(y.done < z.done, y_first) << sched;
  EXPECT_EQ(r.dram()["row_hits"], y_first ? 1 : 0);
  EXPECT_EQ(std::vector<uint8_t>(y.data, y.data + kLineBytes), gmem_line(r.g, base + 256));
}

TEST(MemPartition, FrFcfsServesYoungerRowHitFirst) { frfcfs_case("frfcfs", true); }
TEST(MemPartition, FcfsKeepsArrivalOrder) { frfcfs_case("fcfs", false); }

TEST(MemPartition, FlushAndInvalidate) {
  Rig r;
  uint64_t a = pattern_alloc(r.g, 4096, 6);
  auto orig = gmem_line(r.g, a);
  uint32_t v = 0x11223344;
  r.ini.write(a, 64, &v, 4);
  sc_core::sc_start(sc_time(500, SC_NS));
  ASSERT_EQ(r.ini.finished, 1u);
  EXPECT_EQ(gmem_line(r.g, a), orig);
  EXPECT_EQ(r.part->flush(), 1u);
  auto flushed = gmem_line(r.g, a);
  uint32_t got;
  std::memcpy(&got, flushed.data() + 64, 4);
  EXPECT_EQ(got, v);
  EXPECT_EQ(r.part->flush(), 0u) << "flushed lines are clean";
  EXPECT_GE(r.part->cache().lookup(a), 0) << "and still resident";

  // Dirty again at bytes 64..67; the host then writes bytes 0..3 directly.
  uint32_t v2 = 0x55667788, host = 0xcafef00d;
  Req& w = r.ini.write(a, 64, &v2, 4, sc_time(600, SC_NS));
  sc_core::sc_start(sc_time(200, SC_NS));
  ASSERT_TRUE(w.finished);
  r.g.write(a, &host, 4, "host");
  EXPECT_EQ(r.part->invalidate(a, 4), 1u);
  EXPECT_EQ(r.part->cache().lookup(a), -1);
  EXPECT_EQ(r.part->invalidate(a + 4096, 128), 0u);
  Req& rd = r.ini.read(a, sc_time(900, SC_NS));
  sc_core::sc_start(sc_time(500, SC_NS));
  ASSERT_TRUE(rd.finished);
  auto expect = orig;
  std::memcpy(expect.data(), &host, 4);
  std::memcpy(expect.data() + 64, &v2, 4);
  EXPECT_EQ(std::vector<uint8_t>(rd.data, rd.data + kLineBytes), expect)
      << "host bytes win inside the range, the cache's dirty bytes outside it";
  EXPECT_EQ(r.dram()["reads"], 1) << "the writes allocated without fetching; only the last read fetched";
}

TEST(MemPartition, StatsResetPerKernel) {
  Rig r;
  uint64_t a = pattern_alloc(r.g, 4096, 6);
  r.ini.read(a);
  sc_core::sc_start(sc_time(500, SC_NS));
  EXPECT_EQ(r.l2()["accesses"], 1);
  r.part->reset_stats();
  EXPECT_EQ(r.l2()["accesses"], 0);
  EXPECT_EQ(r.dram()["reads"], 0);
  EXPECT_EQ(r.dram()["cycles"], 0);
}

}  // namespace
}  // namespace relgpu::mem::test
