#pragma once
// Where a named output goes, decided before anything is written, and the
// rules every output of the tool follows:
//   "-"                      standard output;
//   a symbolic link          followed (also dangling ones and chains); the
//                            rules below apply to what it points at;
//   a regular file, or none  written to "<file>.tmp-<pid>" beside it and
//                            renamed over it when complete;
//   a device, a FIFO         written directly, never replaced;
//   a directory, a socket    an error (when the output is a file).
// resolve_output() also checks, creating nothing, that the output can be
// written: the directory exists and is writable, or the node can be opened
// for writing. Commands call it before their work, so an unwritable output is
// reported in the first second, not after the run.
#include <filesystem>
#include <string>

namespace lockstep {

struct OutputTarget {
  enum class Kind { kStdout, kReplace, kDirect };
  Kind kind = Kind::kStdout;
  std::string name;            // as given, for messages
  std::filesystem::path path;  // symlinks followed; empty for standard output
  bool is_stdout() const { return kind == Kind::kStdout; }
};

// Throws std::runtime_error "NAME: what is wrong" when the output cannot be written.
OutputTarget resolve_output(const std::string& name);

// `path` with every symbolic link in its last component followed (at most 40).
std::filesystem::path follow_symlinks(const std::filesystem::path& path, const std::string& name);

// Throws unless `dir` is an existing directory this process may create files in.
void check_writable_directory(const std::filesystem::path& dir, const std::string& name);

}  // namespace lockstep
