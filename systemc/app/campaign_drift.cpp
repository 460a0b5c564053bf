// Why runs a store already holds run again. A run's identity is its
// effective config with every key, so a key added to relgpu since a store was
// made gives every stored run a new identity: the campaign would redo them
// all. Saying which keys differ lets the user check the build against the
// store (scripts/rerun_store) instead of rerunning blind.
#include <sstream>

#include "app/campaign.h"

namespace relgpu::app::campaign {

std::vector<const Planned*> runs_to_do(const std::vector<Planned>& p,
                                       const std::map<std::string, std::string>& statuses, bool retry_failed) {
  std::vector<const Planned*> out;
  for (const Planned& x : p) {
    auto it = statuses.find(x.key);
    const std::string s = it == statuses.end() ? "queued" : it->second;
    if (s == "queued" || s == "running" || (s == "failed" && retry_failed)) out.push_back(&x);
  }
  return out;
}

Drift drift(const std::vector<const Planned*>& todo, const std::map<std::string, std::string>& stored) {
  Drift d;
  for (const Planned* x : todo) {
    auto it = stored.find(x->run->name);
    if (it == stored.end()) continue;
    ++d.runs;
    json now = json::parse(x->config), then = json::parse(it->second);
    for (const auto& [k, v] : now.items()) {
      if (!then.contains(k)) ++d.added[k];
      else if (then[k] != v) ++d.changed[k];
    }
    for (const auto& [k, v] : then.items())
      if (!now.contains(k)) ++d.removed[k];
  }
  return d;
}

namespace {

std::string keys(const std::map<std::string, int64_t>& m, int64_t runs) {
  std::ostringstream o;
  size_t shown = 0;
  for (const auto& [k, n] : m) {
    if (shown == 8) {
      o << " and " << m.size() - shown << " more";
      break;
    }
    o << (shown++ ? ", " : "") << k;
    if (n != runs) o << " (" << n << " runs)";
  }
  return o.str();
}

}  // namespace

std::string describe(const Drift& d, const std::string& store_path, const std::string& campaign,
                     const std::string& prefix) {
  if (!d.runs) return "";
  std::ostringstream o;
  o << prefix << d.runs << " of the runs to do " << (d.runs == 1 ? "was" : "were")
    << " done before under the same name with another config";
  if (d.added.empty() && d.removed.empty() && d.changed.empty()) o << " (another workload, size, seed or mode)";
  o << ":\n";
  if (!d.added.empty()) o << prefix << "  keys relgpu has added since: " << keys(d.added, d.runs) << "\n";
  if (!d.removed.empty()) o << prefix << "  keys relgpu no longer has: " << keys(d.removed, d.runs) << "\n";
  if (!d.changed.empty()) o << prefix << "  keys whose value changed: " << keys(d.changed, d.runs) << "\n";
  if (d.changed.empty())
    o << prefix << "If the new keys' defaults keep the old behaviour, `scripts/rerun_store " << store_path
      << " --campaign " << campaign << " --limit 5` (in relgpu's source tree) checks that this build gives the "
      << "stored stats before you redo them all.\n";
  return o.str();
}

}  // namespace relgpu::app::campaign
