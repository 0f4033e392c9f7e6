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
  ZeroedArray(const ZeroedArray& other) : data_(allocate(other.size_)), size_(other.size_) {
    if (size_ != 0) std::memcpy(static_cast<void*>(data_), other.data_, size_ * sizeof(T));
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
  static bool mapped(size_t n) { return n * sizeof(T) >= kMappedBytes; }
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
