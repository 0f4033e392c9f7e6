#pragma once
// Where tests find the real sample traces, the project tree and the built
// driver. A missing ../shared/traces is a test failure, never a skip.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace lockstep::test {

inline std::filesystem::path shared_traces() {
  std::filesystem::path p = LOCKSTEP_SHARED_TRACES;
  EXPECT_TRUE(std::filesystem::is_directory(p)) << "sample traces missing at " << p;
  return p;
}
inline std::filesystem::path lockstep_binary() { return LOCKSTEP_BINARY; }

// A fresh scratch directory under the system temp dir, removed by the destructor.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag);
  ~ScratchDir() { std::error_code ec; std::filesystem::remove_all(path_, ec); }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline ScratchDir::ScratchDir(const std::string& tag) {
  static int counter = 0;
  path_ = std::filesystem::temp_directory_path() /
          ("lockstep-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

// Under a sanitizer (the ASan+UBSan and TSan builds, where a simulation
// runs about six times slower) the tests that compare whole runs of
// generated workloads (identity across segment sizes, cluster orders,
// gating, thread counts) compare the same runs on workloads of a quarter of
// the size: the sanitizers look for memory and thread errors on the same
// code paths, and the Release stage runs the comparisons at full size.
#ifdef LOCKSTEP_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
inline constexpr uint64_t workload_size(uint64_t release_size) { return kSanitized ? release_size / 4 : release_size; }

// Every sample trace in ../shared/traces with the shipped config of its architecture.
struct RealTrace {
  const char* trace;  // path under shared_traces()
  const char* gpu;
};
inline constexpr RealTrace kRealTraces[] = {{"vectoradd-sm80", "A100"},
                                            {"bfs-rodinia-sm80", "A100"},
                                            {"matrixmul-sm61", "GTX1080"},
                                            {"flashinfer-gemm-sm80/traces", "A100"},
                                            {"lud-kernel8-sm70", "QV100"}};

}  // namespace lockstep::test
