// ISA defs: the shipped configs/isa tables cover every opcode of the real
// sample traces and of the generator's workloads; lookup, extras and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "frontend/gen/workload_generator.h"
#include "configs/spec/config_dir.h"
#include "frontend/isa/isa_def.h"
#include "frontend/text/text_trace_source.h"
#include "frontend/trace/opcode_traits.h"
#include "frontend/trace/trace_error.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

const fs::path kConfigs = LOCKSTEP_SOURCE_DIR "/configs";
const uint32_t kShippedVersions[] = {61, 70, 75, 80, 86, 89, 90};

// Every distinct opcode of every kernel of a trace, with the kernel's binary version.
std::map<uint32_t, std::set<std::string>> opcodes_by_version(const fs::path& input) {
  std::map<uint32_t, std::set<std::string>> out;
  TextTraceSource src(input, nullptr);
  for (uint32_t k = 0; k < src.manifest().kernels.size(); ++k) {
    auto cursor = src.open_blocks(k);
    BlockTrace block;
    while (cursor->next(block)) {
    }
    const StaticTable& table = src.static_table(k);
    auto& ops = out[src.manifest().kernels[k].binary_version];
    for (uint32_t id = 0; id < table.opcode_count(); ++id) ops.insert(table.opcode(id));
  }
  return out;
}

// Throws (failing the test with the message) on the first opcode that does not resolve.
void expect_all_resolve(const std::map<uint32_t, std::set<std::string>>& by_version, const std::string& what) {
  for (const auto& [sm, ops] : by_version) {
    const IsaDef def = IsaDef::for_binary_version(sm, kConfigs);
    EXPECT_EQ(def.sm_version(), sm);
    for (const std::string& op : ops) {
      try {
        def.resolve(op, what);
      } catch (const TraceError& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string load_error(const fs::path& p) {
  try {
    IsaDef::load(p);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string extra_error(IsaDef& def, std::string_view spec) {
  try {
    def.add_extra(spec);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(IsaDef, EveryOpcodeOfTheRealTracesResolvesForItsArchitecture) {
  const fs::path dir = test::shared_traces();
  const std::pair<const char*, uint32_t> traces[] = {{"matrixmul-sm61", 61},
                                                     {"lud-kernel8-sm70", 70},
                                                     {"vectoradd-sm80", 80},
                                                     {"bfs-rodinia-sm80", 80},
                                                     {"flashinfer-gemm-sm80/traces", 80}};
  for (const auto& [name, sm] : traces) {
    SCOPED_TRACE(name);
    const auto by_version = opcodes_by_version(dir / name);
    ASSERT_EQ(by_version.size(), 1u);
    EXPECT_EQ(by_version.begin()->first, sm);
    EXPECT_GT(by_version.begin()->second.size(), 5u);
    expect_all_resolve(by_version, name);
  }
}

TEST(IsaDef, EveryGeneratedWorkloadResolvesForSm70AndSm80) {
  test::ScratchDir scratch("isa-gen");
  for (uint32_t arch : {70u, 80u}) {
    for (const std::string& workload : workload_names()) {
      SCOPED_TRACE(workload + " sm_" + std::to_string(arch));
      GenOptions o;
      o.workload = workload;
      o.size = 20'000;
      o.arch = arch;
      const fs::path out = scratch / (workload + "-" + std::to_string(arch));
      generate_trace(o, out);
      const auto by_version = opcodes_by_version(out);
      ASSERT_EQ(by_version.size(), 1u);
      EXPECT_EQ(by_version.begin()->first, arch);
      expect_all_resolve(by_version, workload);
    }
  }
}

TEST(IsaDef, ShippedTablesAreWellFormedAndConsistent) {
  const std::set<std::string> known_units = {"SP", "INT", "DP", "SFU", "TENSOR", "BRANCH", "UNIFORM", "TEX", "MEM"};
  for (uint32_t sm : kShippedVersions) {
    SCOPED_TRACE(sm);
    const IsaDef def = IsaDef::load(kConfigs / "isa" / ("sm_" + std::to_string(sm) + ".isa"));
    EXPECT_EQ(def.sm_version(), sm);
    EXPECT_GT(def.size(), 100u);
    for (const std::string& unit : def.unit_names()) EXPECT_TRUE(known_units.count(unit)) << unit;
    const std::vector<std::string> units = def.unit_names();
    auto has_unit = [&](const char* u) { return std::find(units.begin(), units.end(), u) != units.end(); };
    EXPECT_EQ(has_unit("INT"), sm >= 70);
    EXPECT_EQ(has_unit("TENSOR"), sm >= 70);
    EXPECT_EQ(has_unit("UNIFORM"), sm >= 75);

    // The behaviours the SM relies on.
    EXPECT_EQ(def.resolve("EXIT", "t").kind, InstKind::kExit);
    EXPECT_EQ(def.resolve("BAR.SYNC", "t").kind, InstKind::kBarrier);
    EXPECT_EQ(def.resolve("MEMBAR.CTA", "t").kind, InstKind::kMemBarrier);
    EXPECT_EQ(def.resolve("DEPBAR.LE", "t").kind, InstKind::kDepBar);
    EXPECT_EQ(def.resolve("NOP", "t").kind, InstKind::kNop);
    EXPECT_EQ(def.resolve("BRA", "t").kind, InstKind::kBranch);
    EXPECT_EQ(def.resolve("MUFU.RCP", "t"), (IsaDef::Entry{"SFU", InstKind::kAlu}));
    EXPECT_EQ(def.resolve("DFMA", "t"), (IsaDef::Entry{"DP", InstKind::kAlu}));
    EXPECT_EQ(def.resolve("FFMA", "t"), (IsaDef::Entry{"SP", InstKind::kAlu}));
    EXPECT_EQ(def.resolve("IADD3", "t").unit, sm >= 70 ? "INT" : "SP");
    EXPECT_EQ(def.resolve("LDG.E.64", "t"), (IsaDef::Entry{"MEM", InstKind::kMemory}));
    if (sm >= 70) {
      EXPECT_EQ(def.resolve("HMMA.884.F32.F32", "t").unit, "TENSOR");
    }
    if (sm >= 75) {
      EXPECT_EQ(def.resolve("ULDC.64", "t").unit, "UNIFORM");
    }
    if (sm >= 80) {
      EXPECT_EQ(def.resolve("LDGSTS.E.BYPASS.128", "t"), (IsaDef::Entry{"MEM", InstKind::kMemory}));
      EXPECT_EQ(def.resolve("LDGDEPBAR", "t").kind, InstKind::kLdgDepBar);
    }

    // Every memory entry names an opcode whose memory space the trace side knows.
    std::ifstream in(kConfigs / "isa" / ("sm_" + std::to_string(sm) + ".isa"));
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const std::string opcode = line.substr(0, line.find_first_of(" \t"));
      const IsaDef::Entry* e = def.find(opcode);
      ASSERT_NE(e, nullptr) << opcode;
      if (e->kind == InstKind::kMemory) {
        EXPECT_EQ(e->unit, "MEM") << opcode;
        EXPECT_NE(classify_opcode(opcode).space, MemSpace::kNone) << opcode;
      }
    }
  }
}

TEST(IsaDef, FallsBackToTheNearestLowerVersionOfTheSameGeneration) {
  const IsaDef sm87 = IsaDef::for_binary_version(87, kConfigs);
  EXPECT_EQ(sm87.sm_version(), 87u);
  EXPECT_EQ(sm87.source_file().filename(), "sm_86.isa");
  EXPECT_EQ(IsaDef::for_binary_version(72, kConfigs).source_file().filename(), "sm_70.isa");
  EXPECT_EQ(IsaDef::for_binary_version(80, kConfigs).source_file().filename(), "sm_80.isa");
  // No lower file of the same major version: an error naming the version and what exists.
  try {
    IsaDef::for_binary_version(60, kConfigs);
    ADD_FAILURE() << "sm_60 resolved";
  } catch (const TraceError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("sm_60"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sm_61"), std::string::npos) << msg;
  }
  EXPECT_THROW(IsaDef::for_binary_version(50, kConfigs), TraceError);
  test::ScratchDir scratch("isa-noconf");
  EXPECT_THROW(IsaDef::for_binary_version(80, scratch.path()), TraceError);
}

TEST(IsaDef, SuffixStrippingAndExactMatchFirst) {
  test::ScratchDir scratch("isa-lookup");
  write_file(scratch / "sm_80.isa",
             "# comment line\n"
             "\n"
             "IMAD        INT     alu   # trailing comment\n"
             "IMAD.WIDE   SP      alu\n"
             "BAR         BRANCH  barrier\n"
             "LDG         MEM     memory\n"
             "EXIT        BRANCH  EXIT\n");
  const IsaDef def = IsaDef::load(scratch / "sm_80.isa");
  EXPECT_EQ(def.sm_version(), 80u);
  EXPECT_EQ(def.size(), 5u);
  EXPECT_EQ(def.find("IMAD")->unit, "INT");
  EXPECT_EQ(def.find("IMAD.MOV.U32")->unit, "INT");  // IMAD.MOV.U32 -> IMAD.MOV -> IMAD
  EXPECT_EQ(def.find("IMAD.WIDE")->unit, "SP");      // exact entry beats the base mnemonic
  EXPECT_EQ(def.find("IMAD.WIDE.U32")->unit, "SP");  // the longest matching prefix wins
  EXPECT_EQ(def.find("BAR.SYNC.DEFER_BLOCKING")->kind, InstKind::kBarrier);
  EXPECT_EQ(def.find("EXIT")->kind, InstKind::kExit);  // kinds are case-insensitive
  EXPECT_EQ(def.find("LDG.E.128.SYS")->kind, InstKind::kMemory);
  EXPECT_EQ(def.find("IMADX"), nullptr);  // only whole '.'-parts are dropped
  EXPECT_EQ(def.find("STG.E"), nullptr);
  EXPECT_EQ(def.find(""), nullptr);
  EXPECT_EQ(def.unit_names(), (std::vector<std::string>{"BRANCH", "INT", "MEM", "SP"}));
}

TEST(IsaDef, AddExtraAddsAndOverrides) {
  IsaDef def = IsaDef::for_binary_version(80, kConfigs);
  ASSERT_EQ(def.find("XYZ.W"), nullptr);
  def.add_extra("XYZ:SFU");
  EXPECT_EQ(def.resolve("XYZ.W", "t"), (IsaDef::Entry{"SFU", InstKind::kAlu}));
  def.add_extra("imad.wide:SP:alu, FOO.BAR:TENSOR:nop");  // opcodes upper-cased; lists allowed
  EXPECT_EQ(def.resolve("IMAD.WIDE.U32", "t").unit, "SP");
  EXPECT_EQ(def.resolve("IMAD", "t").unit, "INT");
  EXPECT_EQ(def.resolve("FOO.BAR", "t"), (IsaDef::Entry{"TENSOR", InstKind::kNop}));
  def.add_extra("XYZ:NEWUNIT:branch");  // later wins; new unit classes are just names
  EXPECT_EQ(def.resolve("XYZ", "t"), (IsaDef::Entry{"NEWUNIT", InstKind::kBranch}));
  const auto units = def.unit_names();
  EXPECT_NE(std::find(units.begin(), units.end(), "NEWUNIT"), units.end());

  for (const char* bad : {"", "XYZ", "XYZ:", ":SP", "XYZ:SP:fast", "XYZ:SP:alu:1", "X Y:SP", "XYZ:S-P", "XYZ:SP,",
                          "XYZ..W:SP", "1XYZ:SP"}) {
    SCOPED_TRACE(bad);
    const std::string msg = extra_error(def, bad);
    EXPECT_NE(msg.find("isa.extra"), std::string::npos) << msg;
  }
  EXPECT_NE(extra_error(def, "XYZ:SP:fast").find("fast"), std::string::npos);
}

TEST(IsaDef, UnknownOpcodeErrorNamesOpcodeArchAndPosition) {
  const IsaDef def = IsaDef::for_binary_version(80, kConfigs);
  try {
    def.resolve("XYZ.W", "trace.traceg:123");
    ADD_FAILURE() << "resolved";
  } catch (const TraceError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("trace.traceg:123: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("unknown opcode 'XYZ.W' for sm_80"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sm_80.isa"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--set isa.extra=XYZ:UNIT"), std::string::npos) << msg;
  }
  // A fallback names the requested version and the file actually used.
  try {
    IsaDef::for_binary_version(87, kConfigs).resolve("XYZ", "k");
    ADD_FAILURE() << "resolved";
  } catch (const TraceError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("for sm_87"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sm_86.isa"), std::string::npos) << msg;
  }
}

TEST(IsaDef, MalformedFilesAreErrorsNamingFileAndLine) {
  test::ScratchDir scratch("isa-bad");
  const std::pair<const char*, const char*> cases[] = {
      {"FADD SP alu\nFFMA SP\n", ":2: expected 'OPCODE UNIT KIND'"},
      {"FADD SP alu extra\n", ":1: expected"},
      {"# c\nFADD SP fast\n", ":2: unknown kind 'fast'"},
      {"fadd SP alu\n", ":1: bad opcode 'fadd'"},
      {"FADD. SP alu\n", ":1: bad opcode"},
      {"FADD S-P alu\n", ":1: bad unit name"},
      {"FADD SP alu\n\nFADD INT alu\n", ":3: opcode 'FADD' already defined at line 1"},
  };
  int n = 0;
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    const fs::path p = scratch / ("bad" + std::to_string(n++) + ".isa");
    write_file(p, text);
    const std::string msg = load_error(p);
    EXPECT_EQ(msg.rfind(p.string() + ":", 0), 0u) << msg;
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
  }
  write_file(scratch / "empty.isa", "# nothing\n\n");
  EXPECT_NE(load_error(scratch / "empty.isa").find("no opcode entries"), std::string::npos);
  EXPECT_NE(load_error(scratch / "missing.isa").find("cannot open"), std::string::npos);
}

TEST(IsaDef, KindNamesAndConfigDir) {
  EXPECT_EQ(inst_kind_from_name("alu"), InstKind::kAlu);
  EXPECT_EQ(inst_kind_from_name("branch"), InstKind::kBranch);
  EXPECT_EQ(inst_kind_from_name("memory"), InstKind::kMemory);
  EXPECT_EQ(inst_kind_from_name("barrier"), InstKind::kBarrier);
  EXPECT_EQ(inst_kind_from_name("membar"), InstKind::kMemBarrier);
  EXPECT_EQ(inst_kind_from_name("exit"), InstKind::kExit);
  EXPECT_EQ(inst_kind_from_name("depbar"), InstKind::kDepBar);
  EXPECT_EQ(inst_kind_from_name("LdgDepBar"), InstKind::kLdgDepBar);
  EXPECT_EQ(inst_kind_from_name("nop"), InstKind::kNop);
  EXPECT_EQ(inst_kind_from_name("mem"), std::nullopt);
  EXPECT_EQ(inst_kind_from_name(""), std::nullopt);

  const char* saved = std::getenv("LOCKSTEP_CONFIG_DIR");
  const std::string saved_value = saved ? saved : "";
  ::unsetenv("LOCKSTEP_CONFIG_DIR");
  EXPECT_EQ(fs::weakly_canonical(default_config_dir()), fs::weakly_canonical(kConfigs));
  ::setenv("LOCKSTEP_CONFIG_DIR", "/somewhere/else", 1);
  EXPECT_EQ(default_config_dir(), fs::path("/somewhere/else"));
  if (saved)
    ::setenv("LOCKSTEP_CONFIG_DIR", saved_value.c_str(), 1);
  else
    ::unsetenv("LOCKSTEP_CONFIG_DIR");
}

}  // namespace
}  // namespace lockstep
