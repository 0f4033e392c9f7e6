#include "frontend/container/lz4_frame.h"

#include <lz4frame.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

struct DctxDeleter {
  void operator()(LZ4F_dctx* d) const { LZ4F_freeDecompressionContext(d); }
};

// One decompression context per thread, reset before each frame.
LZ4F_dctx* thread_dctx() {
  thread_local std::unique_ptr<LZ4F_dctx, DctxDeleter> ctx = [] {
    LZ4F_dctx* d = nullptr;
    const size_t rc = LZ4F_createDecompressionContext(&d, LZ4F_VERSION);
    if (LZ4F_isError(rc)) throw TraceError(std::string("lz4: cannot create a decompression context: ") + LZ4F_getErrorName(rc));
    return std::unique_ptr<LZ4F_dctx, DctxDeleter>(d);
  }();
  return ctx.get();
}

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw TraceError(where + ": " + what); }

}  // namespace

std::string lz4_compress_frame(std::string_view raw, int level) {
  LZ4F_preferences_t prefs;
  std::memset(&prefs, 0, sizeof prefs);
  prefs.frameInfo.blockSizeID = LZ4F_max256KB;
  prefs.frameInfo.blockMode = LZ4F_blockLinked;
  prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  // No per-block checksums: the content checksum covers the whole frame, and
  // the container index keeps a CRC-32 of the compressed bytes.
  prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
  prefs.frameInfo.frameType = LZ4F_frame;
  prefs.frameInfo.contentSize = raw.size();
  prefs.compressionLevel = level;
  std::string out(LZ4F_compressFrameBound(raw.size(), &prefs), '\0');
  const size_t n = LZ4F_compressFrame(out.data(), out.size(), raw.data(), raw.size(), &prefs);
  if (LZ4F_isError(n)) throw TraceError(std::string("lz4: compression failed: ") + LZ4F_getErrorName(n));
  out.resize(n);
  return out;
}

void lz4_decompress_frame_into(std::string_view frame, size_t max_size, const std::string& where, std::string& out) {
  out.clear();
  LZ4F_dctx* dctx = thread_dctx();
  LZ4F_resetDecompressionContext(dctx);

  LZ4F_frameInfo_t info;
  std::memset(&info, 0, sizeof info);
  size_t consumed = frame.size();
  size_t hint = LZ4F_getFrameInfo(dctx, &info, frame.data(), &consumed);
  if (LZ4F_isError(hint)) {
    LZ4F_resetDecompressionContext(dctx);
    if (frame.size() < 7) fail(where, "truncated LZ4 frame (" + std::to_string(frame.size()) + " bytes)");
    fail(where, std::string("bad LZ4 frame header: ") + LZ4F_getErrorName(hint));
  }
  const bool known_size = info.contentSize != 0;
  if (known_size && info.contentSize > max_size)
    fail(where, "frame content size " + std::to_string(info.contentSize) + " exceeds the limit of " +
                    std::to_string(max_size) + " bytes");
  out.resize(known_size ? size_t(info.contentSize) : std::min<size_t>(max_size, 1 << 16));

  LZ4F_decompressOptions_t opts;
  std::memset(&opts, 0, sizeof opts);
  // A sized frame decodes into one buffer that never moves: LZ4 may keep its
  // history there instead of copying it aside.
  opts.stableDst = known_size ? 1 : 0;
  size_t src_pos = consumed;
  size_t dst_pos = 0;
  while (true) {
    // Only frames without a recorded size grow their buffer.
    if (dst_pos == out.size() && !known_size && out.size() < max_size) out.resize(std::min(max_size, out.size() * 2));
    size_t dst_len = out.size() - dst_pos;
    size_t src_len = frame.size() - src_pos;
    hint = LZ4F_decompress(dctx, out.data() + dst_pos, &dst_len, frame.data() + src_pos, &src_len, &opts);
    if (LZ4F_isError(hint)) {
      LZ4F_resetDecompressionContext(dctx);
      const std::string name = LZ4F_getErrorName(hint);
      // ERROR_contentChecksum_invalid, ERROR_blockChecksum_invalid
      if (name.find("Checksum_invalid") != std::string::npos) fail(where, "LZ4 checksum mismatch (" + name + ")");
      fail(where, "corrupt LZ4 frame (" + name + ")");
    }
    src_pos += src_len;
    dst_pos += dst_len;
    if (hint == 0) break;  // frame complete, checksums verified
    if (src_len == 0 && dst_len == 0) {  // no progress
      LZ4F_resetDecompressionContext(dctx);
      if (src_pos >= frame.size()) fail(where, "truncated LZ4 frame (" + std::to_string(frame.size()) + " bytes)");
      fail(where, known_size ? "LZ4 frame content larger than its recorded size"
                             : "LZ4 frame content exceeds the limit of " + std::to_string(max_size) + " bytes");
    }
  }
  if (src_pos != frame.size())
    fail(where, std::to_string(frame.size() - src_pos) + " unexpected bytes after the LZ4 frame");
  out.resize(dst_pos);
}

std::string lz4_decompress_frame(std::string_view frame, size_t max_size, const std::string& where) {
  std::string out;
  lz4_decompress_frame_into(frame, max_size, where, out);
  return out;
}

}  // namespace lockstep
