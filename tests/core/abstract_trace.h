#pragma once
// Small Accel-Sim text traces (tracer version 3, binary version 70) for the
// abstract model's tests: each warp a list of instruction lines
// "PC MASK NDST DSTS OPCODE NSRC SRCS WIDTH [ADDRESSES]".
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/test_paths.h"

namespace lockstep::test {

using WarpLines = std::vector<std::string>;
using BlockLines = std::vector<WarpLines>;

inline std::string hex_pc(uint32_t pc) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04x", pc);
  return buf;
}

// Writes kernel-1.traceg and kernelslist.g into `dir`: `blocks` on a grid (blocks.size(),1,1).
inline void write_abstract_kernel(const std::filesystem::path& dir, const std::vector<BlockLines>& blocks,
                                  uint32_t threads_per_block) {
  std::ofstream out(dir / "kernel-1.traceg");
  out << "-kernel name = abstract_test\n-kernel id = 1\n-grid dim = (" << blocks.size() << ",1,1)\n-block dim = ("
      << threads_per_block << ",1,1)\n-shmem = 4096\n-nregs = 32\n-binary version = 70\n-cuda stream id = 0\n"
      << "-accelsim tracer version = 3\n\n";
  for (size_t b = 0; b < blocks.size(); ++b) {
    out << "#BEGIN_TB\nthread block = " << b << ",0,0\n";
    for (size_t w = 0; w < blocks[b].size(); ++w) {
      out << "warp = " << w << "\ninsts = " << blocks[b][w].size() << "\n";
      for (const std::string& line : blocks[b][w]) out << line << "\n";
    }
    out << "#END_TB\n";
  }
  std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\n";
}

}  // namespace lockstep::test
