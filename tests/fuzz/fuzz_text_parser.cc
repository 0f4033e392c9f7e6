// libFuzzer target: any bytes as a kernel trace file. The parser must either
// accept them or throw TraceError; anything else (crash, other exception,
// sanitizer report, runaway memory) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontend/text/block_parser.h"
#include "frontend/text/kernel_text_reader.h"
#include "frontend/trace/trace_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    // A tiny grouping budget so raw traces exercise the spill path too.
    lockstep::KernelTextReader reader(text, "fuzz.traceg", nullptr, 256);
    lockstep::StaticTable table;
    lockstep::BlockText block_text;
    lockstep::BlockTrace block;
    while (reader.next_block(block_text))
      lockstep::parse_block_text(block_text, reader.info(), reader.name(), table, block);
  } catch (const lockstep::TraceError&) {
  }
  return 0;
}
