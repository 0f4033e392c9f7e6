#include "frontend/text/kernel_header.h"

#include "frontend/text/text_parse.h"
#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

Dim3 parse_dim3(std::string_view v, const std::string& where, const std::string& key) {
  // "(196,1,1)"
  v = trim(v);
  if (v.size() < 2 || v.front() != '(' || v.back() != ')')
    throw TraceError(where + ": " + key + ": expected (x,y,z), got " + quoted_excerpt(v));
  v = v.substr(1, v.size() - 2);
  uint32_t xyz[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    const size_t comma = v.find(',');
    if ((i < 2) != (comma != std::string_view::npos) || !parse_dec_u32(trim(v.substr(0, comma)), xyz[i]) || xyz[i] == 0)
      throw TraceError(where + ": " + key + ": expected three positive integers (x,y,z)");
    v = comma == std::string_view::npos ? std::string_view() : v.substr(comma + 1);
  }
  return Dim3{xyz[0], xyz[1], xyz[2]};
}

uint32_t parse_u32(std::string_view v, const std::string& where, const std::string& key) {
  uint32_t out = 0;
  if (!parse_dec_u32(trim(v), out)) throw TraceError(where + ": " + key + ": expected an unsigned integer, got " + quoted_excerpt(v));
  return out;
}

uint64_t parse_id(std::string_view v, const std::string& where, const std::string& key) {
  uint64_t out = 0;
  if (!parse_id64(trim(v), out))
    throw TraceError(where + ": " + key + ": expected a 64-bit integer, got " + quoted_excerpt(v));
  return out;
}

uint64_t parse_hex(std::string_view v, const std::string& where, const std::string& key) {
  uint64_t out = 0;
  if (!parse_hex_u64(trim(v), out)) throw TraceError(where + ": " + key + ": expected a hex address, got " + quoted_excerpt(v));
  return out;
}

}  // namespace

bool apply_header_field(KernelInfo& k, const std::string& key, const std::string& value, const std::string& where) {
  bool known = true;
  if (key == "kernel name") k.name = value;
  else if (key == "kernel id") k.kernel_id = parse_u32(value, where, key);
  else if (key == "grid dim") k.grid = parse_dim3(value, where, key);
  else if (key == "block dim") k.block = parse_dim3(value, where, key);
  else if (key == "shmem") k.shmem_bytes = parse_u32(value, where, key);
  else if (key == "nregs") k.nregs = parse_u32(value, where, key);
  else if (key == "binary version") k.binary_version = parse_u32(value, where, key);
  else if (key == "cuda stream id") k.cuda_stream_id = parse_id(value, where, key);
  else if (key == "shmem base_addr") k.shmem_base = parse_hex(value, where, key);
  else if (key == "local mem base_addr") k.local_base = parse_hex(value, where, key);
  else if (key == "nvbit version") k.nvbit_version = value;
  else if (key == "accelsim tracer version") k.tracer_version = parse_u32(value, where, key);
  else if (key == "enable lineinfo") k.lineinfo = parse_u32(value, where, key) != 0;
  else known = false;
  k.header_fields.emplace_back(key, value);
  return known;
}

void read_kernel_header(LineReader& lines, KernelInfo& k, std::string& first_body_line, const WarningHandler& warn) {
  first_body_line.clear();
  std::string_view line;
  while (lines.next(line)) {
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    if (t.front() == '#') {
      if (t.starts_with("#traces format")) k.format_comment = std::string(t);
      else if (t.starts_with("#BEGIN_TB")) {
        first_body_line = std::string(t);
        break;
      }
      continue;
    }
    if (t.front() != '-') {
      first_body_line = std::string(t);
      break;
    }
    const size_t eq = t.find('=');
    if (eq == std::string_view::npos) throw TraceError(lines.where() + ": header line without '=': " + quoted_excerpt(t));
    const std::string key(trim(t.substr(1, eq - 1)));
    const std::string value(trim(t.substr(eq + 1)));
    if (!apply_header_field(k, key, value, lines.where()) && warn)
      warn(lines.where() + ": unknown header key " + quoted_excerpt(key) + " (kept)");
  }
  if (k.header_fields.empty() && first_body_line.empty())
    throw TraceError(lines.name() + ": empty kernel trace (no header, no thread blocks)");
  if (!k.header_fields.empty()) {
    bool has_grid = false, has_block = false;
    for (const auto& f : k.header_fields) {
      has_grid |= f.first == "grid dim";
      has_block |= f.first == "block dim";
    }
    if (!has_grid || !has_block) throw TraceError(lines.name() + ": kernel header lacks '-grid dim' or '-block dim'");
  } else {
    throw TraceError(lines.name() + ": no kernel header ('-kernel name = ...' lines) before the first thread block");
  }
}

}  // namespace lockstep
