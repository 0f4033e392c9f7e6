#pragma once
// The two kinds of frame a container holds, told apart by their magic:
//   LZ4 frames (content checksum, content size recorded) for the
//     block chunks and the footer: fast to decode, read over and over;
//   xz streams (LZMA2, CRC-32 check) for the header and the kernel tables:
//     read once per file or kernel, small, so worth compressing hard.
#include <cstddef>
#include <string>
#include <string_view>

namespace lockstep {

enum class FrameCodec {
  kLz4,    // LZ4 frame, fast compression
  kLz4Hc,  // LZ4 frame, high compression (same format, decodes as fast)
  kXz,     // xz stream
};

std::string compress_frame(std::string_view raw, FrameCodec codec);

// Decompresses one frame of either kind (trailing bytes are an error) into
// `out` (its capacity is reused). Throws TraceError(where + ": ...") on a
// corrupt or truncated frame, a checksum mismatch, or content larger than
// frame_max_content(frame.size()) or `max_size` if smaller.
void decompress_frame_into(std::string_view frame, const std::string& where, std::string& out,
                           size_t max_size = ~size_t(0));
std::string decompress_frame(std::string_view frame, const std::string& where, size_t max_size = ~size_t(0));
// For frames whose content the format bounds outright (the header and the
// kernel tables, ContainerLimits): up to `max_size` bytes whatever the frame's
// size, since a long kernel name or opcode compresses far beyond the ratio
// frame_max_content allows. Memory grows only as content is decoded.
void decompress_frame_to_limit(std::string_view frame, size_t max_size, const std::string& where, std::string& out);

// The most content a well-formed frame of `frame_size` bytes is allowed to
// hold: a bound that stops a corrupt size field from allocating wildly.
size_t frame_max_content(size_t frame_size);

std::string xz_compress(std::string_view raw);
void xz_decompress_into(std::string_view frame, size_t max_size, const std::string& where, std::string& out);
bool is_xz_frame(std::string_view frame);

}  // namespace lockstep
