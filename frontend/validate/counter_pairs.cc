#include "frontend/validate/counter_pairs.h"

namespace lockstep::validate {

const std::vector<CounterPair>& counter_pairs() {
  using M = ErrorMeasure;
  static const std::vector<CounterPair> pairs = {
      // Accel-Sim reads .avg in places; .max is Nsight Compute's "Elapsed Cycles".
      {kCyclesCounter, {"gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg"}, M::kMeanAbsolutePct},
      {"smsp__inst_executed.sum", {"smsp__inst_executed.sum"}, M::kMeanAbsolutePct},
      {"ipc", {}, M::kMeanAbsolutePct, true},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", {"sm__warps_active.avg.pct_of_peak_sustained_active"}},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"}},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
       {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"}},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"}},
      // lockstep's L2 sees only the SMs' requests: all of them come through the tex unit.
      {"lts__t_sectors_op_read.sum", {"lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_op_read.sum"}},
      {"lts__t_sectors_op_read_lookup_hit.sum",
       {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "lts__t_sectors_op_read_lookup_hit.sum"}},
      {"lts__t_sectors_op_write.sum", {"lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_sectors_op_write.sum"}},
      {"lts__t_sectors_op_write_lookup_hit.sum",
       {"lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum", "lts__t_sectors_op_write_lookup_hit.sum"}},
      {"dram__sectors_read.sum", {"dram__sectors_read.sum"}},
      {"dram__sectors_write.sum", {"dram__sectors_write.sum"}},
      // lockstep counts the conflicts of shared loads and stores together.
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
       {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"}},
  };
  return pairs;
}

std::vector<std::string> hardware_metrics() {
  std::vector<std::string> out;
  for (const CounterPair& p : counter_pairs()) out.insert(out.end(), p.hardware.begin(), p.hardware.end());
  return out;
}

std::optional<double> hardware_value(const CounterPair& pair, const KernelCounters& kernel) {
  if (pair.derived_ipc) {
    const auto insts = hardware_value(counter_pairs()[1], kernel), cycles = hardware_value(counter_pairs()[0], kernel);
    if (!insts || !cycles || *cycles <= 0) return std::nullopt;
    return *insts / *cycles;
  }
  for (const std::string& metric : pair.hardware)
    if (const auto v = kernel.get(metric)) return v;
  return std::nullopt;
}

}  // namespace lockstep::validate
