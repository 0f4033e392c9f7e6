#include "frontend/validate/hardware_counters.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "frontend/validate/counter_pairs.h"
#include "frontend/validate/ncu_csv.h"

namespace fs = std::filesystem;

namespace lockstep::validate {
namespace {

std::string gt_path(const std::string& path) { return fs::is_directory(path) ? (fs::path(path) / "gt").string() : path; }

bool is_whole_number(const std::string& word) {
  return !word.empty() && word.find_first_not_of("0123456789") == std::string::npos;
}

// Whether every word of the file is a whole number (a gt file, not a CSV).
bool holds_numbers_only(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string word;
  bool any = false;
  while (in >> word) {
    if (!is_whole_number(word)) return false;
    any = true;
  }
  return any;
}

}  // namespace

KernelSequence read_gt_file(const std::string& given) {
  const std::string path = gt_path(given);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  KernelSequence out;
  out.description = path + " (cycles)";
  std::string line;
  for (size_t line_no = 1; std::getline(in, line); ++line_no) {
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      uint64_t v = 0;
      const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
      if (!is_whole_number(word) || ec != std::errc() || ptr != word.data() + word.size())
        throw std::runtime_error(path + " line " + std::to_string(line_no) + ": '" + word +
                                 "' is not a whole number of cycles");
      KernelCounters k;
      k.where = path + " line " + std::to_string(line_no);
      k.counters[kCyclesCounter] = double(v);
      out.kernels.push_back(std::move(k));
    }
  }
  if (in.bad()) throw std::runtime_error(path + ": read failed");
  if (out.kernels.empty()) throw std::runtime_error(path + ": no cycle counts");
  return out;
}

KernelSequence read_hardware_counters(const std::string& path, const std::vector<std::string>& metrics) {
  if (fs::is_directory(path) || fs::path(path).filename() == "gt" || holds_numbers_only(path)) return read_gt_file(path);
  return read_ncu_csv(path, metrics);
}

}  // namespace lockstep::validate
