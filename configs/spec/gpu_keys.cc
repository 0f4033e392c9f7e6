// The keys of [gpu] and [isa] (GpuSpec's own fields, gpu_spec.h): each key's
// name, description and field, in the order a dump prints them. The one place
// these keys are described.
#include "configs/spec/spec_keys.h"

#include <string>
#include <utility>
#include <vector>

#include "configs/spec/config_schema.h"

namespace lockstep::config {

void register_gpu_keys(ConfigSchema& s) {
  s.field("gpu.name", member(&GpuSpec::name), "short name of the GPU; --gpu NAME finds configs/gpus/NAME.cfg");
  s.field("gpu.description", member(&GpuSpec::description), "one line shown by lockstep config --list");
  s.field("gpu.sms", member(&GpuSpec::sms), "streaming multiprocessors");
  s.field("gpu.sms_per_cluster", member(&GpuSpec::sms_per_cluster),
          "SMs that share one interconnect port (a SIMT cluster); must divide gpu.sms");
  s.field("gpu.kernel_launch_latency", member(&GpuSpec::kernel_launch_latency),
          "idle core cycles between the moment a kernel could start and its first thread block");
  s.field("gpu.concurrent_kernels", member(&GpuSpec::concurrent_kernels),
          "kernels on different CUDA streams may overlap (an SM still holds one kernel at a time)");
  s.field("gpu.watchdog_cycles", member(&GpuSpec::watchdog_cycles),
          "core cycles without progress before the run stops with a deadlock report (0: never)");
}

void register_isa_keys(ConfigSchema& s) {
  ConfigKey extra;
  extra.name = "isa.extra";
  extra.type = "OPC:UNIT[:KIND] list";
  extra.description = "opcode-to-unit lines added to the ISA def (repeatable; an empty value clears)";
  extra.repeatable = true;
  extra.set = [](GpuSpec& g, std::string_view text) {
    const std::vector<std::string> items = split_list(text);
    if (items.empty()) g.isa_extra.clear();
    for (const std::string& item : items) g.isa_extra.push_back(item);
  };
  extra.get = [](const GpuSpec& g) {
    std::string out;
    for (const std::string& line : g.isa_extra) {
      if (!out.empty()) out += ",";
      out += line;
    }
    return out;
  };
  s.add(std::move(extra));
}

}  // namespace lockstep::config
