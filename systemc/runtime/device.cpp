#include "runtime/device.h"

#include <cstring>

#include "common/error.h"
#include "func/engine.h"
#include "func/exec.h"
#include "func/memory.h"
#include "ptx/analysis.h"
#include "ptx/parser.h"
#include "ptx/validate.h"
#include "runtime/resilience.h"
#include "sm/less_keys.h"

namespace relgpu::runtime {

using func::Allocation;
using func::hex;

// The checkpoint runtime's untimed device side.
class Device::Target final : public CheckpointTarget {
 public:
  explicit Target(Device& d) : d_(d) {}
  std::vector<uint8_t> copy_out(uint64_t base, uint64_t size) override {
    std::vector<uint8_t> v(size);
    d_.engine_->host_reads(base, size);
    d_.mem_->read(v.data(), base, size, "checkpoint copy");
    return v;
  }
  void copy_in(uint64_t base, const std::vector<uint8_t>& bytes, uint64_t size) override {
    if (bytes.empty()) d_.mem_->fill(base, 0, size, "checkpoint restore");
    else d_.mem_->write(base, bytes.data(), size, "checkpoint restore");
    d_.engine_->host_wrote(base, size, true);
  }
  void flip_bit(uint64_t addr, unsigned bit) override {
    uint8_t b = 0;
    d_.engine_->host_reads(addr + bit / 8, 1);
    d_.mem_->read(&b, addr + bit / 8, 1, "error injection");
    b ^= uint8_t(1u << (bit % 8));
    d_.mem_->write(addr + bit / 8, &b, 1, "error injection");
    d_.engine_->host_wrote(addr + bit / 8, 1, false);
  }
  uint64_t relaunch(const Launch& l) override {
    return d_.run(*l.mod, *l.kernel, l.grid, l.block, l.dyn_shmem, l.params, true);
  }

 private:
  Device& d_;
};

Device::Device(const config::Config& cfg)
    : cfg_(cfg), mem_(std::make_unique<func::GlobalMemory>()) {
  engine_ = std::make_unique<func::FuncEngine>(cfg_, *mem_);
  Resilience::check(cfg_);
  if (Resilience::enabled(cfg_)) {
    target_ = std::make_unique<Target>(*this);
    resilience_ = std::make_unique<Resilience>(cfg_, *mem_, *target_);
    access_ = std::make_unique<func::AccessLog>();
  }
}

Device::~Device() = default;

void Device::set_engine(std::unique_ptr<Engine> e) { engine_ = std::move(e); }

const ptx::Module& Device::load_module(const std::string& ptx_text, const std::string& file,
                                      const ptx::PtxasInfo* ptxas) {
  std::unique_ptr<ptx::Module> m = ptx::parse(ptx_text, file);
  ptx::analyse(*m);
  if (ptxas && cfg_.get(kRegsPerThread) == "ptxas") ptx::apply(*m, *ptxas, cfg_.get(kRegsOutside) == "constants");
  if (sm::less_splits(cfg_))  // LESS's namespaces (sm/less_keys.h)
    for (auto& f : m->functions) ptx::split_namespaces(*f, unsigned(cfg_.get(sm::kLessThreshold)));
  ptx::validate(*m, func::implemented);
  // Module-scope .global and .const variables get their own allocation;
  // module-scope .shared lives in each CTA's shared area (no address here).
  auto has_storage = [](const ptx::Symbol& g) {
    return g.space == ptx::Space::global || g.space == ptx::Space::const_;
  };
  if (!capacity_key_.empty()) {
    const uint64_t used = mem_->bytes_allocated(), left = used < capacity_ ? capacity_ - used : 0;
    uint64_t need = 0;
    const ptx::Symbol* largest = nullptr;
    for (const ptx::Symbol& g : m->globals) {
      if (!has_storage(g)) continue;
      need = g.size > UINT64_MAX - need ? UINT64_MAX : need + g.size;
      if (!largest || g.size > largest->size) largest = &g;
    }
    if (need > left)
      throw InputError(file + ": its .global and .const variables need " + std::to_string(need) + " bytes ('" +
                       largest->name + "' " + std::to_string(largest->size) + "), more than the " +
                       std::to_string(left) + " bytes of device memory left (" + capacity_key_ + "=" +
                       std::to_string(capacity_) + ")");
  }
  std::vector<DevPtr> addrs(m->globals.size(), 0);
  for (size_t i = 0; i < m->globals.size(); ++i) {
    const ptx::Symbol& g = m->globals[i];
    if (!has_storage(g)) continue;
    auto kind = g.space == ptx::Space::const_ ? Allocation::Kind::const_var : Allocation::Kind::global_var;
    addrs[i] = mem_->alloc(g.size, kind, g.name);
    if (!g.init.empty())
      mem_->write(addrs[i], g.init.data(), std::min<uint64_t>(g.init.size(), g.size), "module initializer");
  }
  for (size_t i = 0; i < m->globals.size(); ++i) {
    const ptx::Symbol& g = m->globals[i];
    for (const auto& r : g.relocs) {
      if (r.target < 0 || size_t(r.target) >= addrs.size() || !addrs[r.target])
        throw InputError(file + ": initializer of '" + g.name + "' takes the address of a variable with no global address");
      if (!addrs[i]) throw InputError(file + ": initializer of '" + g.name + "' holds an address but has no storage");
      uint64_t v = addrs[r.target] + uint64_t(r.addend);
      unsigned n = ptx::type_bytes(g.type) == 4 ? 4 : 8;
      mem_->write(addrs[i] + r.offset, &v, n, "module initializer");
    }
  }
  if (resilience_)
    for (size_t i = 0; i < m->globals.size(); ++i)
      if (addrs[i]) resilience_->host_wrote(addrs[i], m->globals[i].size, Resilience::HostWrite::init);
  mem_->set_module_symbols(m.get(), addrs);
  module_symbols_.push_back(std::move(addrs));
  modules_.push_back(std::move(m));
  return *modules_.back();
}

void Device::set_memory_capacity(uint64_t bytes, std::string key) {
  capacity_ = bytes;
  capacity_key_ = std::move(key);
}

const ptx::Function& Device::kernel(const ptx::Module& mod, const std::string& name) const {
  const ptx::Function* f = mod.find(name);
  if (f && f->is_entry) return *f;
  std::string list;
  for (auto& fn : mod.functions)
    if (fn->is_entry) list += (list.empty() ? "" : ", ") + fn->name;
  throw InputError(mod.file + ": no kernel named '" + name + "'" +
                   (f ? " ('" + name + "' is a .func, not an .entry)" : "") + "; kernels: " +
                   (list.empty() ? "none" : list));
}

DevPtr Device::malloc(size_t bytes) {
  DevPtr p = mem_->alloc(bytes, Allocation::Kind::heap, "");
  if (resilience_) resilience_->allocated(p, bytes);
  return p;
}

void Device::free(DevPtr p) {
  mem_->free(p);
  if (resilience_) resilience_->freed(p);
}

void Device::memcpy_to_device(DevPtr dst, const void* src, size_t n) {
  mem_->write(dst, src, n, "memcpy host-to-device (destination)");
  engine_->host_wrote(dst, n, true);
  if (resilience_) resilience_->host_wrote(dst, n, Resilience::HostWrite::copy);
}

void Device::memcpy_to_host(void* dst, DevPtr src, size_t n) {
  engine_->host_reads(src, n);
  mem_->read(dst, src, n, "memcpy device-to-host (source)");
  if (resilience_) resilience_->host_read(n);
}

void Device::memcpy_device(DevPtr dst, DevPtr src, size_t n) {
  std::vector<uint8_t> tmp(n);
  engine_->host_reads(src, n);
  mem_->read(tmp.data(), src, n, "memcpy device-to-device (source)");
  mem_->write(dst, tmp.data(), n, "memcpy device-to-device (destination)");
  engine_->host_wrote(dst, n, false);
  if (resilience_) resilience_->host_wrote(dst, n, Resilience::HostWrite::device_copy);
}

void Device::memset(DevPtr dst, int value, size_t n) {
  mem_->fill(dst, value, n, "memset");
  engine_->host_wrote(dst, n, false);
  if (resilience_) resilience_->host_wrote(dst, n, Resilience::HostWrite::memset);
}

DevPtr Device::symbol(const ptx::Module& mod, const std::string& name, size_t* size) const {
  for (size_t k = 0; k < modules_.size(); ++k) {
    if (modules_[k].get() != &mod) continue;
    for (size_t i = 0; i < mod.globals.size(); ++i) {
      if (mod.globals[i].name != name) continue;
      if (!module_symbols_[k][i])
        throw InputError(mod.file + ": '" + name + "' is a ." + ptx::space_name(mod.globals[i].space) +
                         " variable, which has no device address");
      if (size) *size = mod.globals[i].size;
      return module_symbols_[k][i];
    }
    throw InputError(mod.file + ": no __device__ or __constant__ variable named '" + name + "'");
  }
  throw InputError("symbol '" + name + "': module not loaded by this device");
}

void Device::launch(const ptx::Function& k, Dim3 grid, Dim3 block, size_t dyn_shmem, void* const* args) {
  const ptx::Module* mod = nullptr;
  for (auto& m : modules_)
    for (auto& f : m->functions)
      if (f.get() == &k) mod = m.get();
  if (!mod) throw InputError("launch of '" + k.name + "': kernel not from a module loaded by this device");
  if (!k.is_entry) throw InputError("launch of '" + k.name + "': it is a .func, not a kernel (.entry)");
  auto dims = [](Dim3 d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
  };
  std::string what = "launch of '" + k.name + "' with grid " + dims(grid) + " block " + dims(block);
  if (!grid.count() || !block.count()) throw InputError(what + ": every dimension must be at least 1");
  uint64_t max_threads = uint64_t(cfg_.get(kMaxThreadsPerBlock));
  if (block.count() > max_threads || block.z > 64)
    throw InputError(what + ": " + std::to_string(block.count()) + " threads per block exceeds " +
                     "gpu.max_threads_per_block=" + std::to_string(max_threads) + " (or block.z > 64)");
  if (grid.y > 65535 || grid.z > 65535 || grid.x > 0x7fffffffu)
    throw InputError(what + ": grid dimension out of range (x < 2^31, y and z <= 65535)");
  for (int i = 0; i < 3; ++i) {
    uint32_t b = i == 0 ? block.x : i == 1 ? block.y : block.z;
    if (k.reqntid[0] && b != (k.reqntid[i] ? k.reqntid[i] : 1))
      throw InputError(what + ": the kernel requires .reqntid " + std::to_string(k.reqntid[0]) + "," +
                       std::to_string(k.reqntid[1]) + "," + std::to_string(k.reqntid[2]));
  }
  if (k.maxntid[0]) {
    uint64_t mx = uint64_t(k.maxntid[0]) * (k.maxntid[1] ? k.maxntid[1] : 1) * (k.maxntid[2] ? k.maxntid[2] : 1);
    if (block.count() > mx)
      throw InputError(what + ": the kernel allows at most " + std::to_string(mx) + " threads (.maxntid)");
  }
  uint64_t shmax = uint64_t(cfg_.get(kSharedBytesPerBlock));
  if (k.shared_bytes + dyn_shmem > shmax)
    throw InputError(what + ": " + std::to_string(k.shared_bytes) + " bytes of static plus " +
                     std::to_string(dyn_shmem) + " bytes of dynamic shared memory exceed gpu.shared_bytes_per_block=" +
                     std::to_string(shmax));
  std::vector<uint8_t> params(k.param_bytes, 0);
  if (!k.params.empty() && !args) throw InputError(what + ": the kernel takes " + std::to_string(k.params.size()) +
                                                   " parameters but no argument array was given");
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ptx::Symbol& s = k.symbols[k.params[i]];
    if (!args[i]) throw InputError(what + ": argument " + std::to_string(i) + " ('" + s.name + "') is null");
    if (s.offset + s.size > params.size()) params.resize(s.offset + s.size);
    std::memcpy(params.data() + s.offset, args[i], s.size);
  }
  if (!resilience_) {
    run(*mod, k, grid, block, dyn_shmem, params, false);
    return;
  }
  resilience_->before_launch();
  access_->clear();
  engine_->access_log = access_.get();
  uint64_t ps = 0;
  try {
    ps = run(*mod, k, grid, block, dyn_shmem, params, false);
  } catch (...) {
    engine_->access_log = nullptr;
    throw;
  }
  engine_->access_log = nullptr;
  resilience_->after_launch({mod, &k, grid, block, dyn_shmem, params}, *access_, k.name, ps);
}

uint64_t Device::run(const ptx::Module& mod, const ptx::Function& k, Dim3 grid, Dim3 block, uint64_t dyn_shmem,
                 const std::vector<uint8_t>& params, bool replay) {
  LaunchRecord rec;
  rec.replay = replay;
  rec.kernel = k.name;
  rec.grid = grid;
  rec.block = block;
  rec.dyn_shmem = dyn_shmem;
  rec.regs_per_thread = k.regs_used();
  rec.regs_ptxas = k.regs_ptxas;
  rec.regs_allocator = k.regs_allocator;
  engine_->launch(mod, k, grid, block, dyn_shmem, params, rec);
  const uint64_t ps = sim_time_ps(rec);
  launches_.push_back(std::move(rec));
  return ps;
}

nlohmann::ordered_json Device::resilience_stats() const {
  return resilience_ ? resilience_->stats() : nlohmann::ordered_json();
}

uint64_t sim_time_ps(const LaunchRecord& r) {
  return r.detail.is_object() && r.detail.contains("sim_time_ps") ? r.detail["sim_time_ps"].get<uint64_t>() : 0;
}

void Device::finish() {
  if (!launches_.empty()) engine_->finish(launches_.back());
}

nlohmann::ordered_json register_stats(const LaunchRecord& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["regs_per_thread"] = r.regs_per_thread;
  j["regs_ptxas"] = r.regs_ptxas ? nlohmann::ordered_json(r.regs_ptxas) : nlohmann::ordered_json();
  j["regs_allocator"] = r.regs_allocator;
  if (!r.occupancy.is_null()) j["occupancy"] = r.occupancy;
  return j;
}

std::string register_note(const LaunchRecord& r) {
  const std::string k = "kernel '" + r.kernel + "': ";
  if (!r.regs_ptxas)
    return k + "no ptxas register count; occupancy and register-file rows use relgpu's allocator's " +
           std::to_string(r.regs_allocator) + " registers per thread (ptxas usually needs more, so occupancy may be "
           "optimistic)";
  return "";
}

}  // namespace relgpu::runtime
