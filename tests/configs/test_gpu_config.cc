// The typed GPU configuration: the shipped configs, the loader (files, --set
// overrides, unit classes declared by config), the dump, and validation
// errors that name the key and where it was set.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/isa/instruction_class.h"
#include "configs/spec/sm_spec.h"
#include "configs/spec/memory_spec.h"
#include "configs/spec/config_schema.h"
#include "configs/spec/gpu_config.h"
#include "configs/spec/gpu_spec.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

// In the order the config folder lists them (by path: "H100-PCIe.cfg" before "H100.cfg").
const std::vector<std::string> kShipped = {"A100", "GTX1080", "H100-PCIe", "H100", "QV100", "RTX2060", "RTX3070"};

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// The ConfigError message of loading `gpu` with `overrides`, or "" when it loads.
std::string load_error(const std::string& gpu, const std::vector<std::string>& overrides) {
  try {
    load_gpu_spec(gpu, overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

double dram_gbps(const GpuSpec& g) {
  const DramSpec& d = g.memory.dram;
  return double(d.channels) * d.bus_width_bits / 8 * d.data_rate * g.clocks.dram_mhz / 1000;
}

const UnitSpec* unit(const GpuSpec& g, const std::string& name) {
  for (const UnitSpec& u : g.sm.units)
    if (u.name == name) return &u;
  return nullptr;
}

TEST(GpuConfig, EveryShippedConfigLoadsAndValidates) {
  std::vector<std::string> found;
  for (const fs::path& p : shipped_gpu_configs()) found.push_back(p.stem().string());
  EXPECT_EQ(found, kShipped);
  for (const std::string& name : kShipped) {
    SCOPED_TRACE(name);
    GpuSpec g;
    ASSERT_NO_THROW(g = load_gpu_spec(name));
    EXPECT_EQ(g.name, name);
    EXPECT_FALSE(g.description.empty());
    EXPECT_NO_THROW(g.validate());
    EXPECT_EQ(g.clusters() * g.sms_per_cluster, g.sms);
    EXPECT_FALSE(g.sm.units.empty());
    // Every file cites its sources.
    EXPECT_TRUE(has(file_bytes(find_gpu_config(name)), "Sources")) << name;
  }
}

// Every source tag a shipped config cites in its comments ([AS], [V3], ...)
// is one of the sources its header lists ("#   [TAG]  what it is").
TEST(GpuConfig, EverySourceCitedIsListed) {
  const std::regex tag(R"(\[[A-Z][A-Z0-9-]*\])"), listing(R"(^#\s+\[[A-Z][A-Z0-9-]*\]\s)");
  for (const std::string& name : kShipped) {
    SCOPED_TRACE(name);
    std::istringstream in(file_bytes(find_gpu_config(name)));
    std::set<std::string> listed;
    std::map<std::string, int> cited;  // tag -> first line citing it
    bool header = true;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (!line.empty() && line[0] == '[') header = false;
      const size_t hash = line.find('#');
      if (hash == std::string::npos) continue;
      const std::string comment = line.substr(hash);
      const bool lists = header && std::regex_search(comment, listing);
      for (std::sregex_iterator it(comment.begin(), comment.end(), tag), end; it != end; ++it) {
        if (lists) listed.insert(it->str());
        else cited.emplace(it->str(), n);
      }
    }
    EXPECT_FALSE(listed.empty());
    for (const auto& [t, n] : cited) EXPECT_TRUE(listed.count(t)) << t << " cited at line " << n << " is not listed";
  }
}

TEST(GpuConfig, ShippedConfigsCarryThePublicFigures) {
  const GpuSpec qv100 = load_gpu_spec("QV100");
  EXPECT_EQ(qv100.sms, 80u);
  EXPECT_EQ(qv100.clocks.core_mhz, 1132);
  EXPECT_EQ(qv100.clocks.dram_mhz, 850);
  EXPECT_EQ(qv100.memory.l2_bytes(), 6ull << 20);
  EXPECT_EQ(qv100.memory.l2_slices(), 64u);
  EXPECT_NEAR(dram_gbps(qv100), 870, 1);
  EXPECT_EQ(qv100.memory.dram.type, DramType::kHbm2);
  EXPECT_TRUE(qv100.memory.dram.dual_command_bus);
  EXPECT_EQ(qv100.sm.shared_carveouts_kb, (std::vector<uint32_t>{0, 8, 16, 32, 64, 96}));
  EXPECT_EQ(qv100.sm.shared_latency, 20u);
  EXPECT_EQ(unit(qv100, "SFU")->latency, 20u);

  const GpuSpec gtx1080 = load_gpu_spec("GTX1080");
  EXPECT_EQ(gtx1080.sms, 20u);
  EXPECT_EQ(gtx1080.memory.l2_bytes(), 2ull << 20);
  EXPECT_NEAR(dram_gbps(gtx1080), 320, 1);
  EXPECT_EQ(gtx1080.memory.dram.type, DramType::kGddr5x);
  EXPECT_EQ(gtx1080.sm.scheduler, WarpSchedulerPolicy::kGto);
  EXPECT_EQ(gtx1080.sm.issue_width, 2u);
  EXPECT_FALSE(gtx1080.memory.l1d.adaptive);
  EXPECT_EQ(gtx1080.memory.l1d.base_bytes(), 48u << 10);
  EXPECT_EQ(unit(gtx1080, "INT"), nullptr);  // Pascal runs integer work on SP

  const GpuSpec rtx2060 = load_gpu_spec("RTX2060");
  EXPECT_EQ(rtx2060.sms, 30u);
  EXPECT_EQ(rtx2060.sm.max_threads, 1024u);
  EXPECT_EQ(rtx2060.memory.l2_bytes(), 3ull << 20);
  EXPECT_NEAR(dram_gbps(rtx2060), 336, 1);

  const GpuSpec rtx3070 = load_gpu_spec("RTX3070");
  EXPECT_EQ(rtx3070.sms, 46u);
  EXPECT_EQ(rtx3070.sm.max_threads, 1536u);
  EXPECT_EQ(rtx3070.sm.max_warps, 48u);
  EXPECT_EQ(rtx3070.memory.l2_bytes(), 4ull << 20);
  EXPECT_NEAR(dram_gbps(rtx3070), 448, 1);

  const GpuSpec a100 = load_gpu_spec("A100");
  EXPECT_EQ(a100.sms, 108u);
  EXPECT_EQ(a100.memory.l2_bytes(), 40ull << 20);
  EXPECT_EQ(a100.sm.shared_carveouts_kb.back(), 164u);
  EXPECT_EQ(a100.memory.dram.channels * a100.memory.dram.bus_width_bits, 5120u);

  const GpuSpec h100 = load_gpu_spec("H100");
  EXPECT_EQ(h100.sms, 132u);
  EXPECT_EQ(h100.memory.l2_bytes(), 50ull << 20);
  EXPECT_EQ(h100.memory.dram.type, DramType::kHbm3);
  EXPECT_NEAR(dram_gbps(h100), 3352, 2);
  EXPECT_EQ(h100.sm.unified_l1_shared_kb, 256u);
}

// Each shipped GPU declares every unit class the ISA def of its SM version uses.
TEST(GpuConfig, ShippedConfigsDeclareTheUnitsOfTheirIsaDef) {
  const std::map<std::string, std::string> isa = {{"GTX1080", "sm_61"}, {"QV100", "sm_70"},   {"RTX2060", "sm_75"},
                                                  {"A100", "sm_80"},    {"RTX3070", "sm_86"}, {"H100", "sm_90"}};
  for (const auto& [gpu, version] : isa) {
    SCOPED_TRACE(gpu);
    const fs::path file = config_dir() / "isa" / (version + ".isa");
    ASSERT_TRUE(fs::is_regular_file(file)) << file;
    const GpuSpec g = load_gpu_spec(gpu);
    std::istringstream in(file_bytes(file));
    std::string line;
    std::set<std::string> used;
    while (std::getline(in, line)) {
      line = line.substr(0, line.find('#'));
      std::istringstream words(line);
      std::string opcode, unit_name;
      if (words >> opcode >> unit_name) used.insert(unit_name);
    }
    EXPECT_FALSE(used.empty());
    for (const std::string& u : used) {
      if (u == kMemoryPipelineName) continue;
      EXPECT_NE(unit(g, u), nullptr) << version << " uses unit " << u;
    }
  }
}

TEST(GpuConfig, DumpLoadsBackToTheSameSpec) {
  test::ScratchDir scratch("config-dump");
  for (const std::string& name : kShipped) {
    SCOPED_TRACE(name);
    const GpuSpec g = load_gpu_spec(name, {"isa.extra=HFMA2.MMA:SP,BAR.SYNC:BRANCH:barrier", "clock.core_mhz=1234.5"});
    const std::string dump = dump_gpu_spec(g);
    const fs::path file = scratch / (name + "-dump.cfg");
    write_file(file, dump);
    const GpuSpec back = load_gpu_spec(file.string());
    EXPECT_EQ(dump_gpu_spec(back), dump);
    EXPECT_EQ(back.name, g.name);
    EXPECT_EQ(back.clocks.core_mhz, 1234.5);
    EXPECT_EQ(back.isa_extra, g.isa_extra);
    EXPECT_EQ(back.sm.units.size(), g.sm.units.size());
    for (size_t i = 0; i < g.sm.units.size(); ++i) {
      EXPECT_EQ(back.sm.units[i].name, g.sm.units[i].name);
      EXPECT_EQ(back.sm.units[i].latency, g.sm.units[i].latency);
      EXPECT_EQ(back.sm.units[i].initiation, g.sm.units[i].initiation);
      EXPECT_EQ(back.sm.units[i].per_subcore, g.sm.units[i].per_subcore);
    }
    EXPECT_EQ(back.memory.dram.tRCD, g.memory.dram.tRCD);
    EXPECT_EQ(back.memory.l2.set_hash, g.memory.l2.set_hash);
    EXPECT_EQ(back.sm.shared_carveouts_kb, g.sm.shared_carveouts_kb);
  }
}

TEST(GpuConfig, DumpShowsEveryKeyWithItsDescription) {
  const GpuSpec g = load_gpu_spec("RTX2060");
  const std::string dump = dump_gpu_spec(g);
  std::vector<std::string> units;
  for (const UnitSpec& u : g.sm.units) units.push_back(u.name);
  const config::ConfigSchema schema(units);
  for (const config::ConfigKey& key : schema.keys()) {
    EXPECT_FALSE(key.description.empty()) << key.name;
    EXPECT_EQ(key.description.find('\n'), std::string::npos) << key.name;
    const std::string section = key.section(), leaf = key.leaf(), value = key.get(g);
    EXPECT_TRUE(has(dump, "[" + section + "]\n")) << key.name;
    EXPECT_TRUE(has(dump, "# " + key.description)) << key.name;
    EXPECT_TRUE(has(dump, "\n" + leaf + " = " + value + "\n")) << key.name;
  }
  EXPECT_TRUE(has(dump, "[unit.UNIFORM]\n"));
}

TEST(GpuConfig, SetOverridesApplyAfterTheFile) {
  const GpuSpec g = load_gpu_spec(
      "QV100", {"sm.max_warps=48", "sm.max_threads=1536", "clock.core_mhz=1400.5", "l2.set_hash=XOR",
                "dram.scheduler=FR-FCFS", "dram.page_policy=closed", "sm.scheduler=GTO",
                "sm.shared_carveouts_kb=0, 32, 96", "gpu.concurrent_kernels=yes", "unit.SP.latency=5",
                "sm.max_warps=40", "sm.max_threads = 1280", "isa.extra=HFMA2.MMA:SP", "isa.extra=IMMA:TENSOR:alu"});
  EXPECT_EQ(g.sm.max_warps, 40u);  // the last one wins
  EXPECT_EQ(g.sm.max_threads, 1280u);
  EXPECT_EQ(g.clocks.core_mhz, 1400.5);
  EXPECT_EQ(g.memory.l2.set_hash, IndexHash::kXor);
  EXPECT_EQ(g.memory.dram.scheduler, DramScheduler::kFrFcfs);
  EXPECT_EQ(g.memory.dram.page_policy, PagePolicy::kClosed);
  EXPECT_EQ(g.sm.scheduler, WarpSchedulerPolicy::kGto);
  EXPECT_EQ(g.sm.shared_carveouts_kb, (std::vector<uint32_t>{0, 32, 96}));
  EXPECT_TRUE(g.concurrent_kernels);
  EXPECT_EQ(unit(g, "SP")->latency, 5u);
  EXPECT_EQ(unit(g, "SP")->initiation, 2u);                                               // untouched: from the file
  EXPECT_EQ(g.isa_extra, (std::vector<std::string>{"HFMA2.MMA:SP", "IMMA:TENSOR:alu"}));  // isa.extra appends

  // An empty isa.extra clears what came before.
  EXPECT_TRUE(load_gpu_spec("QV100", {"isa.extra=A:SP", "isa.extra="}).isa_extra.empty());
}

TEST(GpuConfig, SetDeclaresANewUnitClass) {
  const GpuSpec g = load_gpu_spec("QV100", {"sm.units=SP,INT,DP,SFU,TENSOR,BRANCH,TEX,NEWU", "unit.NEWU.latency=7",
                                            "unit.NEWU.initiation=3", "isa.extra=FOO.BAR:NEWU"});
  ASSERT_EQ(g.sm.units.size(), 8u);
  EXPECT_EQ(g.sm.units.back().name, "NEWU");
  EXPECT_EQ(g.sm.units.back().latency, 7u);
  EXPECT_EQ(g.sm.units.back().initiation, 3u);
  EXPECT_EQ(g.sm.units.back().per_subcore, UnitSpec{}.per_subcore);
  EXPECT_EQ(unit(g, "SFU")->latency, 20u);  // existing classes keep the file's settings
  EXPECT_TRUE(has(dump_gpu_spec(g), "[unit.NEWU]\n"));

  // The unit keys exist only once the class is declared.
  const std::string err = load_error("QV100", {"unit.NEWU.latency=7"});
  EXPECT_TRUE(has(err, "--set unit.NEWU.latency")) << err;
  EXPECT_TRUE(has(err, "unknown key")) << err;
}

TEST(GpuConfig, UnitClassesComeFromTheConfigAlone) {
  test::ScratchDir scratch("config-units");
  const fs::path file = scratch / "tiny.cfg";
  write_file(file,
             "[gpu]\nsms = 2\n[sm]\nunits = ALPHA, beta_2\n[unit.ALPHA]\nlatency = 9\n"
             "[unit.beta_2]\nper_subcore = 2\ninitiation = 4\n[isa]\nextra = X:ALPHA\nextra = Y:beta_2:nop\n");
  const GpuSpec g = load_gpu_spec(file.string());
  EXPECT_EQ(g.name, "tiny");  // from the file name when gpu.name is not given
  EXPECT_EQ(g.sms, 2u);
  ASSERT_EQ(g.sm.units.size(), 2u);
  EXPECT_EQ(g.sm.units[0].latency, 9u);
  EXPECT_EQ(g.sm.units[1].per_subcore, 2u);
  EXPECT_EQ(g.sm.units[1].initiation, 4u);
  EXPECT_EQ(g.isa_extra, (std::vector<std::string>{"X:ALPHA", "Y:beta_2:nop"}));

  // A section may come before the list that declares its class.
  write_file(file, "[unit.A]\nlatency = 3\n[sm]\nunits = A\n");
  EXPECT_EQ(load_gpu_spec(file.string()).sm.units.at(0).latency, 3u);

  write_file(file, "[sm]\nunits = A,A\n");
  EXPECT_TRUE(has(load_error(file.string(), {}), "declared twice"));
  write_file(file, "[sm]\nunits = A,MEM\n");
  EXPECT_TRUE(has(load_error(file.string(), {}), "sm.units"));
  write_file(file, "[sm]\nunits =\n");
  EXPECT_TRUE(has(load_error(file.string(), {}), "sm.units"));
}

TEST(GpuConfig, UnknownKeyIsAnErrorNamingIt) {
  std::string err = load_error("QV100", {"sm.bogus=1"});
  EXPECT_TRUE(has(err, "--set sm.bogus")) << err;
  EXPECT_TRUE(has(err, "unknown key")) << err;
  EXPECT_TRUE(has(load_error("QV100", {"nosection=1"}), "nosection"));
  EXPECT_TRUE(has(load_error("QV100", {"dram.tccd=1"}), "did you mean dram.tCCD?"));
  EXPECT_TRUE(has(load_error("QV100", {"sm.max_warps"}), "expected key=value"));

  test::ScratchDir scratch("config-unknown");
  const fs::path file = scratch / "bad.cfg";
  write_file(file, "[sm]\nunits = SP\nmax_warps = 32\nmax_wraps = 32\n");
  err = load_error(file.string(), {});
  EXPECT_TRUE(has(err, file.string() + ": sm.max_wraps")) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 0);

  write_file(file, "[sm]\nunits = SP\n[unit.INT]\nlatency = 2\n");
  err = load_error(file.string(), {});
  EXPECT_TRUE(has(err, file.string() + ": unit.INT.latency")) << err;

  write_file(file, "[sm]\nunits = SP\nmax_warps = 32\nmax_warps = 64\n");
  err = load_error(file.string(), {});
  EXPECT_TRUE(has(err, file.string() + ": sm.max_warps: set twice")) << err;

  write_file(file, "[sm]\nunits = SP\nmax_warps\n");
  err = load_error(file.string(), {});
  EXPECT_TRUE(has(err, file.string() + ": ")) << err;

  err = load_error((scratch / "missing.cfg").string(), {});
  EXPECT_TRUE(has(err, "missing.cfg: cannot read")) << err;
}

TEST(GpuConfig, MaxThreadsFollowsAMaxWarpsSetAlone) {
  EXPECT_EQ(load_gpu_spec("QV100", {"sm.max_warps=16"}).sm.max_threads, 512u);
  EXPECT_EQ(load_gpu_spec("QV100", {"sm.max_warps=48"}).sm.max_threads, 1536u);
  EXPECT_EQ(load_gpu_spec("QV100", {"sm.max_warps=128"}).sm.max_threads, 2048u);  // only ever lowered
  EXPECT_EQ(load_gpu_spec("QV100", {"sm.max_threads=1024"}).sm.max_warps, 64u);   // a --set of both stays as given
}

TEST(GpuConfig, ImpossibleValuesAreErrorsNamingTheKey) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"gpu.sms=0"}, "--set gpu.sms = 0: must be >= 1"},
      {{"gpu.sms_per_cluster=3"}, "gpu.sms_per_cluster = 3"},
      {{"gpu.name="}, "gpu.name"},
      {{"clock.dram_mhz=0"}, "clock.dram_mhz"},
      {{"sm.shared_carveouts_kb=0,8,16,32,64,200"}, "sm.shared_carveouts_kb"},
      {{"sm.shared_carveouts_kb=0,64,32"}, "sm.shared_carveouts_kb"},
      {{"sm.max_shared_per_sm_kb=200"}, "sm.max_shared_per_sm_kb"},
      {{"sm.unified_l1_shared_kb=64"}, "sm.unified_l1_shared_kb = 64"},
      {{"sm.max_shared_per_block_kb=128"}, "sm.max_shared_per_block_kb"},
      {{"unit.SP.latency=0"}, "--set unit.SP.latency = 0: must be >= 1"},
      {{"unit.TEX.initiation=0"}, "unit.TEX.initiation"},
      {{"sm.max_threads=4096"}, "--set sm.max_threads=4096 conflicts with sm.max_warps = 64 from "},
      {{"sm.max_warps=16", "sm.max_threads=2048"}, "--set sm.max_threads = 2048: more than sm.max_warps * 32"},
      {{"sm.subcores=0"}, "--set sm.subcores = 0: must be >= 1"},
      {{"sm.registers=1000"}, "sm.registers"},
      {{"sm.coalesce_threads=5"}, "sm.coalesce_threads"},
      {{"sm.scheduler=two_level", "sm.two_level_active_warps=99"}, "sm.two_level_active_warps"},
      {{"sm.icache_kb=3"}, "sm.icache_kb"},
      {{"l1d.sector_bytes=256"}, "l1d.sector_bytes = 256: must be <= 32"},
      {{"l1d.sector_bytes=64"}, "l1d.sector_bytes = 64: must be <= 32"},
      {{"l2.sector_bytes=64"}, "l2.sector_bytes = 64: must be <= 32"},
      {{"l1d.line_bytes=16"}, "l1d.line_bytes"},
      {{"l1d.sets=3"}, "l1d.sets"},
      {{"l1d.adaptive=false", "l1d.ways=512"}, "l1d.ways"},
      {{"l2.sets=0"}, "l2.sets"},
      {{"l2.subpartitions=0"}, "l2.subpartitions"},
      {{"icnt.flit_bytes=0"}, "icnt.flit_bytes"},
      {{"dram.tRC=1"}, "dram.tRC = 1"},
      {{"dram.tCCDL=0"}, "dram.tCCDL"},
      {{"dram.bank_groups=3"}, "dram.bank_groups"},
      {{"dram.burst_length=4"}, "dram.burst_length"},
      {{"dram.tREFI=10", "dram.tRFC=20"}, "dram.tREFI"},
      {{"isa.extra=FOO:NOPE"}, "isa.extra = FOO:NOPE"},
      {{"isa.extra=FOO:SP:weird"}, "isa.extra = FOO:SP:weird"},
      {{"isa.extra=FOO"}, "isa.extra = FOO"},
  };
  for (const auto& [overrides, expected] : cases) {
    const std::string err = load_error("QV100", overrides);
    EXPECT_TRUE(has(err, expected)) << overrides.front() << " -> '" << err << "'";
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 0) << err;
  }

  // A bad value in a file is blamed on the file.
  test::ScratchDir scratch("config-impossible");
  const fs::path file = scratch / "zero.cfg";
  write_file(file, dump_gpu_spec(load_gpu_spec("QV100")) + "[gpu]\n");
  std::string text = file_bytes(file);
  text.replace(text.find("\nsms = 80\n"), 10, "\nsms = 0\n");
  write_file(file, text);
  const std::string err = load_error(file.string(), {});
  EXPECT_EQ(err, file.string() + ": gpu.sms = 0: must be >= 1");
}

// Every number has an upper bound from the range of real hardware (configs/
// README.md, "Limits"): beyond it the config is refused in one line before
// anything is built (gpu.sms=100000 used to pass and then eat 24 GB).
TEST(GpuConfig, ValuesBeyondTheHardwareRangeAreErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"gpu.sms=100000", "gpu.sms = 100000: must be <= 1024"},
      {"sm.max_blocks=5000", "sm.max_blocks = 5000: must be <= 1024"},
      {"sm.icache_kb=1048576", "sm.icache_kb = 1048576: must be <= 4096"},
      {"unit.SP.latency=4000000000", "unit.SP.latency = 4000000000: must be <= 1000000"},
      {"l1d.mshr_entries=100000", "l1d.mshr_entries = 100000: must be <= 65536"},
      {"icnt.in_buffer=4000000000", "icnt.in_buffer = 4000000000: must be <= 65536"},
      {"dram.tRFC=2000000", "dram.tRFC = 2000000: must be <= 1000000"},
      {"dram.return_queue=70000", "dram.return_queue = 70000: must be <= 65536"},
      {"l2.sets=65536", "more than 4194304"},  // each value in range, the L2 in all too large
      {"sm.subcores=65", "sm.subcores = 65: must be <= 64"},
  };
  for (const auto& [override_, expected] : cases) {
    const std::string err = load_error("QV100", {override_});
    EXPECT_TRUE(has(err, expected)) << override_ << " -> '" << err << "'";
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 0) << err;
  }
  // The bounds themselves are allowed.
  EXPECT_EQ(load_gpu_spec("QV100", {"gpu.sms=1024"}).sms, 1024u);
  EXPECT_EQ(load_gpu_spec("QV100", {"dram.tRFC=999999", "dram.tREFI=1000000"}).memory.dram.tREFI, 1000000u);
}

TEST(GpuConfig, ValuesOfTheWrongTypeAreErrors) {
  const std::vector<std::string> bad = {
      "sm.max_warps=abc",           "sm.max_warps=-1",         "sm.max_warps=1.5",
      "sm.max_warps=99999999999",   "sm.max_warps=",           "gpu.concurrent_kernels=maybe",
      "clock.core_mhz=fast",        "clock.core_mhz=inf",      "sm.scheduler=random",
      "sm.shared_carveouts_kb=1,x", "gpu.watchdog_cycles=1e6", "dram.type=ddr4",
      "gpu.description=a # b",      "sm.units=SP,I-NT",
  };
  for (const std::string& o : bad) {
    const std::string err = load_error("QV100", {o});
    const std::string key = o.substr(0, o.find('='));
    EXPECT_TRUE(has(err, "--set " + key + ": ")) << o << " -> '" << err << "'";
  }
  EXPECT_TRUE(has(load_error("QV100", {"sm.max_warps=abc"}), "'abc' is not an unsigned integer"));
  EXPECT_TRUE(has(load_error("QV100", {"sm.scheduler=random"}), "lrr|gto|two_level"));
}

TEST(GpuConfig, GpuNamesAreCaseInsensitive) {
  for (const char* name : {"qv100", "Qv100", "QV100", "h100", "rtx3070", "Gtx1080"})
    EXPECT_NO_THROW(load_gpu_spec(name)) << name;
  EXPECT_EQ(load_gpu_spec("a100").name, "A100");
  EXPECT_EQ(find_gpu_config("rtx2060").filename(), "RTX2060.cfg");
  const std::string err = load_error("nosuchgpu", {});
  EXPECT_TRUE(has(err, "unknown GPU 'nosuchgpu'")) << err;
  EXPECT_TRUE(has(err, "QV100")) << err;  // lists the shipped GPUs
  // A path is a path, whatever its name.
  EXPECT_EQ(load_gpu_spec((config_dir() / "gpus" / "H100.cfg").string()).sms, 132u);
}

TEST(GpuConfig, ConfigDirComesFromTheEnvironment) {
  test::ScratchDir scratch("config-dir");
  fs::create_directories(scratch / "gpus");
  write_file(scratch / "gpus" / "Tiny.cfg", "[gpu]\nname = Tiny\nsms = 4\n[sm]\nunits = SP\n");
  const char* old = std::getenv("LOCKSTEP_CONFIG_DIR");
  const std::string saved = old ? old : "";
  ::setenv("LOCKSTEP_CONFIG_DIR", scratch.path().c_str(), 1);
  EXPECT_EQ(config_dir(), scratch.path());
  EXPECT_EQ(load_gpu_spec("tiny").sms, 4u);
  EXPECT_TRUE(has(load_error("QV100", {}), "unknown GPU"));
  if (old)
    ::setenv("LOCKSTEP_CONFIG_DIR", saved.c_str(), 1);
  else
    ::unsetenv("LOCKSTEP_CONFIG_DIR");
  EXPECT_EQ(load_gpu_spec("QV100").sms, 80u);
}

TEST(GpuConfig, ReadmeDocumentsEveryKey) {
  const std::string readme = file_bytes(fs::path(LOCKSTEP_SOURCE_DIR) / "configs" / "README.md");
  ASSERT_FALSE(readme.empty());
  const config::ConfigSchema schema({"NAME"});
  for (const config::ConfigKey& key : schema.keys()) EXPECT_TRUE(has(readme, "`" + key.name + "`")) << key.name;
  const std::string begin = "<!-- keys:begin -->\n", end = "<!-- keys:end -->";
  const size_t b = readme.find(begin), e = readme.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(readme.substr(b + begin.size(), e - b - begin.size()), config_keys_markdown())
      << "configs/README.md is out of date: paste the output of `lockstep config --keys` between the markers";
}

TEST(GpuConfig, CommandLine) {
  test::ScratchDir scratch("config-cli");
  const std::string bin = test::lockstep_binary().string();
  const std::string out = (scratch / "out").string(), err = (scratch / "err").string();
  auto run = [&](const std::string& args) {
    const int rc = std::system((bin + " config " + args + " > " + out + " 2> " + err).c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  EXPECT_EQ(run("--gpu qv100"), 0);
  EXPECT_TRUE(has(file_bytes(out), "QV100: 80 SMs")) << file_bytes(out);
  EXPECT_EQ(run("--list"), 0);
  for (const std::string& name : kShipped) EXPECT_TRUE(has(file_bytes(out), name)) << name;
  EXPECT_EQ(run("--gpu A100 --set sm.max_blocks=8 --dump"), 0);
  const fs::path dumped = scratch / "a100.cfg";
  fs::copy_file(out, dumped);
  EXPECT_TRUE(has(file_bytes(dumped), "\nmax_blocks = 8\n"));
  EXPECT_EQ(run("--config " + dumped.string() + " --dump"), 0);
  EXPECT_EQ(file_bytes(out), file_bytes(dumped));
  EXPECT_EQ(run("--gpu QV100 --set sm.bogus=1"), 1);
  const std::string message = file_bytes(err);
  EXPECT_TRUE(has(message, "sm.bogus")) << message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
  EXPECT_EQ(run("--gpu QV100 --config x.cfg"), 1);  // an overlay, which must exist
  EXPECT_TRUE(has(file_bytes(err), "x.cfg: cannot read the config file")) << file_bytes(err);
  EXPECT_EQ(run("--keys"), 0);
  EXPECT_EQ(file_bytes(out), config_keys_markdown());
}

TEST(SmSpec, ValidateNamesTheKey) {
  SmSpec sm;
  sm.units = {UnitSpec{"SP"}, UnitSpec{"SFU", 1, 20, 8}};
  EXPECT_NO_THROW(sm.validate());
  auto message = [](const SmSpec& s) {
    try {
      s.validate();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  SmSpec bad = sm;
  bad.subcores = 0;
  EXPECT_EQ(message(bad), "sm.subcores = 0: must be >= 1");
  bad = sm;
  bad.max_threads = 4096;
  EXPECT_EQ(message(bad), "sm.max_threads = 4096: more than sm.max_warps * 32 = 2048 threads");
  bad = sm;
  bad.shared_carveouts_kb = {0, 8, 160};
  EXPECT_TRUE(has(message(bad), "sm.shared_carveouts_kb = 0,8,160: carve-out 160 KB is above sm.unified_l1_shared_kb"));
  bad = sm;
  bad.units[1].latency = 0;
  EXPECT_EQ(message(bad), "unit.SFU.latency = 0: must be >= 1");
  bad = sm;
  bad.units.clear();
  EXPECT_TRUE(has(message(bad), "sm.units"));
  bad = sm;
  bad.units.push_back(UnitSpec{"sp"});
  EXPECT_TRUE(has(message(bad), "declared twice"));
}

TEST(SmSpec, InstKindNamesAreDistinct) {
  std::set<std::string> names;
  for (int k = 0; k <= int(InstKind::kNop); ++k) names.insert(inst_kind_name(InstKind(k)));
  EXPECT_EQ(names.size(), size_t(InstKind::kNop) + 1);
  EXPECT_STREQ(inst_kind_name(InstKind::kMemBarrier), "membar");
  EXPECT_STREQ(inst_kind_name(InstKind::kLdgDepBar), "ldgdepbar");
}

TEST(MemorySpec, DefaultsAreValidAndChecksNameTheKey) {
  MemorySpec m;
  EXPECT_NO_THROW(m.validate());
  EXPECT_EQ(m.l2_slices(), 64u);
  EXPECT_EQ(m.dram.access_bytes(), 32u);
  m.dram.tRAS = 5;
  try {
    m.validate();
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "dram.tRAS = 5: less than dram.tRCD = 12");
  }
  EXPECT_STREQ(dram_type_name(DramType::kGddr5x), "gddr5x");
  EXPECT_STREQ(index_hash_name(IndexHash::kIpoly), "ipoly");
}

TEST(GpuSpec, DefaultsWithAUnitAreValid) {
  GpuSpec g;
  g.name = "x";
  g.sm.units = {UnitSpec{"SP"}};
  EXPECT_NO_THROW(g.validate());
  EXPECT_EQ(g.clusters(), 80u);
  g.sms_per_cluster = 2;
  EXPECT_EQ(g.clusters(), 40u);
}

}  // namespace
}  // namespace lockstep
