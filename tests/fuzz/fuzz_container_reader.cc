// libFuzzer target: any bytes as a .lst file. Opening, reading every kernel
// table, every chunk and the totals must succeed or throw TraceError.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "frontend/container/container_reader.h"
#include "frontend/trace/trace_error.h"

namespace {

std::filesystem::path scratch_file() {
  const std::filesystem::path dir = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  return dir / ("lockstep-fuzz-" + std::to_string(::getpid()) + ".lst");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path path = scratch_file();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    lockstep::ContainerReader reader(path);
    std::vector<lockstep::BlockTrace> blocks;
    for (uint32_t k = 0; k < reader.kernel_count(); ++k) {
      reader.kernel_table(k);
      reader.totals(k);
      for (uint32_t c = 0; c < reader.chunk_count(k); ++c) reader.read_chunk(k, c, blocks);
    }
  } catch (const lockstep::TraceError&) {
  }
  return 0;
}
