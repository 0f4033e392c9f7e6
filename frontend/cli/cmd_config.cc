// lockstep config [--gpu NAME] [--config FILE]... [--set k=v]... [--dump | --list | --keys] [-o FILE]
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/io/output_file.h"
#include "configs/spec/gpu_config.h"

namespace po = boost::program_options;

namespace lockstep::cli {

int cmd_config(const Args& args) {
  std::string gpu, output = "-";
  std::vector<std::string> sets, config_files;
  bool dump = false, list = false, keys = false;
  po::options_description opts(
      "usage: lockstep config [--gpu NAME] [--config FILE]... [--set KEY=VALUE]... [--dump | --list | --keys] [-o FILE]\n"
      "Loads and validates a GPU config; without --dump prints a one-line summary.\noptions");
  opts.add_options()("help,h", "show this help")("gpu", po::value(&gpu),
                                                 "shipped GPU config by name (configs/gpus/NAME.cfg, any case)")(
      "config", po::value(&config_files)->composing(), kConfigHelp)(
      "set", po::value(&sets)->composing(), "override a config key: --set sm.max_warps=48 (repeatable)")(
      "dump", po::bool_switch(&dump), "print the effective config: every key, its value and description")(
      "output,o", po::value(&output)->default_value(output),
      "write the --dump or --keys text to this file instead of standard output (nothing is written on an error)")(
      "list", po::bool_switch(&list), "list the shipped GPU configs with their descriptions")(
      "keys", po::bool_switch(&keys), "print a Markdown table of every config key");
  if (!parse_command_line(args, opts)) return 0;
  if (output != "-") resolve_output(output);

  if (keys) {
    write_output_file(output, config_keys_markdown());
    return 0;
  }
  if (list) {
    int status = 0;
    std::printf("GPU configs in %s:\n", (config_dir() / "gpus").string().c_str());
    for (const std::filesystem::path& path : shipped_gpu_configs()) {
      try {
        const GpuSpec spec = load_gpu_spec(path.string());
        std::printf("  %-10s %s\n", path.stem().string().c_str(), spec.description.c_str());
      } catch (const std::exception& e) {
        std::printf("  %-10s (invalid: %s)\n", path.stem().string().c_str(), e.what());
        status = 1;
      }
    }
    return status;
  }
  if (gpu.empty() && config_files.empty())
    throw po::error("give --gpu NAME or --config FILE (lockstep config --list shows the shipped GPUs)");

  const GpuSpec spec = load_gpu_spec_layered(gpu, config_files, sets);  // validated before anything is written
  if (dump)
    write_output_file(output, dump_gpu_spec(spec));
  else
    std::printf("%s\n", gpu_spec_summary(spec).c_str());
  return 0;
}

}  // namespace lockstep::cli
