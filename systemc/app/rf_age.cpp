// `relgpu rf-age`: register-file aging over 100 chips x sigma ratios under
// the baseline, PV-opt and NBTI-opt bank organisations (reliability/
// rf_aging.h), from the stress profiles of a campaign's timing runs.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "app/args.h"
#include "app/sqlite.h"
#include "reliability/rf_aging.h"

namespace relgpu::app {

namespace {

using reliability::Org;

const char* kRfAgeHelp =
    "usage: relgpu rf-age --store FILE [options]\n\n"
    "Ages the register files of many chips for a lifetime under NBTI (Tan et al., TPDS 2016, Eq. 1-2)\n"
    "under three bank organisations: baseline (no BOT), pv_opt (the test-time RF-BRO pairing for life)\n"
    "and nbti_opt (kernel-level re-organisation from the sub-bank sensors). Each workload's stress\n"
    "profile (the share of cycles each vb of each SM is accessed) comes from a campaign's timing runs\n"
    "on configs/fermi_16bank.json; see reliability/rf_aging.h for the model. Prints (or writes) JSON:\n"
    "per sigma ratio, workload and organisation, the mean over chips of the chip clock (mean over its\n"
    "SMs, no PV = 1) at time 0 and at the end, and the guardband; and per sigma ratio the share of\n"
    "banks with a slow sub-bank under VL-SB and RF-BRO (slow_banks, the paper's Fig. 4).\n\n"
    "  --store FILE        the campaign store (relgpu campaign run regress/rf_variation.json)\n"
    "  --campaign NAME     campaign in the store (default rf_variation)\n"
    "  --runs LIST         organisation=run name prefix (default baseline=base,pv_opt=pvopt,nbti_opt=ren)\n"
    "  --chips N           chips per sigma ratio (default 100), pv.chip_seed FIRST .. FIRST+N-1\n"
    "  --first-seed S      (default 1000)\n"
    "  --ratios LIST       sigma ratios (default 1:4,1:1,4:1)\n"
    "  --years Y           lifetime (default 7, the paper's Fig. 8)\n"
    "  --epochs E          nbti_opt re-organisations over the life (default 14)\n"
    "  --kv K              NBTI Kv (default the fitted constant, reliability/nbti.cpp)\n"
    "  --fit-kv TARGET     first fit Kv so the baseline's mean aged clock at 1:1 is TARGET of no PV\n"
    "                      (the paper: 0.45), then report with it\n"
    "  --stress access|always  ablation: a sub-bank is stressed in the cycles it is accessed (default) or\n"
    "                      always (a cell always holds a value, so one of its PMOS is always stressed)\n"
    "  --recovery shift|literal  ablation: Eq. (2)'s recovery acts on the NBTI shift (default) or, read\n"
    "                      literally, on all of Eq. (1)'s dVth including the PV offset\n"
    "  --out FILE          write the JSON there (default stdout)\n"
    "  -j N                threads (default: the cores)\n";

// Fast vbs under RF-BRO on the paper's RF: round(0.7 x 32) fast sub-banks, paired.
constexpr unsigned kFastVbs = 11;
static_assert(kFastVbs == unsigned(reliability::RfDelay::kFastShare * 32 + 0.5) / 2);

struct Profile {
  std::vector<std::vector<double>> duty;  // [sm][vb]
};
using Profiles = std::map<std::string, std::map<Org, Profile>>;  // workload -> org

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

Org parse_org(const std::string& s) {
  for (Org o : {Org::kBaseline, Org::kPvOpt, Org::kNbtiOpt})
    if (s == reliability::org_name(o)) return o;
  throw InputError("rf-age: --runs: unknown organisation '" + s + "' (baseline, pv_opt, nbti_opt)");
}

// Duty of vb v of SM i: its reads and writes (a slow vb's counting 2 cycles)
// over the SM's cycles. Slow vbs: 11-15 under the opts (RF-BRO), none in
// the baseline.
Profile profile_of(const config::json& st, Org org, const std::string& where) {
  Profile p;
  const auto& sms = st.at("sms");
  for (const auto& sm : sms) {
    const auto& rd = sm.at("rf").at("reads");
    const auto& wr = sm.at("rf").at("writes");
    const double cycles = sm.at("cycles").get<double>();
    if (rd.size() != 16 || wr.size() != 16)
      throw InputError("rf-age: " + where + ": needs the paper's 16-bank RF (configs/fermi_16bank.json)");
    std::vector<double> d(16, 0.0);
    for (unsigned v = 0; v < 16; ++v) {
      const double cpa = org != Org::kBaseline && v >= kFastVbs ? 2 : 1;
      d[v] = cycles > 0 ? std::min(1.0, (rd[v].get<double>() + wr[v].get<double>()) * cpa / cycles) : 0;
    }
    p.duty.push_back(d);
  }
  if (p.duty.size() != 15) throw InputError("rf-age: " + where + ": needs the paper's 15 SMs");
  return p;
}

Profiles load(const std::string& store, const std::string& campaign, const std::map<Org, std::string>& runs) {
  sql::Db db(store, false, true);
  Profiles out;
  sql::Stmt q(db, "SELECT name, workload, stats FROM runs WHERE campaign = ?1 AND status = 'done' AND verdict = 'pass' "
                  "AND stats IS NOT NULL AND name LIKE ?2 || '/%' ORDER BY name");
  for (const auto& [org, prefix] : runs) {
    q.reset();
    q.bind(1, campaign).bind(2, prefix);
    while (q.step()) {
      const std::string name = q.text(0);
      if (name.find('/', prefix.size() + 1) != std::string::npos) continue;  // a swept variant
      out[q.text(1)][org] = profile_of(config::json::parse(q.text(2)), org, store + ": run " + name);
    }
  }
  for (auto it = out.begin(); it != out.end();)
    it = it->second.size() == runs.size() ? std::next(it) : out.erase(it);
  if (out.empty())
    throw InputError("rf-age: " + store + ": no workload has a passing run for every organisation in campaign '" +
                     campaign + "'");
  return out;
}

// The profile with each SM's vb duties sorted hottest first within the
// fast (vbs 0-10) and the slow (11-15) class.
Profile hot_first(Profile p) {
  for (auto& d : p.duty) {
    std::sort(d.begin(), d.begin() + kFastVbs, std::greater<double>());
    std::sort(d.begin() + kFastVbs, d.end(), std::greater<double>());
  }
  return p;
}

using Chips = std::vector<std::shared_ptr<const reliability::RfDelay>>;

Chips build_chips(const std::string& ratio, uint64_t first, unsigned n, unsigned jobs) {
  const auto split = reliability::parse_sigma_ratio(ratio, "--ratios");
  Chips chips(n);
  std::atomic<unsigned> next{0}, done{0};
  auto work = [&] {
    for (unsigned i; (i = next++) < n;) {
      chips[i] = std::make_shared<const reliability::RfDelay>(first + i, split, reliability::paper_rf_geometry(),
                                                               reliability::Floorplan::kRfBlock,
                                                               reliability::RfDelay::kVdd, true);
      const unsigned d = ++done;
      if (d % 10 == 0 || d == n) std::cerr << "rf-age: " << ratio << ": " << d << "/" << n << " chips\n";
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < jobs; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  return chips;
}

struct Mean {
  double f0 = 0, f = 0, gb = 0, fmin = 1e9, fmax = 0;
  unsigned n = 0;
};

// Chip clock = mean over the SMs; one Mean over chips.
Mean age_all(const Chips& chips, const Profile& prof, Org org, const reliability::AgingParams& p) {
  Mean m;
  for (const auto& c : chips) {
    double f0 = 0, f = 0, gb = 0;
    for (unsigned s = 0; s < c->sms(); ++s) {
      const auto a = reliability::age_sm(c->sm(s), prof.duty.at(s), org, p);
      f0 += 1 / a.t0, f += a.f(), gb += a.guardband();
    }
    const double n = c->sms();
    m.f0 += f0 / n, m.f += f / n, m.gb += gb / n;
    m.fmin = std::min(m.fmin, f / n), m.fmax = std::max(m.fmax, f / n);
    ++m.n;
  }
  m.f0 /= m.n, m.f /= m.n, m.gb /= m.n;
  return m;
}

// Fig. 4's measure over the chips' SMs: the share of banks with a slow
// sub-bank under VL-SB's identity pairing and under RF-BRO's.
config::json slow_banks(const Chips& chips) {
  double sum = 0, lo = 1, hi = 0, bro = 0;
  unsigned sms = 0, distinct = 0;
  for (const auto& c : chips)
    for (unsigned s = 0; s < c->sms(); ++s) {
      const auto& d = c->sm(s);
      const double banks = double(d.slow.size() / 2);
      const unsigned slow = unsigned(std::count(d.slow.begin(), d.slow.end(), true));
      const double x = d.slow_banks() / banks;
      sum += x, lo = std::min(lo, x), hi = std::max(hi, x), ++sms;
      distinct += d.slow_banks() == slow;
      bro += ((slow + 1) / 2) / banks;
    }
  return {{"vl_sb", sum / sms}, {"vl_sb_min", lo}, {"vl_sb_max", hi}, {"vl_sb_all_distinct", double(distinct) / sms},
          {"rf_bro", bro / sms}, {"sms", sms}};
}

double baseline_mean(const Chips& chips, const Profiles& prof, const reliability::AgingParams& p) {
  double sum = 0;
  for (const auto& [wl, orgs] : prof) sum += age_all(chips, orgs.at(Org::kBaseline), Org::kBaseline, p).f;
  return sum / double(prof.size());
}

// Bisection on log Kv: the aged clock falls as Kv rises.
double fit_kv(const Chips& chips, const Profiles& prof, reliability::AgingParams p, double target) {
  double lo = std::log(1e-10), hi = std::log(1e-2);
  for (int i = 0; i < 40; ++i) {
    const double mid = (lo + hi) / 2;
    p.nbti.kv = std::exp(mid);
    const double f = baseline_mean(chips, prof, p);
    std::cerr << "rf-age: fit: Kv " << p.nbti.kv << " -> baseline " << f << "\n";
    (f > target ? lo : hi) = mid;
  }
  return std::exp((lo + hi) / 2);
}

}  // namespace

int cmd_rf_age(Args& a) {
  std::string store, campaign = "rf_variation", out_file;
  std::string runs_text = "baseline=base,pv_opt=pvopt,nbti_opt=ren", ratios_text = "1:4,1:1,4:1";
  unsigned chips = 100, jobs = std::max(1u, std::thread::hardware_concurrency());
  uint64_t first = 1000;
  reliability::AgingParams p;
  double fit_target = 0;
  bool always = false;
  auto number = [&](const std::string& opt) {
    const std::string v = a.optval(opt);
    try {
      size_t used = 0;
      const double x = std::stod(v, &used);
      if (used == v.size() && x > 0 && std::isfinite(x)) return x;
    } catch (const std::exception&) {
    }
    throw InputError("rf-age: " + opt + " '" + v + "' is not a positive number");
  };
  while (!a.done()) {
    const std::string opt = a.next_opt();
    if (opt == "-h" || opt == "--help") {
      std::cout << kRfAgeHelp;
      return 0;
    }
    if (opt == "--store") store = a.optval(opt);
    else if (opt == "--campaign") campaign = a.optval(opt);
    else if (opt == "--runs") runs_text = a.optval(opt);
    else if (opt == "--chips") chips = unsigned(parse_u64(a.optval(opt), opt));
    else if (opt == "--first-seed") first = parse_u64(a.optval(opt), opt);
    else if (opt == "--ratios") ratios_text = a.optval(opt);
    else if (opt == "--years") p.years = number(opt);
    else if (opt == "--epochs") p.epochs = unsigned(parse_u64(a.optval(opt), opt));
    else if (opt == "--kv") p.nbti.kv = number(opt);
    else if (opt == "--fit-kv") fit_target = number(opt);
    else if (opt == "--out") out_file = a.optval(opt);
    else if (opt == "--stress") {
      const std::string v = a.optval(opt);
      if (v != "access" && v != "always") throw InputError("rf-age: --stress must be access or always, got '" + v + "'");
      always = v == "always";
    } else if (opt == "--recovery") {
      const std::string v = a.optval(opt);
      if (v != "shift" && v != "literal")
        throw InputError("rf-age: --recovery must be shift or literal, got '" + v + "'");
      p.nbti.literal = v == "literal";
    }
    else if (opt == "-j") jobs = unsigned(parse_u64(a.optval(opt), opt));
    else a.unknown(opt);
  }
  if (store.empty()) throw InputError("rf-age: --store FILE is required (see `relgpu rf-age --help`)");
  if (chips == 0 || jobs == 0 || p.epochs == 0) throw InputError("rf-age: --chips, -j and --epochs must be >= 1");
  std::map<Org, std::string> runs;
  for (const std::string& item : split_list(runs_text)) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError("rf-age: --runs: '" + item + "' is not ORG=PREFIX");
    runs[parse_org(item.substr(0, eq))] = item.substr(eq + 1);
  }
  if (runs.count(Org::kBaseline) == 0)
    throw InputError("rf-age: --runs must name the baseline's runs (baseline=PREFIX)");
  const std::vector<std::string> ratios = split_list(ratios_text);
  for (const auto& r : ratios) reliability::parse_sigma_ratio(r, "--ratios");
  Profiles prof = load(store, campaign, runs);
  if (always)
    for (auto& [wl, orgs] : prof)
      for (auto& [org, pr] : orgs)
        for (auto& d : pr.duty) std::fill(d.begin(), d.end(), 1.0);
  const auto start = std::chrono::steady_clock::now();

  config::json j;
  j["store"] = store, j["campaign"] = campaign, j["chips"] = chips, j["first_seed"] = first;
  j["years"] = p.years, j["epochs"] = p.epochs, j["n"] = p.nbti.n, j["eta"] = p.nbti.eta;
  j["vdd"] = p.vdd;
  j["stress"] = always ? "always" : "access";
  j["recovery"] = p.nbti.literal ? "literal" : "shift";
  std::map<std::string, Chips> chip_sets;  // per sigma ratio
  if (fit_target > 0) {
    chip_sets["1:1"] = build_chips("1:1", first, chips, jobs);
    p.nbti.kv = fit_kv(chip_sets["1:1"], prof, p, fit_target);
    j["fit_target"] = fit_target;
  }
  j["kv"] = p.nbti.kv;
  for (const auto& ratio : ratios) {
    if (chip_sets.count(ratio) == 0) chip_sets[ratio] = build_chips(ratio, first, chips, jobs);
    const Chips& c = chip_sets.at(ratio);
    j["slow_banks"][ratio] = slow_banks(c);
    for (const auto& [wl, orgs] : prof) {
      auto& out = j["ratios"][ratio][wl];
      auto put = [&](const std::string& name, const Profile& pr, Org org) {
        const Mean m = age_all(c, pr, org, p);
        out[name] = {{"f0", m.f0}, {"f", m.f}, {"guardband", m.gb}, {"f_min", m.fmin}, {"f_max", m.fmax}};
      };
      for (const auto& [org, pr] : orgs) put(reliability::org_name(org), pr, org);
      // Ablations of NBTI-opt: the re-organisation alone (PV-opt's stress
      // profile, no renaming), and renaming as it means to work: the vbs'
      // measured duties sorted so the hottest go to the fastest of each class.
      if (orgs.count(Org::kPvOpt) && orgs.count(Org::kNbtiOpt)) {
        put("nbti_opt_reorg_only", orgs.at(Org::kPvOpt), Org::kNbtiOpt);
        put("nbti_opt_hot_first", hot_first(orgs.at(Org::kNbtiOpt)), Org::kNbtiOpt);
      }
    }
  }
  j["threads"] = jobs;
  j["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out_file.empty()) {
    std::cout << j.dump(1) << "\n";
  } else {
    std::ofstream o(out_file);
    o << j.dump(1) << "\n";
    if (!o) throw InputError("rf-age: cannot write " + out_file);
  }
  return 0;
}

}  // namespace relgpu::app
