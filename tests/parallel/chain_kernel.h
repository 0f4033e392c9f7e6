#pragma once
// A small Accel-Sim text kernel for the dispatcher and overlap tests.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace lockstep::test {

// A kernel of `blocks` one-warp blocks, each a chain of `insts` dependent FFMAs and an EXIT.
inline void write_chain_kernel(const std::filesystem::path& file, uint32_t id, uint32_t stream, uint32_t blocks = 1,
                               int insts = 100) {
  std::ofstream out(file);
  out << "-kernel name = chain" << id << "\n-kernel id = " << id << "\n-grid dim = (" << blocks
      << ",1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 16\n-binary version = 70\n-cuda stream id = " << stream
      << "\n-accelsim tracer version = 3\n\n";
  for (uint32_t b = 0; b < blocks; ++b) {
    out << "#BEGIN_TB\nthread block = " << b << ",0,0\nwarp = 0\ninsts = " << insts + 1 << "\n";
    for (int i = 0; i < insts; ++i) {
      char line[64];
      std::snprintf(line, sizeof line, "%04x ffffffff 1 R1 FFMA 2 R1 R2 0\n", i * 16);
      out << line;
    }
    char exit[64];
    std::snprintf(exit, sizeof exit, "%04x ffffffff 0 EXIT 0 0\n", insts * 16);
    out << exit << "#END_TB\n";
  }
}

}  // namespace lockstep::test
