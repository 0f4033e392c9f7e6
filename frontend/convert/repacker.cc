#include "frontend/convert/repacker.h"

#include <tbb/global_control.h>
#include <tbb/parallel_pipeline.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "frontend/container/chunk_codec.h"
#include "frontend/container/container_reader.h"
#include "frontend/container/container_writer.h"
#include "frontend/convert/pipeline_work.h"
#include "frontend/trace/kernel_completeness.h"

namespace lockstep {
namespace {

// One stored group of blocks, or (no blocks) the end of a kernel.
struct GroupWork {
  uint32_t kernel = 0;
  uint32_t first_block = 0;
  bool ends_kernel = false;
  std::vector<BlockTrace> blocks;
  std::vector<EncodedChunk> encoded;
  void reset() { encoded.clear(); }  // (the blocks' storage is decoded into again)
};

// Walks kernels and their groups in file order.
class GroupCursor {
 public:
  explicit GroupCursor(const ContainerReader& reader) : reader_(reader) {}
  // Fills `w` with the next group or kernel end; false when every kernel is done.
  bool next(GroupWork& w) {
    while (kernel_ < reader_.kernel_count()) {
      if (!index_) {
        index_ = reader_.block_index(kernel_);
        group_ = 0;
      }
      w.kernel = kernel_;
      w.encoded.clear();
      if (group_ < index_->groups.size()) {
        reader_.read_group(kernel_, group_, w.blocks, scratch_, ContainerReader::Parts::kWhole);
        w.first_block = index_->chunks[index_->groups[group_]].first_block;
        w.ends_kernel = false;
        ++group_;
      } else {
        w.blocks.clear();
        w.ends_kernel = true;
        index_.reset();
        ++kernel_;
      }
      return true;
    }
    return false;
  }

 private:
  const ContainerReader& reader_;
  ChunkScratch scratch_;
  uint32_t kernel_ = 0;
  uint32_t group_ = 0;
  std::shared_ptr<const KernelBlockIndex> index_;
};

}  // namespace

ConvertReport repack_container(const std::filesystem::path& input, const std::filesystem::path& output,
                               const ConvertOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const ContainerReader reader(input);
  const unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, jobs);

  std::vector<std::string> found;
  for (const std::string& f : reader.partial_trace()) found.push_back(input.string() + ": converted from " + f);
  check_partial(std::move(found), options.partial, options.warn);

  ContainerWriter writer(output, {}, options.format_version);
  writer.write_header(reader.manifest());
  ConvertReport report;
  report.kernels = reader.kernel_count();
  report.input_bytes = reader.file_size();

  const size_t tokens = size_t(2 * jobs + 2);
  WorkPool<GroupWork> pool(tokens);
  GroupCursor cursor(reader);
  tbb::parallel_pipeline(
      tokens,
      tbb::make_filter<void, GroupWork*>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> GroupWork* {
                                           GroupWork* w = pool.acquire();
                                           if (cursor.next(*w)) return w;
                                           pool.release(w);
                                           fc.stop();
                                           return nullptr;
                                         }) &
          tbb::make_filter<GroupWork*, GroupWork*>(tbb::filter_mode::parallel,
                                                   [&](GroupWork* w) {
                                                     if (!w->ends_kernel)
                                                       w->encoded = encode_block_group(
                                                           w->kernel, w->first_block, w->blocks,
                                                           reader.kernel_table(w->kernel), options.segment_insts);
                                                     return w;
                                                   }) &
          tbb::make_filter<GroupWork*, void>(tbb::filter_mode::serial_in_order, [&](GroupWork* w) {
            if (w->ends_kernel) {
              writer.add_kernel_table(w->kernel, reader.kernel_table(w->kernel));
              writer.set_partial_trace(w->kernel, reader.partial_trace(w->kernel));
            } else {
              write_group(writer, w->encoded, w->blocks.size(), report);
            }
            pool.release(w);
          }));

  commit_report(writer, start, report);
  return report;
}

}  // namespace lockstep
