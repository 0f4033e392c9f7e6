// libFuzzer target: any bytes as an Accel-Sim .tracez kernel trace. The
// reader must either hand out blocks the parser accepts or throw TraceError;
// anything else (crash, other exception, sanitizer report, runaway memory)
// is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/text/block_parser.h"
#include "frontend/text/kernel_text_reader.h"
#include "frontend/text/tracez_file.h"
#include "frontend/trace/trace_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    lockstep::TracezFile file(std::string(reinterpret_cast<const char*>(data), size), "fuzz.tracez");
    lockstep::KernelTextReader header(file.header_text(), "fuzz.tracez", nullptr, 256, 4096);
    lockstep::StaticTable table;
    lockstep::BlockText text;
    lockstep::BlockTrace block;
    while (file.next_block(text)) lockstep::parse_block_text(text, header.info(), "fuzz.tracez", table, block);
  } catch (const lockstep::TraceError&) {
  }
  return 0;
}
