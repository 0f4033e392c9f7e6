#include "frontend/convert/converter.h"

#include <tbb/global_control.h>
#include <tbb/parallel_pipeline.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "frontend/container/chunk_codec.h"
#include "frontend/container/container_writer.h"
#include "frontend/convert/pipeline_work.h"
#include "frontend/text/kernel_text_reader.h"
#include "frontend/text/text_trace_source.h"
#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

struct ChunkWork {
  uint32_t kernel = 0;
  bool ends_kernel = false;  // a marker item: write the kernel's table
  std::vector<BlockText> texts;
  StaticTable local;
  std::vector<BlockTrace> blocks;
  uint32_t first_block = 0;
  std::vector<EncodedChunk> encoded;  // the group's chunks (one per segment)
  void reset() {
    local = StaticTable();
    blocks.clear();
    encoded.clear();
  }
};

struct KernelState {
  KernelState(const KernelInfo& info, const std::string& file) : completeness(info, file) {}
  StaticTable table;
  uint32_t next_block = 0;
  KernelCompleteness completeness;
};

// The serial reading stage: walks kernels in order, gathering block texts.
class BlockTextFeed {
 public:
  BlockTextFeed(const TextTraceLayout& layout, const ConvertOptions& options) : layout_(layout), options_(options) {}

  // Fills `work` with the next item; false when every kernel has been read.
  bool fill(ChunkWork& work) {
    if (kernel_ >= layout_.kernel_files.size()) return false;
    work.kernel = kernel_;
    work.ends_kernel = false;
    if (end_owed_) {  // the kernel's blocks are all out: its end marker
      end_owed_ = false;
      work.ends_kernel = true;
      work.texts.clear();
      ++kernel_;
      return true;
    }
    if (!reader_)
      reader_ = std::make_unique<KernelTextReader>(layout_.kernel_files[kernel_], nullptr, options_.raw_group_budget);
    size_t used = 0, bytes = 0;
    while (bytes < options_.chunk_text_bytes) {
      if (used == work.texts.size()) work.texts.emplace_back();
      if (!reader_->next_block(work.texts[used])) {
        reader_.reset();
        end_owed_ = true;
        break;
      }
      bytes += work.texts[used++].text.size();
    }
    work.texts.resize(used);
    if (used == 0) return fill(work);  // an empty tail: go straight to the end marker
    return true;
  }

 private:
  const TextTraceLayout& layout_;
  const ConvertOptions& options_;
  uint32_t kernel_ = 0;
  std::unique_ptr<KernelTextReader> reader_;
  bool end_owed_ = false;
};

// Local static ids -> kernel table ids, preserving first appearance order.
void intern_into_kernel(ChunkWork& work, KernelState& kernel) {
  std::vector<uint32_t> map(work.local.size());
  for (uint32_t id = 0; id < work.local.size(); ++id) {
    StaticInstruction st = work.local.inst(id);
    st.opcode_id = kernel.table.intern_opcode(work.local.opcode(st.opcode_id));
    map[id] = kernel.table.intern(st);
  }
  for (BlockTrace& b : work.blocks) remap_static_ids(b, map);
}

}  // namespace

ConvertReport convert_text_trace(const std::filesystem::path& input, const std::filesystem::path& output,
                                 const ConvertOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const TextTraceLayout layout = resolve_text_trace(input);
  const TraceManifest manifest = read_text_manifest(layout, options.warn);

  const unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, jobs);

  ContainerWriter writer(output, {}, options.format_version);
  writer.write_header(manifest);

  ConvertReport report;
  report.kernels = uint32_t(manifest.kernels.size());
  for (const KernelFileRef& f : layout.kernel_files) report.input_bytes += std::filesystem::file_size(f.path);

  std::vector<KernelState> kernels;
  kernels.reserve(manifest.kernels.size());
  for (size_t k = 0; k < manifest.kernels.size(); ++k)
    kernels.emplace_back(manifest.kernels[k], layout.kernel_files[k].path.string());
  BlockTextFeed feed(layout, options);

  const size_t tokens = size_t(2 * jobs + 2);
  WorkPool<ChunkWork> pool(tokens);
  tbb::parallel_pipeline(
      tokens,
      tbb::make_filter<void, ChunkWork*>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> ChunkWork* {
                                           ChunkWork* w = pool.acquire();
                                           if (feed.fill(*w)) return w;
                                           pool.release(w);
                                           fc.stop();
                                           return nullptr;
                                         }) &
          tbb::make_filter<ChunkWork*, ChunkWork*>(tbb::filter_mode::parallel,
                                                   [&](ChunkWork* w) {
                                                     const KernelInfo& k = manifest.kernels[w->kernel];
                                                     const std::string file = layout.kernel_files[w->kernel].path.string();
                                                     w->blocks.resize(w->texts.size());
                                                     for (size_t i = 0; i < w->texts.size(); ++i)
                                                       parse_block_text(w->texts[i], k, file, w->local, w->blocks[i]);
                                                     return w;
                                                   }) &
          tbb::make_filter<ChunkWork*, ChunkWork*>(tbb::filter_mode::serial_in_order,
                                                   [&](ChunkWork* w) {
                                                     KernelState& ks = kernels[w->kernel];
                                                     intern_into_kernel(*w, ks);
                                                     for (const BlockTrace& b : w->blocks) ks.completeness.add(b, ks.table);
                                                     if (w->ends_kernel) {
                                                       writer.set_partial_trace(
                                                           w->kernel, check_partial(ks.completeness.findings(),
                                                                                    options.partial, options.warn));
                                                       if (options.warn)
                                                         for (const std::string& note : dropped_field_notes(
                                                                  ks.table, layout.kernel_files[w->kernel].path.string()))
                                                           options.warn(note);
                                                     }
                                                     w->first_block = ks.next_block;
                                                     ks.next_block += uint32_t(w->blocks.size());
                                                     return w;
                                                   }) &
          tbb::make_filter<ChunkWork*, ChunkWork*>(tbb::filter_mode::parallel,
                                                   [&](ChunkWork* w) {
                                                     if (!w->ends_kernel)
                                                       w->encoded = encode_block_group(
                                                           w->kernel, w->first_block, w->blocks,
                                                           kernels[w->kernel].table, options.segment_insts);
                                                     return w;
                                                   }) &
          tbb::make_filter<ChunkWork*, void>(tbb::filter_mode::serial_in_order, [&](ChunkWork* w) {
            if (w->ends_kernel) {
              writer.add_kernel_table(w->kernel, kernels[w->kernel].table);
            } else {
              write_group(writer, w->encoded, w->blocks.size(), report);
            }
            pool.release(w);
          }));

  commit_report(writer, start, report);
  return report;
}

}  // namespace lockstep
