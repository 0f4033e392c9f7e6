#pragma once
// The option parsing every subcommand shares: its options plus one positional
// argument, --help printing the options.
#include <boost/program_options.hpp>
#include <iostream>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "frontend/cli/commands.h"
#include "frontend/convert/open_trace.h"
#include "frontend/sweep/process.h"
#include "frontend/trace/version.h"
#include "configs/spec/gpu_config.h"
#include "parallel/simulation.h"

namespace lockstep::cli {

// Parses `args` into `opts` and the positional arguments, named `name`
// (nullptr: the command takes none), at most `count` of them (-1: any number)
// into `positional`. Every command also takes --version. Returns false after
// printing the options (--help) or the version (--version).
inline bool parse_command_line_into(const Args& args, const boost::program_options::options_description& opts,
                                    const char* name, boost::program_options::value_semantic* positional, int count) {
  namespace po = boost::program_options;
  po::options_description common;
  common.add_options()("version", "print the lockstep version");
  po::options_description hidden;
  if (name) hidden.add_options()(name, positional);
  po::options_description all;
  all.add(opts).add(common).add(hidden);
  po::positional_options_description pos;
  if (name) pos.add(name, count);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\n" << common << "\n";
    return false;
  }
  if (vm.count("version")) {
    std::cout << "lockstep " << kVersion << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}
inline bool parse_command_line(const Args& args, const boost::program_options::options_description& opts,
                               const char* name, std::string& positional) {
  return parse_command_line_into(args, opts, name, boost::program_options::value(&positional), 1);
}
inline bool parse_command_line(const Args& args, const boost::program_options::options_description& opts,
                               const char* name, std::vector<std::string>& positional) {
  return parse_command_line_into(args, opts, name, boost::program_options::value(&positional), -1);
}
inline bool parse_command_line(const Args& args, const boost::program_options::options_description& opts) {
  return parse_command_line_into(args, opts, nullptr, nullptr, 0);
}

// The command as typed, for the record: words joined by spaces, each quoted
// for a POSIX shell where it needs it.
inline std::string shell_command_line(const std::string& command, const Args& args) {
  return args.empty() ? command : command + ' ' + sweep::shell_line(args);
}

// A whole number from `min` to `max` given to option `name`: digits only, so
// "-1" (which boost's unsigned parsing wraps to 4294967295), "1e3", "" or a
// value past `max` is a usage error naming the option.
inline uint64_t parse_whole_number(const std::string& name, const std::string& text, uint64_t min, uint64_t max) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  const bool digits = !text.empty() && text[0] >= '0' && text[0] <= '9';
  if (!digits || ec != std::errc() || ptr != end || v < min || v > max)
    throw boost::program_options::error("--" + name + " " + text + ": expected a whole number from " +
                                        std::to_string(min) + " to " + std::to_string(max));
  return v;
}
// The option value of a whole number `*target` within [min, max] (parse_whole_number).
template <class T>
boost::program_options::typed_value<std::string>* whole_number(const std::string& name, T* target, uint64_t min,
                                                               uint64_t max) {
  return boost::program_options::value<std::string>()
      ->default_value(std::to_string(*target))
      ->notifier([=](const std::string& text) { *target = T(parse_whole_number(name, text, min, max)); });
}
inline constexpr uint64_t kMaxThreads = 1024;  // --threads, --jobs

// The shipped config of the GPU generation a trace was recorded on.
inline std::string default_gpu_for(uint32_t binary_version) {
  switch (binary_version / 10) {
    case 6: return "GTX1080";
    case 7: return binary_version >= 75 ? "RTX2060" : "QV100";
    case 8: return binary_version >= 86 ? "RTX3070" : "A100";
    case 9: return "H100";
    default: return "QV100";
  }
}

inline constexpr const char* kAllowPartialHelp =
    "read a trace that is not whole (blocks or warps missing, a warp without EXIT, a block twice) with a warning "
    "instead of an error; the findings are recorded";
inline constexpr const char* kConfigHelp =
    "GPU config file; repeatable, and after --gpu an overlay whose keys replace the GPU's (e.g. "
    "configs/presets/uniform-unit.cfg)";

inline PartialTraces partial_policy(bool allow_partial) {
  return allow_partial ? PartialTraces::kAllow : PartialTraces::kReject;
}

// "1,2,4" -> {1, 2, 4}; "seq,para1" -> {"seq", "para1"}.
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    if (comma > pos) out.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}
inline std::vector<uint32_t> parse_thread_list(const std::string& text, const std::string& name = "threads") {
  std::vector<uint32_t> out;
  for (const std::string& item : split_list(text)) out.push_back(uint32_t(parse_whole_number(name, item, 1, kMaxThreads)));
  if (out.empty()) throw boost::program_options::error("--" + name + ": empty list");
  return out;
}

// The options every command that simulates a trace takes beside its own:
// which GPU, config overrides, the kernels, the memory model and a cycle cap.
struct SimulationInputs {
  std::string gpu, kernels, cache_control = "none";
  std::vector<std::string> config_files;
  std::vector<std::string> sets;
  bool perfect_memory = false, no_fast_forward = false, pin = false, allow_partial = false, no_memcpy_warm = false;
  uint64_t max_cycles = 0;

  void add_to(boost::program_options::options_description& opts) {
    namespace po = boost::program_options;
    opts.add_options()("gpu", po::value(&gpu), "GPU config by name")("config", po::value(&config_files)->composing(),
                                                                      kConfigHelp)(
        "set", po::value(&sets)->composing(), "override a config key (repeatable)")(
        "kernels", po::value(&kernels), "simulate only these kernel ids")(
        "perfect-memory", po::bool_switch(&perfect_memory), "no memory system (fixed latency)")(
        "max-cycles", whole_number("max-cycles", &max_cycles, 0, UINT64_MAX), "stop each run after this many cycles")(
        "no-fast-forward", po::bool_switch(&no_fast_forward), "simulate every cycle (same results)")(
        "no-memcpy-warm", po::bool_switch(&no_memcpy_warm), "start with cold caches (MemcpyHtoD does not fill the L2)")(
        "cache-control", po::value(&cache_control)->default_value("none"),
        "none (caches kept across kernels) or all (flushed before each kernel, as Nsight Compute's default)")(
        "pin", po::bool_switch(&pin), "pin simulation thread i to CPU i")(
        "allow-partial", po::bool_switch(&allow_partial), kAllowPartialHelp);
  }
  PartialTraces partial() const { return partial_policy(allow_partial); }
  // The trace, for one of the command's runs (no warnings: runs repeat).
  std::unique_ptr<TraceSource> open(const std::string& input) const { return open_trace(input, nullptr, partial()); }
  // Options common to every run of the command (no warnings: runs repeat).
  RunOptions options() const {
    RunOptions o;
    o.memory_model = perfect_memory ? "perfect" : "cycle";
    o.max_cycles = max_cycles;
    o.engine.fast_forward = !no_fast_forward;
    o.memcpy_warms_l2 = !no_memcpy_warm;
    o.cache_control = parse_cache_control(cache_control);
    o.engine.pin_threads = pin;
    o.warn = nullptr;
    if (!kernels.empty()) o.kernel_ids = parse_kernel_list(kernels);
    return o;
  }
  // The GPU: --config, else --gpu, else the shipped config of the trace's architecture.
  GpuSpec spec(const std::string& input) const {
    std::string which = gpu;
    if (which.empty() && config_files.empty()) which = default_gpu_for(open(input)->manifest().kernels.at(0).binary_version);
    return load_gpu_spec_layered(which, config_files, sets);
  }
};

}  // namespace lockstep::cli
