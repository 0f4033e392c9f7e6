#include "frontend/io/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "frontend/io/interrupt_cleanup.h"

namespace lockstep {

OutputFile::OutputFile(const std::string& name) : target_(resolve_output(name)) {
  switch (target_.kind) {
    case OutputTarget::Kind::kStdout:
      std::fflush(stdout);  // what was printed comes first
      fd_ = STDOUT_FILENO;
      return;
    case OutputTarget::Kind::kDirect:
      fd_ = ::open(target_.path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd_ < 0) throw std::runtime_error(name + ": cannot open for writing: " + std::strerror(errno));
      return;
    case OutputTarget::Kind::kReplace:
      temp_ = target_.path.string() + ".tmp-" + std::to_string(::getpid());
      InterruptCleanup::add(temp_);
      fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
      if (fd_ < 0) {
        const int e = errno;
        InterruptCleanup::forget(temp_);
        throw std::runtime_error(name + ": cannot create " + temp_ + ": " + std::strerror(e));
      }
      return;
  }
}

OutputFile::~OutputFile() {
  if (!committed_) discard();
}

void OutputFile::discard() noexcept {
  if (fd_ >= 0 && !target_.is_stdout()) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    InterruptCleanup::forget(temp_);
    temp_.clear();
  }
}

void OutputFile::write(std::string_view bytes) {
  if (fd_ < 0) throw std::runtime_error(name() + ": write after the output was completed");
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(name() + ": write failed: " + std::strerror(errno));
    }
    p += n;
    left -= size_t(n);
    bytes_ += uint64_t(n);
  }
}

void OutputFile::commit() {
  if (committed_) return;
  if (target_.kind == OutputTarget::Kind::kReplace) {
    if (::fsync(fd_) != 0) throw std::runtime_error(name() + ": fsync failed: " + std::strerror(errno));
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw std::runtime_error(name() + ": close failed: " + std::strerror(errno));
    if (std::rename(temp_.c_str(), target_.path.c_str()) != 0)
      throw std::runtime_error(name() + ": cannot rename " + temp_ + " into place: " + std::strerror(errno));
    InterruptCleanup::forget(temp_);
    temp_.clear();
  } else if (target_.kind == OutputTarget::Kind::kDirect) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw std::runtime_error(name() + ": close failed: " + std::strerror(errno));
  } else {
    fd_ = -1;
  }
  committed_ = true;
}

void write_output_file(const std::string& name, std::string_view contents) {
  OutputFile out(name);
  out.write(contents);
  out.commit();
}

}  // namespace lockstep
