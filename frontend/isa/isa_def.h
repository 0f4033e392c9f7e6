#pragma once
// The ISA def of one SM version: which execution-unit class runs each SASS
// opcode and how the instruction behaves (InstKind). Read from
// configs/isa/sm_<N>.isa (format: configs/isa/README.md), extended from the
// command line with isa.extra. Resolved once per static instruction.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/isa/instruction_class.h"

namespace lockstep {

// "alu", "branch", "memory", "barrier", "membar", "exit", "depbar",
// "ldgdepbar", "nop" (case-insensitive); nullopt for anything else.
std::optional<InstKind> inst_kind_from_name(std::string_view name);

class IsaDef {
 public:
  struct Entry {
    std::string unit;  // unit class named in the GPU config; "MEM" = the LD/ST path
    InstKind kind = InstKind::kAlu;
    bool operator==(const Entry&) const = default;
  };

  // Parses one .isa file. The SM version is taken from a name "sm_<N>.isa"
  // (0 otherwise). Throws TraceError naming file:line on a malformed line.
  static IsaDef load(const std::filesystem::path& file);
  // <config_dir>/isa/sm_<sm>.isa; if absent, the nearest lower version of the
  // same major generation (sm_87 -> sm_86). Throws TraceError if there is none.
  static IsaDef for_binary_version(uint32_t sm, const std::filesystem::path& config_dir);

  // Adds or replaces entries: "OPC:UNIT" (kind alu) or "OPC:UNIT:KIND", several
  // separated by commas. Later entries win. Throws TraceError on bad syntax.
  void add_extra(std::string_view spec);

  // Exact opcode first, then with trailing ".SUFFIX"es dropped one by one down
  // to the base mnemonic (IMAD.WIDE.U32 -> IMAD.WIDE -> IMAD). nullptr if none.
  const Entry* find(std::string_view opcode) const;
  // As find(), but an unknown opcode throws TraceError:
  // "<where>: unknown opcode 'XYZ.W' for sm_80 (add it to <file> or pass --set isa.extra=XYZ:UNIT)".
  Entry resolve(std::string_view opcode, const std::string& where) const;

  // Distinct unit names of all entries, sorted (includes "MEM" if used).
  std::vector<std::string> unit_names() const;
  uint32_t sm_version() const { return sm_; }
  // The file the entries were read from (empty for a default-constructed def).
  const std::filesystem::path& source_file() const { return file_; }
  size_t size() const { return entries_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> entries_;
  uint32_t sm_ = 0;
  std::filesystem::path file_;
};

}  // namespace lockstep
