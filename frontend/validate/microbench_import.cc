#include "frontend/validate/microbench_import.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>

namespace lockstep::validate {
namespace {

struct Option {
  std::string name, value;  // "-gpgpu_l1_latency", "33"
  size_t line = 0;
  std::string source() const { return name + " " + value; }
};

class BadValue : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    const size_t next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (next == std::string::npos) return out;
    pos = next + 1;
  }
}

uint64_t whole(const std::string& text, const std::string& what) {
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw BadValue(what + ": '" + text + "' is not a whole number");
  return v;
}

std::string number(const std::string& text, const std::string& what) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !(v > 0))
    throw BadValue(what + ": '" + text + "' is not a positive number");
  return text;
}

// The mapping: everything one option needs, and what it has already read.
class Mapper {
 public:
  Mapper(const std::map<std::string, Option>& options, MicrobenchImport& out) : options_(options), out_(out) {}

  const Option* find(const std::string& name) const {
    const auto it = options_.find(name);
    return it == options_.end() ? nullptr : &it->second;
  }
  void set(const Option& o, const std::string& key, const std::string& value) { out_.overlay.set(key, value, o.source()); }

  // GPGPU-Sim's cache spec "S:sets:line:ways,policy,A:mshr:merge,miss_queue:fifo,port": the geometry, MSHRs and miss queue.
  void cache(const Option& o, const std::string& block) {
    const std::vector<std::string> parts = split(o.value, ',');
    const std::vector<std::string> geometry = split(parts[0], ':');
    if (geometry.size() != 4 || parts.size() < 4)
      throw BadValue(o.name + ": '" + o.value + "' is not a cache spec (S:sets:line:ways,...,A:mshr:merge,queue:...)");
    set(o, block + ".sets", std::to_string(whole(geometry[1], o.name + " sets")));
    set(o, block + ".line_bytes", std::to_string(whole(geometry[2], o.name + " line size")));
    set(o, block + ".ways", std::to_string(whole(geometry[3], o.name + " ways")));
    const std::vector<std::string> mshr = split(parts[2], ':');
    if (mshr.size() != 3) throw BadValue(o.name + ": '" + parts[2] + "' is not an MSHR spec (A:entries:merge)");
    set(o, block + ".mshr_entries", std::to_string(whole(mshr[1], o.name + " MSHR entries")));
    set(o, block + ".mshr_max_merge", std::to_string(whole(mshr[2], o.name + " MSHR merge")));
    set(o, block + ".miss_queue", std::to_string(whole(split(parts[3], ':')[0], o.name + " miss queue")));
  }

  // Units per SM -> per sub-core (GPGPU-Sim counts them per SM).
  bool units(const Option& o, const std::string& unit) {
    const Option* sched = find("-gpgpu_num_sched_per_core");
    const uint64_t n = whole(o.value, o.name);
    if (!sched) {
      out_.unmapped.push_back(o.source() + " (line " + std::to_string(o.line) +
                              "): lockstep counts units per sub-core; needs -gpgpu_num_sched_per_core");
      return false;
    }
    const uint64_t subcores = whole(sched->value, sched->name);
    if (subcores == 0 || n % subcores) {
      out_.unmapped.push_back(o.source() + " (line " + std::to_string(o.line) + "): not a multiple of the " +
                              std::to_string(subcores) + " sub-cores");
      return false;
    }
    set(o, "unit." + unit + ".per_subcore", std::to_string(n / subcores));
    return true;
  }

 private:
  const std::map<std::string, Option>& options_;
  MicrobenchImport& out_;
};

using Rule = std::function<bool(Mapper&, const Option&)>;

Rule one_key(const std::string& key) {
  return [key](Mapper& m, const Option& o) {
    m.set(o, key, std::to_string(whole(o.value, o.name)));
    return true;
  };
}
// Bytes -> KB (the key is in KB).
Rule kilobytes(const std::string& key) {
  return [key](Mapper& m, const Option& o) {
    const uint64_t bytes = whole(o.value, o.name);
    if (bytes % 1024) throw BadValue(o.name + ": " + o.value + " bytes is not a whole number of KB");
    m.set(o, key, std::to_string(bytes / 1024));
    return true;
  };
}
Rule latency_initiation(const std::string& unit) {
  return [unit](Mapper& m, const Option& o) {
    const std::vector<std::string> v = split(o.value, ',');
    if (v.size() != 2) throw BadValue(o.name + ": '" + o.value + "' is not latency,initiation");
    m.set(o, "unit." + unit + ".latency", std::to_string(whole(v[0], o.name + " latency")));
    m.set(o, "unit." + unit + ".initiation", std::to_string(whole(v[1], o.name + " initiation")));
    return true;
  };
}

// GPGPU-Sim option -> lockstep keys. Options not here are listed as not mapped.
const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> table = {
      {"-gpgpu_n_clusters",
       [](Mapper& m, const Option& o) {
         const Option* per = m.find("-gpgpu_n_cores_per_cluster");
         const uint64_t cores = per ? whole(per->value, per->name) : 1;
         m.set(o, "gpu.sms", std::to_string(whole(o.value, o.name) * cores));
         return true;
       }},
      {"-gpgpu_n_cores_per_cluster", one_key("gpu.sms_per_cluster")},
      {"-gpgpu_kernel_launch_latency", one_key("gpu.kernel_launch_latency")},
      {"-gpgpu_clock_domains",
       [](Mapper& m, const Option& o) {
         const std::vector<std::string> v = split(o.value, ':');
         if (v.size() != 4) throw BadValue(o.name + ": '" + o.value + "' is not core:icnt:l2:dram MHz");
         const char* keys[] = {"clock.core_mhz", "clock.icnt_mhz", "clock.l2_mhz", "clock.dram_mhz"};
         for (size_t i = 0; i < 4; ++i) m.set(o, keys[i], number(v[i], o.name));
         return true;
       }},
      {"-gpgpu_shader_registers", one_key("sm.registers")},
      {"-gpgpu_registers_per_block", one_key("sm.max_regs_per_block")},
      {"-gpgpu_shader_core_pipeline",
       [](Mapper& m, const Option& o) {
         const std::vector<std::string> v = split(o.value, ':');
         const uint64_t threads = whole(v[0], o.name + " threads");
         m.set(o, "sm.max_threads", std::to_string(threads));
         m.set(o, "sm.max_warps", std::to_string((threads + 31) / 32));
         return true;
       }},
      {"-gpgpu_shader_cta", one_key("sm.max_blocks")},
      {"-gpgpu_num_sched_per_core", one_key("sm.subcores")},
      {"-gpgpu_scheduler",
       [](Mapper& m, const Option& o) {
         const std::string policy = o.value.substr(0, o.value.find(':'));
         if (policy != "lrr" && policy != "gto" && policy != "two_level_active")
           throw BadValue(o.name + ": '" + o.value + "' is not lrr, gto or two_level_active:...");
         m.set(o, "sm.scheduler", policy == "two_level_active" ? "two_level" : policy);
         return true;
       }},
      {"-gpgpu_l1_latency", one_key("l1d.hit_latency")},
      {"-gpgpu_l1_banks", one_key("l1d.banks")},
      {"-gpgpu_smem_latency", one_key("sm.shared_latency")},
      {"-gpgpu_shmem_num_banks", one_key("sm.shared_banks")},
      {"-gpgpu_unified_l1d_size", one_key("sm.unified_l1_shared_kb")},
      {"-gpgpu_shmem_size", kilobytes("sm.max_shared_per_sm_kb")},
      {"-gpgpu_shmem_per_block", kilobytes("sm.max_shared_per_block_kb")},
      {"-gpgpu_cache:dl1", [](Mapper& m, const Option& o) { m.cache(o, "l1d"); return true; }},
      {"-gpgpu_cache:dl2", [](Mapper& m, const Option& o) { m.cache(o, "l2"); return true; }},
      {"-gpgpu_l2_rop_latency", one_key("l2.latency")},
      {"-gpgpu_n_sub_partition_per_mchannel", one_key("l2.subpartitions")},
      {"-gpgpu_memory_partition_indexing",
       [](Mapper& m, const Option& o) {
         const uint64_t v = whole(o.value, o.name);
         if (v > 2) return false;  // PAE, random, custom: no lockstep equivalent
         m.set(o, "l2.partition_hash", v == 0 ? "linear" : v == 1 ? "xor" : "ipoly");
         return true;
       }},
      {"-icnt_flit_size", one_key("icnt.flit_bytes")},
      {"-gpgpu_n_mem", one_key("dram.channels")},
      {"-dram_latency", one_key("dram.extra_latency")},
      {"-gpgpu_dram_buswidth",
       [](Mapper& m, const Option& o) {
         const Option* per = m.find("-gpgpu_n_mem_per_ctrlr");
         const uint64_t chips = per ? whole(per->value, per->name) : 1;
         m.set(o, "dram.bus_width_bits", std::to_string(whole(o.value, o.name) * 8 * chips));
         return true;
       }},
      {"-gpgpu_n_mem_per_ctrlr", [](Mapper&, const Option&) { return true; }},  // read by -gpgpu_dram_buswidth
      {"-gpgpu_dram_burst_length", one_key("dram.burst_length")},
      {"-dram_data_command_freq_ratio", one_key("dram.data_rate")},
      {"-gpgpu_dram_timing_opt",
       [](Mapper& m, const Option& o) {
         static const std::map<std::string, std::string> keys = {
             {"nbk", "dram.banks"}, {"nbkgrp", "dram.bank_groups"}, {"CCD", "dram.tCCD"}, {"CCDL", "dram.tCCDL"},
             {"RRD", "dram.tRRD"},  {"RCD", "dram.tRCD"},           {"RAS", "dram.tRAS"}, {"RP", "dram.tRP"},
             {"RC", "dram.tRC"},    {"CL", "dram.tCL"},             {"WL", "dram.tWL"},   {"CDLR", "dram.tWTR"},
             {"WR", "dram.tWR"},    {"RTPL", "dram.tRTPL"}};
         std::string value = o.value;
         if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
         for (const std::string& item : split(value, ':')) {
           const size_t eq = item.find('=');
           if (eq == std::string::npos) throw BadValue(o.name + ": '" + item + "' is not NAME=cycles");
           const auto key = keys.find(item.substr(0, eq));
           const uint64_t cycles = whole(item.substr(eq + 1), o.name + " " + item.substr(0, eq));
           if (key != keys.end()) m.set(o, key->second, std::to_string(cycles));
         }
         return true;
       }},
      {"-trace_opcode_latency_initiation_sp", latency_initiation("SP")},
      {"-trace_opcode_latency_initiation_int", latency_initiation("INT")},
      {"-trace_opcode_latency_initiation_dp", latency_initiation("DP")},
      {"-trace_opcode_latency_initiation_sfu", latency_initiation("SFU")},
      {"-trace_opcode_latency_initiation_tensor", latency_initiation("TENSOR")},
      {"-gpgpu_num_sp_units", [](Mapper& m, const Option& o) { return m.units(o, "SP"); }},
      {"-gpgpu_num_int_units", [](Mapper& m, const Option& o) { return m.units(o, "INT"); }},
      {"-gpgpu_num_dp_units", [](Mapper& m, const Option& o) { return m.units(o, "DP"); }},
      {"-gpgpu_num_sfu_units", [](Mapper& m, const Option& o) { return m.units(o, "SFU"); }},
      {"-gpgpu_num_tensor_core_units", [](Mapper& m, const Option& o) { return m.units(o, "TENSOR"); }},
  };
  return table;
}

}  // namespace

MicrobenchImport import_microbenchmarks(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  MicrobenchImport out;
  out.overlay.header.push_back("lockstep config overlay from GPU microbenchmark results (lockstep tune import " + path + ")");
  // Options in file order; a later line of the same option replaces the earlier one.
  std::vector<std::string> order;
  std::map<std::string, Option> options;
  std::string raw;
  for (size_t line_no = 1; std::getline(in, raw); ++line_no) {
    const std::string line = trim(raw);
    const std::string where = path + " line " + std::to_string(line_no);
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '-') {
      const size_t space = line.find_first_of(" \t");
      if (space == std::string::npos) {
        out.errors.push_back(where + ": " + line + " has no value");
        continue;
      }
      Option o{line.substr(0, space), trim(line.substr(space)), line_no};
      if (!options.count(o.name)) order.push_back(o.name);
      options[o.name] = o;
    } else if (line.find(" = ") != std::string::npos) {
      out.overlay.header.push_back(line);  // "Device Name = NVIDIA ...": kept as a comment
    } else {
      out.errors.push_back(where + ": not an option line ('-name value') or 'Name = value': '" + line + "'");
    }
  }
  if (in.bad()) throw std::runtime_error(path + ": read failed");
  Mapper mapper(options, out);
  for (const std::string& name : order) {
    const Option& o = options[name];
    const auto rule = rules().find(name);
    if (rule == rules().end()) {
      out.unmapped.push_back(o.source() + " (line " + std::to_string(o.line) + "): no lockstep config key");
      continue;
    }
    try {
      if (rule->second(mapper, o))
        ++out.mapped;
      else if (out.unmapped.empty() || out.unmapped.back().rfind(o.source(), 0) != 0)
        out.unmapped.push_back(o.source() + " (line " + std::to_string(o.line) + "): no lockstep equivalent of this value");
    } catch (const BadValue& e) {
      out.errors.push_back(path + " line " + std::to_string(o.line) + ": " + e.what());
    }
  }
  // In line order ("FILE line N: ..."): the value errors come after the syntax ones above.
  std::stable_sort(out.errors.begin(), out.errors.end(), [&](const std::string& a, const std::string& b) {
    auto line_of = [&](const std::string& e) { return std::stoull(e.substr(path.size() + 6)); };
    return line_of(a) < line_of(b);
  });
  return out;
}

}  // namespace lockstep::validate
