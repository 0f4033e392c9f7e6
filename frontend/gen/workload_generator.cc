#include "frontend/gen/workload_generator.h"

#include <cctype>
#include <stdexcept>
#include <system_error>

#include "frontend/gen/trace_builder.h"
#include "frontend/gen/workloads.h"
#include "frontend/io/output_directory.h"

namespace lockstep {
namespace {

constexpr uint64_t kMaxSize = 10'000'000'000'000ull;  // 1e13 warp instructions
constexpr uint32_t kMaxSms = 4096;

const gen::Workload* find_workload(std::string_view name) {
  for (const gen::Workload& w : gen::workloads())
    if (name == w.name) return &w;
  return nullptr;
}

std::string known_workloads() {
  std::string s;
  for (const gen::Workload& w : gen::workloads()) s += (s.empty() ? "" : ", ") + std::string(w.name);
  return s;
}

bool is_trace_file(const std::string& name) {
  return name == "kernelslist.g" ||
         (name.starts_with("kernel-") && name.ends_with(".traceg") && name.size() > 14 &&
          name.find_first_not_of("0123456789", 7) == name.size() - 7);
}

// An existing output directory may be replaced only if it is empty or holds
// nothing but a trace's own files (a previous run's output).
void check_replaceable(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !is_trace_file(name))
      throw std::runtime_error("refusing to replace " + dir.string() + ": it holds " + name +
                               ", which is not part of a trace");
  }
}

}  // namespace

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const gen::Workload& w : gen::workloads())
    if (!w.microbenchmark) names.emplace_back(w.name);
  return names;
}

std::vector<std::string> microbenchmark_names() {
  std::vector<std::string> names;
  for (const gen::Workload& w : gen::workloads())
    if (w.microbenchmark) names.emplace_back(w.name);
  return names;
}

std::string workload_summary(std::string_view name) {
  const gen::Workload* w = find_workload(name);
  return w ? w->summary : "";
}

uint64_t parse_size(std::string_view text) {
  const auto bad = [&](const char* why) {
    return std::runtime_error("bad size '" + std::string(text) + "': " + why);
  };
  std::string_view s = text;
  uint64_t mult = 1;
  if (!s.empty()) {
    switch (std::toupper(static_cast<unsigned char>(s.back()))) {
      case 'K': mult = 1'000; break;
      case 'M': mult = 1'000'000; break;
      case 'G': mult = 1'000'000'000; break;
    }
    if (mult != 1) s.remove_suffix(1);
  }
  const size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (whole.empty() && frac.empty()) throw bad("expected a number with an optional K, M or G suffix");
  for (std::string_view part : {whole, frac})
    for (char c : part)
      if (c < '0' || c > '9') throw bad("expected a number with an optional K, M or G suffix");
  if (dot != std::string_view::npos && frac.empty()) throw bad("expected digits after '.'");
  uint64_t value = 0;
  for (char c : whole) {
    if (value > kMaxSize) throw bad("too large");
    value = value * 10 + uint64_t(c - '0');
  }
  if (value > kMaxSize / mult) throw bad("too large");
  value *= mult;
  // Fractional digits, e.g. 1.5M; digits finer than one instruction are dropped.
  uint64_t scale = mult;
  for (char c : frac) {
    scale /= 10;
    value += uint64_t(c - '0') * scale;
  }
  if (value == 0) throw bad("must be at least 1");
  if (value > kMaxSize) throw bad("too large");
  return value;
}

uint32_t parse_arch(std::string_view text) {
  std::string_view s = text;
  if (s.starts_with("sm_")) s.remove_prefix(3);
  else if (s.starts_with("sm")) s.remove_prefix(2);
  if (s == "70") return 70;
  if (s == "80") return 80;
  throw std::runtime_error("unknown arch '" + std::string(text) + "' (expected sm70 or sm80)");
}

GenSummary generate_trace(const GenOptions& options, const std::filesystem::path& dir) {
  const gen::Workload* workload = find_workload(options.workload);
  if (!workload)
    throw std::runtime_error("unknown workload '" + options.workload + "' (known: " + known_workloads() + ")");
  if (options.size < 1 || options.size > kMaxSize)
    throw std::runtime_error("size " + std::to_string(options.size) + " is out of range (1 .. 1e13)");
  if (options.sms < 1 || options.sms > kMaxSms)
    throw std::runtime_error("sms " + std::to_string(options.sms) + " is out of range (1 .. 4096)");
  if (options.arch != 70 && options.arch != 80)
    throw std::runtime_error("arch " + std::to_string(options.arch) + " is not supported (70 or 80)");

  OutputDirectory out(dir.string(), check_replaceable);
  gen::TraceBuilder trace(options, out.temp());
  workload->generate(trace);
  trace.finish();
  out.commit();
  return trace.summary();
}

void check_gen_output(const std::filesystem::path& dir) { OutputDirectory::resolve(dir.string(), check_replaceable); }

}  // namespace lockstep
