#pragma once
// Reads an Accel-Sim text trace directly (no conversion), one block at a time.
#include <filesystem>
#include <vector>

#include "frontend/text/trace_layout.h"
#include "frontend/trace/kernel_completeness.h"
#include "frontend/trace/trace_source.h"
#include "frontend/trace/warnings.h"

namespace lockstep {

class TextTraceSource : public TraceSource {
 public:
  // Reads every kernel's header up front; blocks are parsed as they are
  // requested, and a kernel whose blocks are all read is checked for being whole.
  TextTraceSource(const std::filesystem::path& input, WarningHandler warn = print_warning,
                  PartialTraces partial = PartialTraces::kReject);

  const TraceManifest& manifest() const override { return manifest_; }
  const StaticTable& static_table(uint32_t kernel) override { return tables_.at(kernel); }
  std::unique_ptr<BlockCursor> open_blocks(uint32_t kernel) override;
  const TextTraceLayout& layout() const { return layout_; }
  std::vector<std::string> partial_trace() const override;

 private:
  TextTraceLayout layout_;
  TraceManifest manifest_;
  std::vector<StaticTable> tables_;
  WarningHandler warn_;
  PartialTraces partial_;
  std::vector<std::vector<std::string>> findings_;  // per kernel, when its blocks were last read to the end
};

// Reads the headers of every kernel file of `layout` into a manifest.
TraceManifest read_text_manifest(const TextTraceLayout& layout, const WarningHandler& warn);

}  // namespace lockstep
