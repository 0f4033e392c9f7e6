#pragma once
// One output file of the tool, written by the rules of output_target.h: a
// regular file through "<file>.tmp-<pid>" renamed into place by commit(), a
// device or FIFO directly, "-" to standard output. Destroyed without a
// successful commit() (an exception mid-write), it removes its temporary
// file and leaves the target as it was; on SIGINT/SIGTERM the temporary is
// removed too (interrupt_cleanup.h).
#include <cstdint>
#include <string>
#include <string_view>

#include "frontend/io/output_target.h"

namespace lockstep {

class OutputFile {
 public:
  // Resolves and checks `name` and opens it (a FIFO waits here for a reader).
  explicit OutputFile(const std::string& name);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Appends; throws std::runtime_error "NAME: write failed: ..." on error.
  void write(std::string_view bytes);
  // Completes the output: fsync, close and rename for a regular file.
  void commit();

  const std::string& name() const { return target_.name; }
  // The temporary name of a regular file's output until commit(), else empty.
  const std::string& temp_name() const { return temp_; }
  uint64_t bytes_written() const { return bytes_; }

 private:
  void discard() noexcept;

  OutputTarget target_;
  std::string temp_;  // the temporary name of a regular file's output
  int fd_ = -1;
  uint64_t bytes_ = 0;
  bool committed_ = false;
};

// The whole output at once: OutputFile, write, commit.
void write_output_file(const std::string& name, std::string_view contents);

}  // namespace lockstep
