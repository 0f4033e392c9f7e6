// empty_kernel: `--size` blocks of one warp that only EXIT, the kernel-level
// cost microbenchmark (launch.*): __global__ void empty() {} launched as
// empty<<<B, 32>>>(). Profiled on a GPU at several B, its cycles are about
// launch.kernel_start_cycles + (B - 1) x the block interval + one block +
// launch.kernel_drain_cycles, which pins the four launch.* keys.
#include "frontend/gen/workloads.h"

namespace lockstep::gen {

void generate_empty_kernel(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  Program p(o.arch);
  const uint32_t exit = p.exit();
  p.finalize();
  const uint64_t blocks = std::max<uint64_t>(1, o.size);
  if (blocks > UINT32_MAX) throw std::runtime_error("empty_kernel: --size " + std::to_string(blocks) +
                                                    " blocks is more than a grid's 2^32 - 1");
  KernelWriter kw(trace, LaunchSpec{"_Z11emptyKernelv", Dim3{uint32_t(blocks), 1, 1}, Dim3{32, 1, 1}, 0}, p);
  for (uint32_t b = 0; b < blocks; ++b) {
    kw.begin_block(Dim3{b, 0, 0});
    kw.warp(0).op(exit, kFullMask);
    kw.end_block();
  }
  kw.close();
}

}  // namespace lockstep::gen
