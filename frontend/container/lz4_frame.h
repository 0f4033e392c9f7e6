#pragma once
// LZ4 frames as the container stores them: content checksum on (no block
// checksums), content size recorded. Level 0 is the fast compressor, 3..12 LZ4HC (same
// frame format; decoding speed does not depend on the level).
#include <cstddef>
#include <string>
#include <string_view>

namespace lockstep {

std::string lz4_compress_frame(std::string_view raw, int level = 0);

// Decompresses exactly one frame (trailing bytes are an error). Throws
// TraceError(where + ": ...") on a corrupt or truncated frame, a checksum
// mismatch, or content larger than max_size.
std::string lz4_decompress_frame(std::string_view frame, size_t max_size, const std::string& where);

// As above, into `out` (its capacity is reused).
void lz4_decompress_frame_into(std::string_view frame, size_t max_size, const std::string& where, std::string& out);

}  // namespace lockstep

namespace lockstep {

// The most content a well-formed frame of `frame_size` compressed bytes can
// hold (LZ4 expands at most ~255:1), capped at `cap`: a bound for
// lz4_decompress_frame that stops a corrupt size field from allocating wildly.
inline size_t lz4_max_content(size_t frame_size, size_t cap = size_t(1) << 32) {
  const size_t bound = frame_size > (cap >> 8) ? cap : frame_size * 256 + 4096;
  return bound < cap ? bound : cap;
}

}  // namespace lockstep
