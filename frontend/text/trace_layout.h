#pragma once
// Finds the pieces of an Accel-Sim text trace: a directory (kernelslist.g or
// the tracer's raw kernelslist), a kernelslist file, or a single kernel file
// (.traceg, .trace, optionally .xz). Parses the kernelslist's memcpy lines.
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/text/line_reader.h"
#include "frontend/trace/kernel_info.h"

namespace lockstep {

struct KernelFileRef {
  std::filesystem::path path;  // file to open
  std::string listed_name;     // as written in the kernelslist
};

struct TextTraceLayout {
  std::string source;
  std::vector<KernelFileRef> kernel_files;
  // Memcpys and kernel launches in list order; kernel_index indexes kernel_files.
  std::vector<TraceCommand> commands;
};

TextTraceLayout resolve_text_trace(const std::filesystem::path& input);
bool is_kernel_trace_file(const std::filesystem::path& path);
// Accel-Sim's zstd-compressed, indexed form (frontend/text/tracez_file.h).
bool is_tracez_file(const std::filesystem::path& path);
// Parses a kernelslist read line by line; `dir` resolves kernel file names.
TextTraceLayout parse_kernelslist(LineReader& lines, const std::filesystem::path& dir);
// The same for a kernelslist held in memory.
TextTraceLayout parse_kernelslist(std::string_view text, const std::string& name, const std::filesystem::path& dir);

}  // namespace lockstep
