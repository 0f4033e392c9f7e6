#pragma once
// Streams the lines of a text trace, plain or xz-compressed, in large buffers.
// Lines are returned without the trailing newline (and without '\r'); a view
// stays valid until the next call. Also reads from memory (for fuzzing/tests).
// A line longer than the limit (64 MiB unless given) is an error naming the
// file and line, raised before more than the limit is held in memory.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace lockstep {

class LineReader {
 public:
  static constexpr size_t kMaxLineBytes = size_t(64) << 20;

  // Opens `path`; ".xz" files are decompressed on the fly.
  explicit LineReader(const std::filesystem::path& path, size_t max_line = kMaxLineBytes);
  // Reads lines from a memory buffer that must outlive the reader; `name` is used in errors.
  LineReader(std::string_view data, std::string name, size_t max_line = kMaxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  bool next(std::string_view& line);
  uint64_t line_number() const { return line_no_; }  // of the line last returned
  const std::string& name() const { return name_; }
  // "name:line: " prefix for errors about the line last returned.
  std::string where() const { return name_ + ":" + std::to_string(line_no_); }

 private:
  class Source;
  bool refill();
  [[noreturn]] void line_too_long() const;

  std::string name_;
  size_t max_line_;
  std::unique_ptr<Source> source_;
  std::string buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  uint64_t line_no_ = 0;
  std::string_view memory_;
  bool from_memory_ = false;
};

bool is_xz_path(const std::filesystem::path& path);

}  // namespace lockstep
