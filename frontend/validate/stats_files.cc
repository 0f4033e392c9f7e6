#include "frontend/validate/stats_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fs = std::filesystem;
using nlohmann::json;

namespace lockstep::validate {

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": not JSON: " + e.what());
  }
}

namespace {

std::vector<std::string> expand(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    if (!fs::is_directory(p)) {
      files.push_back(p);
      continue;
    }
    std::vector<std::string> inside;
    for (const auto& entry : fs::directory_iterator(p))
      if (entry.path().extension() == ".json" && !entry.is_directory()) inside.push_back(entry.path().string());
    if (inside.empty()) throw std::runtime_error(p + ": no *.json stats files in the directory");
    std::sort(inside.begin(), inside.end());
    files.insert(files.end(), inside.begin(), inside.end());
  }
  return files;
}

void read_one(const std::string& path, SimulatedRuns& out) {
  const json doc = read_json_file(path);
  auto bad = [&](const std::string& what) { return std::runtime_error(path + ": not a lockstep stats file: " + what); };
  if (!doc.is_object() || !doc.contains("kernels") || !doc["kernels"].is_array()) throw bad("no \"kernels\" array");
  std::string cache_control = "none";
  if (doc.contains("cache_control")) {
    if (!doc["cache_control"].is_string()) throw bad("\"cache_control\" is not a string");
    cache_control = doc["cache_control"].get<std::string>();
    if (cache_control != "all" && cache_control != "none")
      throw bad("\"cache_control\" is '" + cache_control + "', expected all or none");
  }
  out.cache_control.push_back({path, cache_control});
  for (const json& k : doc["kernels"]) {
    if (!k.is_object() || !k.contains("stats") || !k["stats"].is_object() || !k.contains("id") ||
        !k["id"].is_number_unsigned())
      throw bad("a kernel without a numeric \"id\" and a \"stats\" object");
    KernelCounters kernel;
    kernel.name = k.value("name", std::string());
    kernel.where = path + " kernel " + std::to_string(k["id"].get<uint64_t>());
    if (k.value("truncated", false)) {
      out.left_out.push_back(kernel.where + " '" + kernel.name + "': cut short in the simulation (not compared)");
      continue;
    }
    for (const auto& [name, value] : k["stats"].items())
      if (value.is_number()) kernel.counters[name] = value.get<double>();
    out.kernels.kernels.push_back(std::move(kernel));
  }
}

}  // namespace

SimulatedRuns read_stats_files(const std::vector<std::string>& paths) {
  SimulatedRuns out;
  const std::vector<std::string> files = expand(paths);
  for (const std::string& f : files) read_one(f, out);
  out.kernels.description = files.size() == 1 ? files[0] : std::to_string(files.size()) + " stats files";
  return out;
}

}  // namespace lockstep::validate
