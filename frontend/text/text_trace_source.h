#pragma once
// Reads an Accel-Sim text trace directly (no conversion), one block at a time.
#include <filesystem>
#include <vector>

#include "frontend/text/trace_layout.h"
#include "frontend/trace/trace_source.h"
#include "frontend/trace/warnings.h"

namespace lockstep {

class TextTraceSource : public TraceSource {
 public:
  // Reads every kernel's header up front; blocks are parsed as they are requested.
  TextTraceSource(const std::filesystem::path& input, WarningHandler warn = print_warning);

  const TraceManifest& manifest() const override { return manifest_; }
  const StaticTable& static_table(uint32_t kernel) override { return tables_.at(kernel); }
  std::unique_ptr<BlockCursor> open_blocks(uint32_t kernel) override;
  const TextTraceLayout& layout() const { return layout_; }

 private:
  TextTraceLayout layout_;
  TraceManifest manifest_;
  std::vector<StaticTable> tables_;
  WarningHandler warn_;
};

// Reads the headers of every kernel file of `layout` into a manifest.
TraceManifest read_text_manifest(const TextTraceLayout& layout, const WarningHandler& warn);

}  // namespace lockstep
