#pragma once
// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib's crc32():
// crc32(p, n) of the whole buffer equals crc32(p + k, n - k, crc32(p, k)).
// Uses carry-less multiplication (PCLMULQDQ) where the CPU has it, slicing-by-8
// tables otherwise.
#include <cstddef>
#include <cstdint>

namespace lockstep {

uint32_t crc32(const void* data, size_t size, uint32_t seed = 0);

}  // namespace lockstep
