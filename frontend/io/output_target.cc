#include "frontend/io/output_target.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace lockstep {
namespace fs = std::filesystem;

namespace {

std::string describe(const std::string& name, const fs::path& path) {
  return path.empty() || path == fs::path(name) ? name : name + " (-> " + path.string() + ")";
}

}  // namespace

fs::path follow_symlinks(const fs::path& path, const std::string& name) {
  fs::path p = path;
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    if (hops == 40) throw std::runtime_error(name + ": too many levels of symbolic links");
    std::error_code ec;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) throw std::runtime_error(describe(name, p) + ": cannot read the symbolic link: " + ec.message());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
}

void check_writable_directory(const fs::path& dir, const std::string& name) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    throw std::runtime_error(name + ": directory " + dir.string() + " does not exist");
  if (!S_ISDIR(st.st_mode)) throw std::runtime_error(name + ": " + dir.string() + " is not a directory");
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
    throw std::runtime_error(name + ": cannot create files in " + dir.string() + ": " + std::strerror(errno));
}

OutputTarget resolve_output(const std::string& name) {
  OutputTarget t;
  t.name = name;
  if (name == "-") return t;
  if (name.empty()) throw std::runtime_error("empty output file name");
  t.path = follow_symlinks(name, name);
  struct stat st;
  if (::stat(t.path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw std::runtime_error(describe(name, t.path) + ": " + std::strerror(errno));
    st.st_mode = S_IFREG;  // not there yet: created like a regular file
  }
  if (S_ISDIR(st.st_mode)) throw std::runtime_error(describe(name, t.path) + ": is a directory, not a file");
  if (S_ISSOCK(st.st_mode)) throw std::runtime_error(describe(name, t.path) + ": is a socket, not a file");
  if (S_ISREG(st.st_mode)) {
    t.kind = OutputTarget::Kind::kReplace;
    const fs::path parent = t.path.parent_path();
    check_writable_directory(parent.empty() ? fs::path(".") : parent, describe(name, t.path));
    return t;
  }
  t.kind = OutputTarget::Kind::kDirect;  // a device or a FIFO: opening a FIFO now would wait for a reader
  if (::faccessat(AT_FDCWD, t.path.c_str(), W_OK, AT_EACCESS) != 0)
    throw std::runtime_error(describe(name, t.path) + ": cannot open for writing: " + std::strerror(errno));
  return t;
}

}  // namespace lockstep
