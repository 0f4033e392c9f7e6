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

TextTraceSource::TextTraceSource(const std::filesystem::path& input, WarningHandler warn)
    : layout_(resolve_text_trace(input)), warn_(std::move(warn)) {
  manifest_ = read_text_manifest(layout_, warn_);
  tables_.resize(manifest_.kernels.size());
}

namespace {

class TextBlockCursor : public BlockCursor {
 public:
  TextBlockCursor(const KernelFileRef& file, StaticTable& table, const WarningHandler& warn)
      : reader_(file, [](const std::string&) {}), table_(table) {}  // header warnings were given once already
  bool next(BlockTrace& out) override {
    if (!reader_.next_block(text_)) return false;
    parse_block_text(text_, reader_.info(), reader_.name(), table_, out);
    return true;
  }

 private:
  KernelTextReader reader_;
  StaticTable& table_;
  BlockText text_;
};

}  // namespace

std::unique_ptr<BlockCursor> TextTraceSource::open_blocks(uint32_t kernel) {
  return std::make_unique<TextBlockCursor>(layout_.kernel_files.at(kernel), tables_.at(kernel), warn_);
}

}  // namespace lockstep
