// libFuzzer target: any bytes as a kernel trace file, and as a kernelslist.
// The parser must either accept them or throw TraceError; anything else
// (crash, other exception, sanitizer report, runaway memory) is a bug. Small
// limits (line length, raw grouping budget) make the fuzzer reach their paths.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontend/text/block_parser.h"
#include "frontend/text/kernel_text_reader.h"
#include "frontend/text/trace_layout.h"
#include "frontend/trace/kernel_completeness.h"
#include "frontend/trace/trace_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  constexpr size_t kMaxLine = 4096;
  try {
    // A tiny grouping budget so raw traces exercise the spill path too.
    lockstep::KernelTextReader reader(text, "fuzz.traceg", nullptr, 256, kMaxLine);
    lockstep::StaticTable table;
    lockstep::BlockText block_text;
    lockstep::BlockTrace block;
    lockstep::KernelCompleteness completeness(reader.info(), reader.name());
    while (reader.next_block(block_text)) {
      lockstep::parse_block_text(block_text, reader.info(), reader.name(), table, block);
      completeness.add(block, table);
    }
    lockstep::check_partial(completeness.findings(), lockstep::PartialTraces::kAllow, nullptr);
  } catch (const lockstep::TraceError&) {
  }
  try {
    lockstep::LineReader lines(text, "fuzz-kernelslist", kMaxLine);
    lockstep::parse_kernelslist(lines, "/nonexistent-fuzz-dir");
  } catch (const lockstep::TraceError&) {
  }
  return 0;
}
