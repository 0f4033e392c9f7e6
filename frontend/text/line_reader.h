#pragma once
// Streams the lines of a text trace, plain or xz-compressed, in large buffers.
// Lines are returned without the trailing newline (and without '\r'); a view
// stays valid until the next call. Also reads from memory (for fuzzing/tests).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace lockstep {

class LineReader {
 public:
  // Opens `path`; ".xz" files are decompressed on the fly.
  explicit LineReader(const std::filesystem::path& path);
  // Reads lines from a memory buffer that must outlive the reader; `name` is used in errors.
  LineReader(std::string_view data, std::string name);
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

  std::string name_;
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
