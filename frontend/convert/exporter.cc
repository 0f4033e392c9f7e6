#include "frontend/convert/exporter.h"

#include <cstdio>

#include "frontend/io/output_directory.h"
#include "frontend/text/text_writer.h"
#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace fs = std::filesystem;

namespace {

// Exported kernels are always grouped, uncompressed .traceg files.
KernelInfo exported_info(const KernelInfo& in) {
  KernelInfo k = in;
  std::string name = k.source_file;
  if (name.ends_with(".xz")) name.resize(name.size() - 3);
  if (name.ends_with(".trace")) name += "g";
  if (name.ends_with(".tracez")) name.back() = 'g';
  if (!name.ends_with(".traceg")) name = "kernel-" + std::to_string(k.kernel_id) + ".traceg";
  k.source_file = name;
  k.raw_tracer_output = false;
  return k;
}

class OutFile {
 public:
  explicit OutFile(const fs::path& path) : path_(path), file_(std::fopen(path.c_str(), "wb")) {
    if (!file_) throw TraceError(path.string() + ": cannot create");
  }
  ~OutFile() {
    if (file_) std::fclose(file_);
  }
  std::FILE* get() { return file_; }
  void close() {
    const bool bad = std::fclose(file_) != 0;
    file_ = nullptr;
    if (bad) throw TraceError(path_.string() + ": write failed");
  }

 private:
  fs::path path_;
  std::FILE* file_;
};

// Export replaces only an empty directory.
void check_empty(const fs::path& dir) {
  if (!fs::is_empty(dir)) throw TraceError(dir.string() + ": already exists and is not an empty directory");
}

}  // namespace

void check_export_output(const fs::path& dir) { OutputDirectory::resolve(dir.string(), check_empty); }

ExportReport export_text_trace(TraceSource& trace, const fs::path& dir) {
  OutputDirectory out(dir.string(), check_empty);
  const fs::path& tmp = out.temp();
  ExportReport report;
  TraceManifest manifest = trace.manifest();
  for (uint32_t k = 0; k < manifest.kernels.size(); ++k) {
    const KernelInfo info = exported_info(manifest.kernels[k]);
    manifest.kernels[k].source_file = info.source_file;
    OutFile file(tmp / info.source_file);
    {
      TextSink sink(file.get(), (tmp / info.source_file).string());
      write_kernel_header(sink, info);
      auto cursor = trace.open_blocks(k);
      BlockTrace block;
      while (cursor->next(block)) {
        write_block_text(sink, info, block, trace.static_table(k));
        ++report.blocks;
        report.warp_insts += block.warp_insts();
      }
      sink.flush();
    }
    file.close();
    report.bytes += fs::file_size(tmp / info.source_file);
    ++report.kernels;
  }
  OutFile list(tmp / "kernelslist.g");
  {
    TextSink sink(list.get(), (tmp / "kernelslist.g").string());
    write_kernelslist(sink, manifest);
    sink.flush();
  }
  list.close();
  out.commit();
  return report;
}

}  // namespace lockstep
