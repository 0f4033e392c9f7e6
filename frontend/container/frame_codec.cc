#include "frontend/container/frame_codec.h"

#include <lzma.h>

#include <algorithm>
#include <cstring>

#include "frontend/container/lz4_frame.h"
#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

constexpr unsigned char kXzMagic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
// LZ4 levels: 0 is the fast compressor, 3..12 LZ4HC. On chunk streams level 6
// is within 0.5% of level 9's size at 60% of its time; the optimal parser
// (10..12) is slower still for a few tenths of a percent.
constexpr int kLz4HcLevel = 6;
constexpr uint32_t kXzMaxDict = uint32_t(8) << 20;
constexpr uint64_t kXzMemLimit = uint64_t(64) << 20;  // decoding our frames needs about the dictionary

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw TraceError(where + ": " + what); }

struct LzmaStream {
  lzma_stream s = LZMA_STREAM_INIT;
  ~LzmaStream() { lzma_end(&s); }
};

}  // namespace

bool is_xz_frame(std::string_view frame) {
  return frame.size() >= sizeof kXzMagic && std::memcmp(frame.data(), kXzMagic, sizeof kXzMagic) == 0;
}

size_t frame_max_content(size_t frame_size) {
  // LZ4 expands at most ~255:1; LZMA2 can expand more, but our frames are
  // columns and streams, never long runs of one byte.
  constexpr size_t cap = size_t(1) << 32;
  if (frame_size > (cap >> 12)) return cap;
  return std::min(cap, frame_size * 4096 + 65536);
}

std::string xz_compress(std::string_view raw) {
  lzma_options_lzma opt;
  if (lzma_lzma_preset(&opt, 9)) throw TraceError("xz: cannot set up the LZMA2 preset");
  // A dictionary larger than the input only costs memory and time; 8 MiB
  // (xz -6's) bounds what decoding needs.
  uint32_t dict = LZMA_DICT_SIZE_MIN;
  while (dict < raw.size() && dict < kXzMaxDict) dict *= 2;
  opt.dict_size = dict;
  lzma_filter filters[2] = {{LZMA_FILTER_LZMA2, &opt}, {LZMA_VLI_UNKNOWN, nullptr}};
  std::string out(lzma_stream_buffer_bound(raw.size()), '\0');
  size_t pos = 0;
  const lzma_ret r = lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, nullptr,
                                               reinterpret_cast<const uint8_t*>(raw.data()), raw.size(),
                                               reinterpret_cast<uint8_t*>(out.data()), &pos, out.size());
  if (r != LZMA_OK) throw TraceError("xz: compression failed (lzma error " + std::to_string(int(r)) + ")");
  out.resize(pos);
  return out;
}

void xz_decompress_into(std::string_view frame, size_t max_size, const std::string& where, std::string& out) {
  out.clear();
  LzmaStream st;
  if (lzma_stream_decoder(&st.s, kXzMemLimit, 0) != LZMA_OK) fail(where, "xz: cannot create a decoder");
  st.s.next_in = reinterpret_cast<const uint8_t*>(frame.data());
  st.s.avail_in = frame.size();
  out.resize(std::min(max_size, std::max<size_t>(4096, frame.size() * 4)));
  size_t pos = 0;
  while (true) {
    st.s.next_out = reinterpret_cast<uint8_t*>(out.data() + pos);
    st.s.avail_out = out.size() - pos;
    const lzma_ret r = lzma_code(&st.s, LZMA_FINISH);
    pos = out.size() - st.s.avail_out;
    if (r == LZMA_STREAM_END) break;
    if (r == LZMA_OK || r == LZMA_BUF_ERROR) {
      if (st.s.avail_out == 0) {
        if (out.size() >= max_size)
          fail(where, "xz frame content exceeds the limit of " + std::to_string(max_size) + " bytes");
        out.resize(std::min(max_size, out.size() * 2));
        continue;
      }
      if (r == LZMA_BUF_ERROR || st.s.avail_in == 0)
        fail(where, "truncated xz frame (" + std::to_string(frame.size()) + " bytes)");
      continue;
    }
    switch (r) {
      case LZMA_DATA_ERROR:
        fail(where, "corrupt xz frame (data error or checksum mismatch)");
      case LZMA_FORMAT_ERROR:
        fail(where, "bad xz frame header");
      case LZMA_OPTIONS_ERROR:
        fail(where, "corrupt xz frame (unsupported options)");
      case LZMA_MEMLIMIT_ERROR:
        fail(where, "xz frame needs more than " + std::to_string(kXzMemLimit >> 20) + " MiB to decode");
      default:
        fail(where, "corrupt xz frame (lzma error " + std::to_string(int(r)) + ")");
    }
  }
  if (st.s.avail_in != 0) fail(where, std::to_string(st.s.avail_in) + " unexpected bytes after the xz frame");
  out.resize(pos);
}

std::string compress_frame(std::string_view raw, FrameCodec codec) {
  switch (codec) {
    case FrameCodec::kXz:
      return xz_compress(raw);
    case FrameCodec::kLz4Hc:
      return lz4_compress_frame(raw, kLz4HcLevel);
    case FrameCodec::kLz4:
      break;
  }
  return lz4_compress_frame(raw, 0);
}

void decompress_frame_into(std::string_view frame, const std::string& where, std::string& out, size_t max_size) {
  const size_t limit = std::min(max_size, frame_max_content(frame.size()));
  if (is_xz_frame(frame))
    xz_decompress_into(frame, limit, where, out);
  else
    lz4_decompress_frame_into(frame, limit, where, out);
}

void decompress_frame_to_limit(std::string_view frame, size_t max_size, const std::string& where, std::string& out) {
  if (is_xz_frame(frame))
    xz_decompress_into(frame, max_size, where, out);
  else
    lz4_decompress_frame_into(frame, max_size, where, out);
}

std::string decompress_frame(std::string_view frame, const std::string& where, size_t max_size) {
  std::string out;
  decompress_frame_into(frame, where, out, max_size);
  return out;
}

}  // namespace lockstep
