#pragma once
// Fixed parts of the .lst container layout (see proto/trace.proto):
//   FileHead : 8-byte magic "LSTRACE1", u32 format version, u32 reserved (16 bytes)
//   frames   : TraceHeader, BlockChunk..., KernelTable..., KernelBlocks..., TraceFooter
//   FileTail : u64 footer offset, u32 footer frame size, u32 footer crc32,
//              u32 format version, 8-byte magic "LSTEND01" (28 bytes)
// All integers little-endian.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace lockstep::container {

inline constexpr char kHeadMagic[8] = {'L', 'S', 'T', 'R', 'A', 'C', 'E', '1'};
inline constexpr char kTailMagic[8] = {'L', 'S', 'T', 'E', 'N', 'D', '0', '1'};
// Written: each kernel's chunk and block index in a frame of its own (3).
// Read: from version 1 (every block whole, the index in the footer);
// version 2 stores long blocks in segments, with the index in the footer.
inline constexpr uint32_t kFormatVersion = 3;
inline constexpr uint32_t kOldestFormatVersion = 1;
// The oldest version a writer can be asked for (ContainerWriter), for readers built before version 3.
inline constexpr uint32_t kOldestWritableVersion = 2;
inline constexpr size_t kHeadSize = 16;
inline constexpr size_t kTailSize = 28;

// The most content the header frame (TraceHeader: kernel names and header
// lines) and one kernel table frame (KernelTable) may hold, whatever their
// compression ratio. The writer refuses more, so that whatever it writes the
// reader reads back; the reader allocates no more on a corrupt frame.
struct Limits {
  size_t header_bytes = size_t(256) << 20;
  size_t table_bytes = size_t(256) << 20;
};

inline void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

struct FileTail {
  uint64_t footer_offset = 0;
  uint32_t footer_size = 0;
  uint32_t footer_crc = 0;
  uint32_t version = kFormatVersion;

  void write(unsigned char* p) const {
    put_u64(p, footer_offset);
    put_u32(p + 8, footer_size);
    put_u32(p + 12, footer_crc);
    put_u32(p + 16, version);
    std::memcpy(p + 20, kTailMagic, 8);
  }
};

}  // namespace lockstep::container
