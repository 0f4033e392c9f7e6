// libFuzzer target: any bytes as a .lst file. Opening, reading every kernel
// table, every chunk and the totals must succeed or throw TraceError. Small
// header and table limits make the fuzzer reach the limit checks.
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
  static const lockstep::container::Limits limits{size_t(1) << 16, size_t(1) << 16};
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    lockstep::ContainerReader reader(path, limits);
    reader.check_every_frame();
    reader.partial_trace();
  } catch (const lockstep::TraceError&) {
  }
  return 0;
}
