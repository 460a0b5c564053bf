// The runtime behind libcudart.so.13 (cudart/runtime.h), driven in-process
// the way the registration ABI and the API calls drive it, with an
// nvcc-made fatbinary (systemc/tests/data/cudart/sample.default.fatbin:
// relgpu_sample(float* x, int n) { if (i < n) x[i] *= scale; }). Needs no nvcc.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "cudart/fatbin.h"
#include "gpu/mode.h"
#include "cudart/runtime.h"
#include "ptx/ptxas.h"
#include "test_paths.h"

using namespace relgpu;
using namespace relgpu::cudart;

namespace {

std::vector<uint64_t> read_words(const std::string& name) {
  std::ifstream f(testpaths::source_path("systemc/tests/data/cudart/" + name), std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<uint64_t> w((b.size() + 7) / 8, 0);
  std::memcpy(w.data(), b.data(), b.size());
  return w;
}

struct Wrapper {
  int magic, version;
  const void* data;
  void* unused;
};

const char kKernel[] = "_Z13relgpu_samplePfi";
int host_stub;      // stands for the host stub function's address
float host_scale;   // stands for the __constant__ variable's host shadow

struct Rig {
  std::vector<uint64_t> fatbin = read_words("sample.default.fatbin");
  Wrapper w{int(kWrapperMagic), 1, fatbin.data(), nullptr};
  Runtime rt;
  void** h;
  explicit Rig(Options o) : rt(std::move(o)) {
    h = rt.register_fatbin(&w);
    rt.register_function(h, &host_stub, kKernel);
    rt.register_var(h, &host_scale, "scale", sizeof(float), true);
  }
  static Options functional(std::string stats = "") {
    Options o;
    o.sets = {"sim.mode=functional"};
    o.stats_file = std::move(stats);
    o.quiet = true;
    return o;
  }
  // x[i] *= scale for i < n, on n floats starting at x (device).
  void run(float* x, int n, float scale) {
    size_t size = 0;
    uint64_t s = rt.symbol(&host_scale, &size);
    EXPECT_EQ(size, sizeof(float));
    rt.memcpy(reinterpret_cast<void*>(s), &scale, sizeof scale, cudaMemcpyHostToDevice);
    void* args[] = {&x, &n};
    rt.launch(rt.kernel_handle(&host_stub), dim3{uint32_t((n + 63) / 64), 1, 1}, dim3{64, 1, 1}, args, 0, nullptr);
  }
};

}  // namespace

TEST(CudartRuntime, RegisterLaunchAndCopyBack) {
  Rig r(Rig::functional());
  const int n = 200;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = float(i);
  auto* d = static_cast<float*>(r.rt.malloc(n * sizeof(float)));
  ASSERT_TRUE(r.rt.is_device(d));
  r.rt.memcpy(d, h.data(), n * sizeof(float), cudaMemcpyDefault);
  r.run(d, n, 2.5f);
  std::vector<float> out(n);
  r.rt.memcpy(out.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], 2.5f * i);
  EXPECT_EQ(r.rt.sticky(), 0);
  r.rt.free(d);
}

// The README's "program without PTX" row without nvcc: registering a
// fatbinary with only SASS stops the program, exit status 2, naming the flag.
TEST(CudartRuntime, FatbinaryWithoutPtxStopsTheProgramWithExitTwo) {
  std::vector<uint64_t> sass = read_words("sample.sass.fatbin");
  Wrapper w{int(kWrapperMagic), 1, sass.data(), nullptr};
  EXPECT_EXIT(
      {
        Runtime rt(Rig::functional());
        rt.register_fatbin(&w);
      },
      ::testing::ExitedWithCode(2),
      "carries no PTX \\(it has sm_75 SASS\\).*-gencode arch=compute_75,code=compute_75.*stopping the program");
}

TEST(CudartRuntime, EventsMeasureSimulatedTime) {
  Rig r(Rig::functional());
  auto* d = static_cast<float*>(r.rt.malloc(4096 * sizeof(float)));
  r.rt.memset(d, 0, 4096 * sizeof(float));
  cudaEvent_t a = r.rt.event_create(0), b = r.rt.event_create(0), c = r.rt.event_create(RELGPU_EVENT_DISABLE_TIMING);
  r.rt.event_record(a, nullptr);
  r.run(d, 4096, 1.0f);
  r.rt.event_record(b, nullptr);
  float ms = r.rt.event_elapsed_ms(a, b);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 1.0f);  // a 4096-thread kernel: microseconds at 700 MHz
  EXPECT_THROW(r.rt.event_elapsed_ms(a, c), CudaError);  // c: timing disabled
  cudaEvent_t never = r.rt.event_create(0);
  EXPECT_THROW(r.rt.event_elapsed_ms(a, never), CudaError);
}

TEST(CudartRuntime, OutOfBoundsIsStickyIllegalAddressUntilReset) {
  Rig r(Rig::functional());
  auto* d = static_cast<float*>(r.rt.malloc(64 * sizeof(float)));
  testing::internal::CaptureStderr();
  r.run(d, 128, 1.0f);  // 64 floats allocated, 128 touched
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.rt.sticky(), cudaErrorIllegalAddress);
  EXPECT_NE(err.find("relgpu: kernel error: kernel '_Z13relgpu_samplePfi': out-of-bounds"), std::string::npos) << err;
  EXPECT_NE(err.find("cudaErrorIllegalAddress"), std::string::npos) << err;
  EXPECT_EQ(r.rt.peek_last(), cudaErrorIllegalAddress);
  EXPECT_EQ(r.rt.take_last(), cudaErrorIllegalAddress);
  EXPECT_EQ(r.rt.take_last(), cudaErrorIllegalAddress);  // sticky
  r.rt.reset();
  EXPECT_EQ(r.rt.sticky(), 0);
  // After the reset the module loads again into the new device.
  auto* d2 = static_cast<float*>(r.rt.malloc(64 * sizeof(float)));
  r.rt.memset(d2, 0, 64 * sizeof(float));
  r.run(d2, 64, 3.0f);
  EXPECT_EQ(r.rt.sticky(), 0);
}

TEST(CudartRuntime, StatsHaveOneRecordPerLaunch) {
  std::string path = testing::TempDir() + "cudart_runtime_stats.json";
  std::remove(path.c_str());
  Rig r(Rig::functional(path));
  auto* d = static_cast<float*>(r.rt.malloc(256 * sizeof(float)));
  r.rt.memset(d, 0, 256 * sizeof(float));
  r.run(d, 256, 1.0f);
  r.run(d, 100, 2.0f);
  r.rt.unregister_fatbin(r.h);  // the last one: the run is over, stats written
  std::ifstream f(path);
  ASSERT_TRUE(f.good()) << path;
  config::json s = config::json::parse(f);
  EXPECT_EQ(s["mode"], "functional");
  EXPECT_EQ(s["kernel_launches"], 2);
  ASSERT_EQ(s["launches"].size(), 2u);
  auto& l = s["launches"][1];
  EXPECT_EQ(l["kernel"], kKernel);
  EXPECT_EQ(l["name"], "relgpu_sample(float*, int)");
  EXPECT_EQ(l["grid"], config::json::array({2, 1, 1}));
  EXPECT_EQ(l["block"], config::json::array({64, 1, 1}));
  EXPECT_GT(l["gpu_sim_insn"].get<uint64_t>(), 0u);
  EXPECT_GT(l["sim_time_ps"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["config"]["sim.mode"], "functional");
}

TEST(CudartRuntime, PropertiesDescribeTheConfiguredGpu) {
  Options o = Rig::functional();
  o.sets.push_back("gpu.num_sms=4");
  o.sets.push_back("gpu.sm_clock_mhz=1000");
  Rig r(o);
  cudaDeviceProp p;
  r.rt.fill_properties(p);
  EXPECT_EQ(p.multiProcessorCount, 4);
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_EQ(p.major * 10 + p.minor, 75);
  EXPECT_EQ(r.rt.attribute(cudaDevAttrClockRate), 1000000);
  EXPECT_EQ(r.rt.attribute(cudaDevAttrMultiProcessorCount), 4);
  EXPECT_THROW(r.rt.attribute(100000), CudaError);
  cudaFuncAttributes a;
  r.rt.func_attributes(&host_stub, a);
  EXPECT_GT(a.numRegs, 0);
  EXPECT_EQ(a.maxThreadsPerBlock, 1024);
  EXPECT_GT(r.rt.occupancy(&host_stub, 256, 0), 0);
}

TEST(CudartRuntime, BadHandlesAndPointersAreCudaErrors) {
  Rig r(Rig::functional());
  int not_a_kernel, not_a_var;
  EXPECT_EQ(r.rt.kernel_handle(&not_a_kernel), nullptr);
  try {
    r.rt.symbol(&not_a_var, nullptr);
    FAIL();
  } catch (const CudaError& e) {
    EXPECT_EQ(e.code, cudaErrorInvalidSymbol);
  }
  EXPECT_THROW(r.rt.check_stream(reinterpret_cast<cudaStream_t>(0x1234)), CudaError);
  cudaStream_t s = r.rt.stream_create();
  EXPECT_NO_THROW(r.rt.check_stream(s));
  r.rt.stream_destroy(s);
  EXPECT_THROW(r.rt.check_stream(s), CudaError);
  int host[4];
  // A copy to host memory as if it were device memory: the device layer's message.
  EXPECT_THROW(r.rt.memcpy(host, host, sizeof host, cudaMemcpyHostToDevice), InputError);
  EXPECT_EQ(kernel_error_code("kernel 'k': misaligned load"), cudaErrorMisalignedAddress);
  EXPECT_STREQ(error_name(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
}

TEST(CudartRuntime, BadConfigurationIsAnInitializationError) {
  Options o;
  o.sets = {"gpu.no_such_key=1"};
  Runtime rt(o);
  EXPECT_EQ(rt.init_error(), cudaErrorInitializationError);
  EXPECT_NE(rt.init_message().find("gpu.no_such_key"), std::string::npos);
  EXPECT_THROW(rt.device(), CudaError);
}

namespace {

// Runs the sample kernel twice with cudart.ptxas=`ptxas`; returns stderr,
// and the first launch's record in `rec`.
std::string run_with_ptxas(const std::string& ptxas, config::json& rec) {
  std::string path = testing::TempDir() + "cudart_ptxas_" + std::to_string(ptxas.size()) + ".json";
  std::remove(path.c_str());
  setenv("XDG_CACHE_HOME", (testing::TempDir() + "relgpu_cudart_cache").c_str(), 1);
  Options o = Rig::functional(path);
  o.sets.push_back("cudart.ptxas=" + ptxas);
  Rig r(o);
  auto* d = static_cast<float*>(r.rt.malloc(64 * sizeof(float)));
  r.rt.memset(d, 0, 64 * sizeof(float));
  testing::internal::CaptureStderr();
  r.run(d, 64, 1.0f);
  r.run(d, 64, 2.0f);
  std::string err = testing::internal::GetCapturedStderr();
  r.rt.unregister_fatbin(r.h);
  std::ifstream f(path);
  rec = config::json::parse(f)["launches"][0];
  return err;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(CudartRuntime, WithoutPtxasTheAllocatorCountIsUsedWithOneWarning) {
  config::json rec;
  std::string err = run_with_ptxas("off", rec);
  const std::string warning = "relgpu: warning: kernel '_Z13relgpu_samplePfi': no ptxas register count";
  EXPECT_EQ(count(err, warning), 1u) << err;
  EXPECT_NE(err.find("(ptxas is off (cudart.ptxas=off))"), std::string::npos) << err;
  EXPECT_TRUE(rec["regs_ptxas"].is_null()) << rec.dump();
  EXPECT_GT(rec["regs_allocator"].get<uint32_t>(), 0u);
  EXPECT_EQ(rec["regs_per_thread"], rec["regs_allocator"]);
  // A ptxas that is not there: the same fallback, saying why.
  err = run_with_ptxas("/nonexistent/ptxas", rec);
  EXPECT_NE(err.find("'/nonexistent/ptxas' is not an executable file"), std::string::npos) << err;
}

// Needs ptxas (the CUDA toolkit); skipped without it.
TEST(CudartRuntime, WithPtxasRegistersAreItsCount) {
  std::string why;
  if (ptx::find_ptxas("auto", why).empty()) GTEST_SKIP() << why;
  config::json rec;
  std::string err = run_with_ptxas("auto", rec);
  EXPECT_EQ(err.find("no ptxas register count"), std::string::npos) << err;
  ASSERT_TRUE(rec["regs_ptxas"].is_number()) << rec.dump();
  EXPECT_GE(rec["regs_ptxas"].get<uint32_t>(), 8u) << "ptxas never reports fewer than 8";
  EXPECT_EQ(rec["regs_per_thread"].get<uint32_t>(),
            std::max(rec["regs_ptxas"].get<uint32_t>(), rec["regs_allocator"].get<uint32_t>()));
}
