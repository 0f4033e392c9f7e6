#include "frontend/io/output_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>

#include "frontend/io/interrupt_cleanup.h"
#include "frontend/io/output_target.h"

namespace lockstep {
namespace fs = std::filesystem;

fs::path OutputDirectory::resolve(const std::string& name, const ReplaceCheck& check_replaceable) {
  if (name == "-") throw std::runtime_error("-: the output is a directory and cannot be standard output");
  if (name.empty()) throw std::runtime_error("empty output directory name");
  fs::path path = name;
  if (path.filename().empty()) path = path.parent_path();  // "out/" -> "out"
  path = follow_symlinks(path, name);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw std::runtime_error(name + ": exists and is not a directory");
    check_replaceable(path);
  }
  const fs::path parent = path.parent_path();
  check_writable_directory(parent.empty() ? fs::path(".") : parent, name);
  return path;
}

OutputDirectory::OutputDirectory(const std::string& name, ReplaceCheck check_replaceable)
    : name_(name), check_(std::move(check_replaceable)), path_(resolve(name, check_)) {
  temp_ = path_;
  temp_ += ".tmp-" + std::to_string(::getpid());
  InterruptCleanup::add(temp_);
  std::error_code ec;
  fs::remove_all(temp_, ec);
  if (!fs::create_directory(temp_, ec)) {
    InterruptCleanup::forget(temp_);
    throw std::runtime_error(name + ": cannot create " + temp_.string() + ": " + ec.message());
  }
}

OutputDirectory::~OutputDirectory() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(temp_, ec);
  InterruptCleanup::forget(temp_);
}

void OutputDirectory::commit() {
  std::error_code ec;
  if (fs::exists(path_)) {
    check_(path_);
    fs::remove_all(path_, ec);
    if (ec) throw std::runtime_error(name_ + ": cannot remove the old directory: " + ec.message());
  }
  fs::rename(temp_, path_, ec);
  if (ec) throw std::runtime_error(name_ + ": cannot rename " + temp_.string() + " into place: " + ec.message());
  InterruptCleanup::forget(temp_);
  committed_ = true;
}

}  // namespace lockstep
