#include "frontend/text/line_reader.h"

#include <lzma.h>

#include <algorithm>
#include <cstring>

#include "frontend/trace/trace_error.h"

namespace lockstep {

bool is_xz_path(const std::filesystem::path& path) { return path.extension() == ".xz"; }

// A byte source: a plain file or an xz stream over a file.
class LineReader::Source {
 public:
  Source(const std::filesystem::path& path, std::string name) : name_(std::move(name)), xz_(is_xz_path(path)) {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) throw TraceError(name_ + ": cannot open: " + std::strerror(errno));
    if (xz_) {
      if (lzma_stream_decoder(&strm_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
        throw TraceError(name_ + ": cannot start xz decoder");
      in_.resize(1 << 16);
    }
  }
  ~Source() {
    if (xz_) lzma_end(&strm_);
    if (file_) std::fclose(file_);
  }
  // Reads up to `cap` bytes into `out`; returns 0 at the end of the data.
  size_t read(char* out, size_t cap) {
    if (!xz_) {
      const size_t n = std::fread(out, 1, cap, file_);
      if (n == 0 && std::ferror(file_)) throw TraceError(name_ + ": read error");
      return n;
    }
    if (done_) return 0;
    strm_.next_out = reinterpret_cast<uint8_t*>(out);
    strm_.avail_out = cap;
    while (strm_.avail_out == cap) {
      lzma_action action = LZMA_RUN;
      if (strm_.avail_in == 0 && !in_eof_) {
        strm_.avail_in = std::fread(in_.data(), 1, in_.size(), file_);
        strm_.next_in = reinterpret_cast<const uint8_t*>(in_.data());
        if (std::ferror(file_)) throw TraceError(name_ + ": read error");
        if (strm_.avail_in == 0) in_eof_ = true;
      }
      if (in_eof_) action = LZMA_FINISH;
      const lzma_ret ret = lzma_code(&strm_, action);
      if (ret == LZMA_STREAM_END) {
        done_ = true;
        break;
      }
      if (ret != LZMA_OK) {
        const char* why = ret == LZMA_BUF_ERROR    ? "truncated xz stream"
                          : ret == LZMA_DATA_ERROR ? "corrupt xz data"
                          : ret == LZMA_FORMAT_ERROR ? "not an xz file"
                          : ret == LZMA_MEM_ERROR    ? "out of memory in xz decoder"
                                                     : "xz decoder error";
        throw TraceError(name_ + ": " + why + " (after " + std::to_string(strm_.total_out) + " decompressed bytes)");
      }
    }
    return cap - strm_.avail_out;
  }

 private:
  std::string name_;
  bool xz_;
  std::FILE* file_ = nullptr;
  lzma_stream strm_ = LZMA_STREAM_INIT;
  std::string in_;
  bool in_eof_ = false;
  bool done_ = false;
};

LineReader::LineReader(const std::filesystem::path& path, size_t max_line)
    : name_(path.string()), max_line_(max_line), source_(std::make_unique<Source>(path, path.string())) {
  buf_.resize(std::min(size_t(1) << 20, max_line_ + 1));
}

LineReader::LineReader(std::string_view data, std::string name, size_t max_line)
    : name_(std::move(name)), max_line_(max_line), memory_(data), from_memory_(true) {}

void LineReader::line_too_long() const {
  const std::string limit = max_line_ % (size_t(1) << 20) == 0 ? std::to_string(max_line_ >> 20) + " MiB"
                                                               : std::to_string(max_line_) + " bytes";
  throw TraceError(name_ + ":" + std::to_string(line_no_ + 1) + ": line longer than " + limit +
                   " (the limit for one line; not a text trace?)");
}

LineReader::~LineReader() = default;

bool LineReader::refill() {
  if (eof_) return false;
  // Keep the unfinished line, grow the buffer if one line fills it (up to
  // the longest line allowed and its newline).
  const size_t keep = end_ - pos_;
  if (keep) std::memmove(buf_.data(), buf_.data() + pos_, keep);
  pos_ = 0;
  end_ = keep;
  if (end_ == buf_.size()) {
    if (end_ > max_line_) line_too_long();
    buf_.resize(std::min(buf_.size() * 2, max_line_ + 1));
  }
  const size_t n = source_->read(buf_.data() + end_, buf_.size() - end_);
  if (n == 0) eof_ = true;
  end_ += n;
  return n > 0;
}

bool LineReader::next(std::string_view& line) {
  if (from_memory_) {
    if (memory_.empty()) return false;
    const size_t nl = memory_.find('\n');
    line = memory_.substr(0, nl);
    if (line.size() > max_line_) line_too_long();
    memory_ = nl == std::string_view::npos ? std::string_view() : memory_.substr(nl + 1);
  } else {
    for (;;) {
      const char* start = buf_.data() + pos_;
      const void* nl = std::memchr(start, '\n', end_ - pos_);
      if (nl) {
        const size_t len = static_cast<const char*>(nl) - start;
        line = std::string_view(start, len);
        pos_ += len + 1;
        break;
      }
      if (!refill()) {
        if (pos_ == end_) return false;
        line = std::string_view(buf_.data() + pos_, end_ - pos_);  // last line without newline
        pos_ = end_;
        break;
      }
    }
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++line_no_;
  return true;
}

}  // namespace lockstep
