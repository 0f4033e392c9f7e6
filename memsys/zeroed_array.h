#pragma once
// A fixed-size array of a type whose all-zero bytes are its empty state.
// An array of kMappedBytes or more is an anonymous memory mapping: the
// operating system hands it out as untouched zero pages, and a page costs
// memory (and a page fault) only once something is written into it (calloc
// would clear most such arrays byte by byte, as they come from the heap).
// Smaller ones come from calloc. A cache's tag and state arrays
// are mostly untouched in a short run (an L2 of tens of MB, an L1 per SM),
// so a run holds the pages it used, not the whole capacity, and starts
// without writing every byte of every array.
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace lockstep {

template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "ZeroedArray holds plain data whose all-zero bytes are its empty state");

 public:
  ZeroedArray() = default;
  static constexpr size_t kMappedBytes = size_t(16) << 10;

  explicit ZeroedArray(size_t n) : data_(allocate(n)), size_(n) {}
  // A mapped copy writes only the source's pages that hold a non-zero byte:
  // the others stay untouched zero pages in the copy too (and reading an
  // untouched source page costs no memory either).
  ZeroedArray(const ZeroedArray& other) : data_(allocate(other.size_)), size_(other.size_) {
    if (size_ == 0) return;
    const size_t bytes = size_ * sizeof(T);
    if (!mapped(size_)) {
      std::memcpy(static_cast<void*>(data_), other.data_, bytes);
      return;
    }
    const unsigned char* from = reinterpret_cast<const unsigned char*>(other.data_);
    unsigned char* to = reinterpret_cast<unsigned char*>(data_);
    for (size_t at = 0; at < bytes; at += kPageBytes) {
      const size_t n = std::min(kPageBytes, bytes - at);
      if (!all_zero(from + at, n)) std::memcpy(to + at, from + at, n);
    }
  }
  ZeroedArray(ZeroedArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  ZeroedArray& operator=(ZeroedArray other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~ZeroedArray() { release(data_, size_); }

  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  // Every element back to all-zero bytes (this touches every page).
  void clear_all() {
    if (size_ != 0) std::memset(static_cast<void*>(data_), 0, size_ * sizeof(T));
  }

 private:
  static constexpr size_t kPageBytes = 4096;
  static bool mapped(size_t n) { return n * sizeof(T) >= kMappedBytes; }
  static bool all_zero(const unsigned char* p, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w != 0) return false;
    }
    for (; i < n; ++i)
      if (p[i] != 0) return false;
    return true;
  }
  static T* allocate(size_t n) {
    if (n == 0) return nullptr;
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    void* p = nullptr;
    if (mapped(n)) {
      p = ::mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
    } else {
      p = std::calloc(n, sizeof(T));
      if (p == nullptr) throw std::bad_alloc();
    }
    return static_cast<T*>(p);
  }
  static void release(T* p, size_t n) {
    if (p == nullptr) return;
    if (mapped(n)) ::munmap(p, n * sizeof(T));
    else std::free(p);
  }

  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace lockstep
