// Writes a .tracez seed for fuzz_tracez from a grouped .traceg (the layout in
// frontend/text/tracez_file.h), sub-chunks of 64 lines, with a dictionary.
// Usage: make_tracez_seed IN.traceg OUT.tracez
#include <fstream>
#include <iostream>
#include <sstream>

#include "tests/frontend/tracez_writer.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: make_tracez_seed IN.traceg OUT.tracez\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const lockstep::test::TracezText split = lockstep::test::split_traceg(text.str());
  std::string dict;
  for (const auto& b : split.blocks)
    for (const auto& w : b.warps)
      for (size_t i = 0; i < w.size() && dict.size() < 4096; ++i) dict += w[i] + "\n";
  std::ofstream(argv[2], std::ios::binary) << lockstep::test::tracez_bytes(split, 64, dict);
  return in && !split.blocks.empty() ? 0 : 1;
}
