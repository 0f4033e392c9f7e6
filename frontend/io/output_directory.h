#pragma once
// A directory output (export, gen): built in "<dir>.tmp-<pid>" beside its
// final place and renamed there by commit(), so a failed or interrupted
// command leaves no half-written directory. A symbolic link is followed and
// the directory it names is the one replaced; an existing file or node that
// is not a directory is an error, as is "-". The command decides what an
// existing directory may hold to be replaced (`check_replaceable`, called
// before the work and again before the rename). Destroyed without commit(),
// the temporary directory is removed (also on SIGINT/SIGTERM).
#include <filesystem>
#include <functional>
#include <string>

namespace lockstep {

class OutputDirectory {
 public:
  // Throws when `existing` (a directory) may not be replaced.
  using ReplaceCheck = std::function<void(const std::filesystem::path& existing)>;

  OutputDirectory(const std::string& name, ReplaceCheck check_replaceable);
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  // Where the files go until commit().
  const std::filesystem::path& temp() const { return temp_; }
  // The final directory (symbolic links followed).
  const std::filesystem::path& path() const { return path_; }
  void commit();

  // The checks of the constructor, creating nothing: for a command to call before its work.
  static std::filesystem::path resolve(const std::string& name, const ReplaceCheck& check_replaceable);

 private:
  std::string name_;
  ReplaceCheck check_;
  std::filesystem::path path_, temp_;
  bool committed_ = false;
};

}  // namespace lockstep
