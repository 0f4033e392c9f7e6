#pragma once
// A .lst container -> a .lst container of this build's format version: every
// kernel's blocks read back whole and written again, group by group as they
// were stored, in segments of ConvertOptions::segment_insts. For files of an
// older format version (whose block index, in the footer, grows with the
// trace when opened) and to change the segment size, without going back to
// the text trace. A oneTBB pipeline (read in order, encode in parallel, write
// in order) keeps memory bounded by the groups in flight.
#include <filesystem>

#include "frontend/convert/converter.h"

namespace lockstep {

// Writes `output` atomically. A kernel converted with --allow-partial is
// refused unless options.partial allows it, as when the input is read, and
// its findings are kept.
ConvertReport repack_container(const std::filesystem::path& input, const std::filesystem::path& output,
                               const ConvertOptions& options = {});

}  // namespace lockstep
