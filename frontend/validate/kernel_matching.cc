#include "frontend/validate/kernel_matching.h"

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <memory>

namespace lockstep::validate {
namespace {

std::string demangled(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

// Removes a bracketed group (open ... close, nested) that ends `s`, after trailing spaces.
void drop_trailing_group(std::string& s, char open, char close) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.empty() || s.back() != close) return;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == close) ++depth;
    if (s[i] == open && --depth == 0) {
      s.erase(i);
      return;
    }
  }
}

std::string count_text(size_t n, const char* side) { return std::to_string(n) + " " + side; }

}  // namespace

std::string base_kernel_name(const std::string& name) {
  std::string s = demangled(name);
  drop_trailing_group(s, '(', ')');
  drop_trailing_group(s, '<', '>');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  const size_t scope = s.rfind("::");
  if (scope != std::string::npos) s.erase(0, scope + 2);
  const size_t space = s.rfind(' ');
  if (space != std::string::npos) s.erase(0, space + 1);
  return s.empty() ? name : s;
}

KernelMatching match_kernels(const KernelSequence& hw, const KernelSequence& sim) {
  KernelMatching out;
  bool hw_named = false;
  for (const KernelCounters& k : hw.kernels) hw_named |= !k.name.empty();
  if (!hw_named) {
    out.by_name = false;
    const size_t n = std::min(hw.kernels.size(), sim.kernels.size());
    for (size_t i = 0; i < n; ++i) out.pairs.push_back({i, i});
    for (size_t i = n; i < hw.kernels.size(); ++i)
      out.unmatched.push_back("hardware kernel " + std::to_string(i + 1) + " (" + hw.kernels[i].where +
                              "): no simulated kernel at that launch position (" +
                              count_text(sim.kernels.size(), "simulated") + ")");
    for (size_t i = n; i < sim.kernels.size(); ++i)
      out.unmatched.push_back("simulated kernel '" + sim.kernels[i].name + "' (" + sim.kernels[i].where +
                              "): no hardware kernel at that launch position (" +
                              count_text(hw.kernels.size(), "hardware") + ")");
    return out;
  }
  std::map<std::string, std::vector<size_t>> hw_by_name, sim_by_name;
  for (size_t i = 0; i < hw.kernels.size(); ++i) hw_by_name[base_kernel_name(hw.kernels[i].name)].push_back(i);
  for (size_t i = 0; i < sim.kernels.size(); ++i) sim_by_name[base_kernel_name(sim.kernels[i].name)].push_back(i);
  auto count_of = [](const std::map<std::string, std::vector<size_t>>& m, const std::string& name) {
    const auto it = m.find(name);
    return it == m.end() ? size_t(0) : it->second.size();
  };
  // The ordinal of each kernel among those of its name on its side.
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < hw.kernels.size(); ++i) {
    const std::string base = base_kernel_name(hw.kernels[i].name);
    const size_t k = seen[base]++;
    const auto it = sim_by_name.find(base);
    if (it != sim_by_name.end() && k < it->second.size()) {
      out.pairs.push_back({i, it->second[k]});
      continue;
    }
    out.unmatched.push_back("hardware kernel '" + hw.kernels[i].name + "' (" + hw.kernels[i].where + "): launch " +
                            std::to_string(k + 1) + " of its name, the simulated runs have " +
                            count_text(count_of(sim_by_name, base), "of that name"));
  }
  for (const auto& [base, indices] : sim_by_name) {
    const size_t matched = count_of(hw_by_name, base);
    for (size_t k = matched; k < indices.size(); ++k)
      out.unmatched.push_back("simulated kernel '" + sim.kernels[indices[k]].name + "' (" +
                              sim.kernels[indices[k]].where + "): launch " + std::to_string(k + 1) +
                              " of its name, the hardware file has " + count_text(matched, "of that name"));
  }
  return out;
}

}  // namespace lockstep::validate
