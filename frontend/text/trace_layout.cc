#include "frontend/text/trace_layout.h"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "frontend/text/text_parse.h"
#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, std::string_view suffix) { return std::string_view(s).ends_with(suffix); }

MemcpyHtoD parse_memcpy(std::string_view line, const std::string& where) {
  // MemcpyHtoD,0x00007fb0fc400000,200000
  const size_t c1 = line.find(',');
  const size_t c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
  if (c2 == std::string_view::npos) throw TraceError(where + ": expected MemcpyHtoD,<address>,<bytes>");
  MemcpyHtoD m;
  if (!parse_hex_u64(trim(line.substr(c1 + 1, c2 - c1 - 1)), m.address))
    throw TraceError(where + ": bad memcpy address " + quoted_excerpt(line.substr(c1 + 1, c2 - c1 - 1)));
  if (!parse_dec_u64(trim(line.substr(c2 + 1)), m.bytes))
    throw TraceError(where + ": bad memcpy size " + quoted_excerpt(line.substr(c2 + 1)));
  return m;
}

// Whether the kernel trace `path` named in a kernelslist exists; a name the
// file system cannot look up (too long, ...) is a TraceError saying so at `where`.
bool listed_file_exists(const fs::path& path, const std::string& where) {
  std::error_code ec;
  const bool found = fs::exists(path, ec);
  if (ec) throw TraceError(where + ": cannot look up " + quoted_excerpt(path.filename().string()) + ": " + ec.message());
  return found;
}

}  // namespace

bool is_kernel_trace_file(const fs::path& path) {
  const std::string name = path.filename().string();
  return ends_with(name, ".traceg") || ends_with(name, ".traceg.xz") || ends_with(name, ".trace") ||
         ends_with(name, ".trace.xz") || is_tracez_file(path);
}

bool is_tracez_file(const fs::path& path) { return ends_with(path.filename().string(), ".tracez"); }

TextTraceLayout parse_kernelslist(std::string_view text, const std::string& name, const fs::path& dir) {
  LineReader lines(text, name);
  return parse_kernelslist(lines, dir);
}

TextTraceLayout parse_kernelslist(LineReader& lines, const fs::path& dir) {
  TextTraceLayout layout;
  layout.source = lines.name();
  std::string_view line;
  while (lines.next(line)) {
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.starts_with("Memcpy")) {
      if (!line.starts_with("MemcpyHtoD,")) throw TraceError(lines.where() + ": unknown command " + quoted_excerpt(line));
      TraceCommand c;
      c.kind = TraceCommand::Kind::kMemcpy;
      c.memcpy = parse_memcpy(line, lines.where());
      layout.commands.push_back(c);
      continue;
    }
    KernelFileRef ref;
    ref.listed_name = std::string(line);
    ref.path = dir / ref.listed_name;
    const std::string where = lines.where();
    if (!listed_file_exists(ref.path, where) && listed_file_exists(dir / (ref.listed_name + ".xz"), where))
      ref.path = dir / (ref.listed_name + ".xz");
    if (!listed_file_exists(ref.path, where)) throw TraceError(lines.where() + ": kernel trace " + quoted_excerpt(ref.listed_name) + " not found in " + dir.string());
    TraceCommand c;
    c.kind = TraceCommand::Kind::kKernel;
    c.kernel_index = uint32_t(layout.kernel_files.size());
    layout.kernel_files.push_back(std::move(ref));
    layout.commands.push_back(c);
  }
  return layout;
}

TextTraceLayout resolve_text_trace(const fs::path& input) {
  if (!fs::exists(input)) throw TraceError(input.string() + ": no such file or directory");
  fs::path list = input;
  if (fs::is_directory(input)) {
    list = input / "kernelslist.g";
    if (!fs::exists(list)) list = input / "kernelslist";
    if (!fs::exists(list)) {
      // The tracer names its raw list after the CUDA context
      // ("kernelslist_ctx_0x..."), one per context: the only one is read,
      // several are for the user to choose from.
      std::vector<std::string> lists;
      std::error_code ec;
      for (const fs::directory_entry& e : fs::directory_iterator(input, ec))
        if (e.path().filename().string().starts_with("kernelslist") && e.is_regular_file(ec))
          lists.push_back(e.path().filename().string());
      std::sort(lists.begin(), lists.end());
      if (lists.size() == 1) {
        list = input / lists[0];
      } else {
        std::string named;
        for (size_t i = 0; i < lists.size() && i < 4; ++i) named += (i ? ", " : "") + lists[i];
        if (lists.size() > 4) named += " and " + std::to_string(lists.size() - 4) + " more";
        throw TraceError(input.string() + ": no kernelslist.g (or raw kernelslist) in this directory" +
                         (lists.empty() ? std::string() : "; it has " + named + ": name the one to read"));
      }
    }
  } else if (is_kernel_trace_file(input)) {
    TextTraceLayout layout;
    layout.source = input.string();
    layout.kernel_files.push_back({input, input.filename().string()});
    layout.commands.push_back(TraceCommand{TraceCommand::Kind::kKernel, {}, 0});
    return layout;
  }
  LineReader lines(list);
  TextTraceLayout layout = parse_kernelslist(lines, list.parent_path());
  layout.source = input.string();
  if (layout.kernel_files.empty()) throw TraceError(list.string() + ": lists no kernel trace files");
  return layout;
}

}  // namespace lockstep
