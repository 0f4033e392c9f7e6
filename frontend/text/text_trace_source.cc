#include "frontend/text/text_trace_source.h"

#include "frontend/text/kernel_text_reader.h"

namespace lockstep {

TraceManifest read_text_manifest(const TextTraceLayout& layout, const WarningHandler& warn) {
  TraceManifest m;
  m.source = layout.source;
  m.commands = layout.commands;
  for (const KernelFileRef& f : layout.kernel_files) m.kernels.push_back(KernelTextReader(f, warn).info());
  return m;
}

TextTraceSource::TextTraceSource(const std::filesystem::path& input, WarningHandler warn, PartialTraces partial)
    : layout_(resolve_text_trace(input)), warn_(std::move(warn)), partial_(partial) {
  manifest_ = read_text_manifest(layout_, warn_);
  tables_.resize(manifest_.kernels.size());
  findings_.resize(manifest_.kernels.size());
}

std::vector<std::string> TextTraceSource::partial_trace() const {
  std::vector<std::string> all;
  for (const auto& kernel : findings_) all.insert(all.end(), kernel.begin(), kernel.end());
  return all;
}

namespace {

// After the last block, checks the kernel is whole and stores what is missing in `findings`.
class TextBlockCursor : public BlockCursor {
 public:
  TextBlockCursor(const KernelFileRef& file, StaticTable& table, const WarningHandler& warn, PartialTraces partial,
                  std::vector<std::string>& findings)
      : reader_(file, [](const std::string&) {}),  // header warnings were given once already
        table_(table),
        completeness_(reader_.info(), reader_.name()),
        warn_(warn),
        partial_(partial),
        findings_(findings) {}
  bool next(BlockTrace& out) override {
    if (checked_) return false;
    if (!reader_.next_block(text_)) {
      checked_ = true;
      findings_ = check_partial(completeness_.findings(), partial_, warn_);
      if (warn_)
        for (const std::string& note : dropped_field_notes(table_, reader_.name())) warn_(note);
      return false;
    }
    parse_block_text(text_, reader_.info(), reader_.name(), table_, out);
    completeness_.add(out, table_);
    return true;
  }

 private:
  KernelTextReader reader_;
  StaticTable& table_;
  BlockText text_;
  KernelCompleteness completeness_;
  const WarningHandler& warn_;
  PartialTraces partial_;
  std::vector<std::string>& findings_;
  bool checked_ = false;
};

}  // namespace

std::unique_ptr<BlockCursor> TextTraceSource::open_blocks(uint32_t kernel) {
  return std::make_unique<TextBlockCursor>(layout_.kernel_files.at(kernel), tables_.at(kernel), warn_, partial_,
                                           findings_.at(kernel));
}

}  // namespace lockstep
