#include "frontend/text/tracez_file.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>

#include "frontend/text/line_reader.h"
#include "frontend/text/text_writer.h"
#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

constexpr size_t kMaxHeaderBytes = size_t(1) << 20;
// A sub-chunk's lines, decompressed (Accel-Sim writes 2,048 instructions).
constexpr uint64_t kMaxSubchunkBytes = uint64_t(1) << 30;

uint32_t le32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t le64(const unsigned char* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

}  // namespace

TracezFile::TracezFile(const std::filesystem::path& path) : name_(path.string()) {
  file_.reset(std::fopen(path.c_str(), "rb"));
  if (!file_) throw TraceError(name_ + ": cannot open: " + std::strerror(errno));
  if (fseeko(file_.get(), 0, SEEK_END) != 0) fail("cannot seek");
  size_ = uint64_t(ftello(file_.get()));
  open();
}

TracezFile::TracezFile(std::string bytes, std::string name) : name_(std::move(name)), bytes_(std::move(bytes)) {
  size_ = bytes_.size();
  open();
}

void TracezFile::open() {
  // The header: text up to the first NUL byte.
  std::string head(std::min<uint64_t>(size_, kMaxHeaderBytes + 1), '\0');
  read_at(0, head.data(), head.size(), "kernel header");
  const size_t nul = head.find('\0');
  if (nul == std::string::npos) fail("no NUL byte ends the kernel header in its first 1 MB: not a .tracez file");
  header_ = head.substr(0, nul);
  uint64_t at = nul + 1;
  const uint32_t dict_size = u32_at(at, "dictionary size");
  at += 8;  // the dictionary size and the sub-chunk length
  if (dict_size > size_ - std::min(size_, at))
    fail("dictionary of " + std::to_string(dict_size) + " bytes runs past the end");
  dctx_.reset(ZSTD_createDCtx());
  if (!dctx_) fail("cannot create a zstd decoder");
  if (dict_size > 0) {
    std::string dict(dict_size, '\0');
    read_at(at, dict.data(), dict.size(), "dictionary");
    ddict_.reset(ZSTD_createDDict(dict.data(), dict.size()));
    if (!ddict_) fail("bad zstd dictionary");
  }
  at += dict_size;
  if (size_ < at + 8) fail("file ends before its index (truncated?)");
  data_begin_ = at;
  unsigned char tail[8];
  read_at(size_ - 8, tail, 8, "index offset");
  index_begin_ = le64(tail);
  if (index_begin_ < data_begin_ || index_begin_ > size_ - 8 - 4)
    fail("index offset " + std::to_string(index_begin_) + " outside the file's data (" + std::to_string(data_begin_) +
         " to " + std::to_string(size_ - 8) + " bytes)");
  blocks_ = u32_at(index_begin_, "block count");
  index_at_ = index_begin_ + 4;
  if (blocks_ > (size_ - 8 - index_at_) / 44)
    fail("index claims " + std::to_string(blocks_) + " blocks in " + std::to_string(size_ - 8 - index_begin_) +
         " bytes");
}

TracezFile::~TracezFile() = default;

void TracezFile::CloseFile::operator()(std::FILE* f) const { std::fclose(f); }
void TracezFile::FreeDCtx::operator()(ZSTD_DCtx_s* d) const { ZSTD_freeDCtx(d); }
void TracezFile::FreeDDict::operator()(ZSTD_DDict_s* d) const { ZSTD_freeDDict(d); }

void TracezFile::fail(const std::string& what) const { throw TraceError(name_ + ": " + what); }

void TracezFile::read_at(uint64_t offset, void* out, size_t bytes, const char* what) {
  if (offset > size_ || bytes > size_ - offset)
    fail(std::string(what) + " at byte " + std::to_string(offset) + " runs past the end of the file (truncated?)");
  if (!file_) {
    std::memcpy(out, bytes_.data() + offset, bytes);
    return;
  }
  if (fseeko(file_.get(), off_t(offset), SEEK_SET) != 0 || std::fread(out, 1, bytes, file_.get()) != bytes)
    fail(std::string("cannot read the ") + what + " at byte " + std::to_string(offset));
}

uint32_t TracezFile::u32_at(uint64_t offset, const char* what) {
  unsigned char b[4];
  read_at(offset, b, 4, what);
  return le32(b);
}

void TracezFile::read_block_record(Block& b) {
  const uint64_t end = size_ - 8;
  const std::string which = "block record " + std::to_string(next_) + " of the index";
  unsigned char f[44];
  if (end - index_at_ < 44) fail("index ends inside " + which + " (truncated?)");
  read_at(index_at_, f, 44, "block record");
  index_at_ += 44;
  const unsigned char* at = f;
  for (uint32_t* v : {&b.id.x, &b.id.y, &b.id.z, &b.cluster.id.x, &b.cluster.id.y, &b.cluster.id.z, &b.cluster.cta.x,
                      &b.cluster.cta.y, &b.cluster.cta.z, &b.cluster.rank}) {
    *v = le32(at);
    at += 4;
  }
  const uint32_t nw = le32(f + 40);
  if (nw > (end - index_at_) / 16) fail(which + " claims " + std::to_string(nw) + " warps");
  b.warps.resize(nw);
  for (Warp& w : b.warps) {
    unsigned char r[16];
    read_at(index_at_, r, 16, "warp record");
    index_at_ += 16;
    w.insts = le32(r);
    const uint32_t ns = le32(r + 4);
    w.offset = le64(r + 8);
    if (ns > (end - index_at_) / 4) fail("a warp of " + which + " claims " + std::to_string(ns) + " sub-chunks");
    if (w.offset < data_begin_ || w.offset >= index_begin_)
      fail("a warp of " + which + " starts at byte " + std::to_string(w.offset) + ", outside the file's data");
    w.subchunk_insts.resize(ns);
    if (ns > 0) {
      std::string counts(size_t(ns) * 4, '\0');
      read_at(index_at_, counts.data(), counts.size(), "sub-chunk counts");
      index_at_ += counts.size();
      uint64_t sum = 0;
      for (uint32_t k = 0; k < ns; ++k)
        sum += w.subchunk_insts[k] = le32(reinterpret_cast<const unsigned char*>(counts.data()) + 4 * k);
      if (sum != w.insts)
        fail("a warp of " + which + " has " + std::to_string(w.insts) + " instructions but its sub-chunks " +
             std::to_string(sum));
    } else if (w.insts != 0) {
      fail("a warp of " + which + " has " + std::to_string(w.insts) + " instructions but no sub-chunk");
    }
  }
}

void TracezFile::append_warp_lines(const Block& b, size_t w, std::string& text) {
  const Warp& warp = b.warps[w];
  const std::string where = "block " + b.id.str() + " warp " + std::to_string(w) + ": ";
  uint64_t at = warp.offset;
  if (u32_at(at, "warp header") != warp.insts || u32_at(at + 4, "warp header") != warp.subchunk_insts.size())
    fail(where + "its data's header disagrees with the index");
  at += 8;
  for (size_t s = 0; s < warp.subchunk_insts.size(); ++s) {
    const uint32_t csize = u32_at(at, "sub-chunk size");
    at += 4;
    if (csize > size_ - at)
      fail(where + "sub-chunk " + std::to_string(s) + " of " + std::to_string(csize) +
           " bytes runs past the end of the file");
    compressed_.resize(csize);
    read_at(at, compressed_.data(), csize, "sub-chunk");
    at += csize;
    const unsigned long long n = ZSTD_getFrameContentSize(compressed_.data(), compressed_.size());
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
      fail(where + "sub-chunk " + std::to_string(s) + " is not a zstd frame with its size");
    // Lines of at most kMaxLineBytes each (as in text files), 1 GB in all,
    // and no more than the frame's blocks can hold (each of at least 3 bytes
    // gives at most 128 KB), so a damaged size allocates nothing large.
    if (n > kMaxSubchunkBytes || n > (uint64_t(warp.subchunk_insts[s]) + 1) * LineReader::kMaxLineBytes ||
        n > (uint64_t(csize) / 3 + 1) * (uint64_t(128) << 10))
      fail(where + "sub-chunk " + std::to_string(s) + " claims " + std::to_string(n) + " bytes for " +
           std::to_string(warp.subchunk_insts[s]) + " lines");
    plain_.resize(size_t(n));
    const size_t got = ddict_ ? ZSTD_decompress_usingDDict(dctx_.get(), plain_.data(), plain_.size(),
                                                           compressed_.data(), compressed_.size(), ddict_.get())
                              : ZSTD_decompressDCtx(dctx_.get(), plain_.data(), plain_.size(), compressed_.data(),
                                                    compressed_.size());
    if (ZSTD_isError(got)) fail(where + "sub-chunk " + std::to_string(s) + ": " + ZSTD_getErrorName(got));
    if (got != n) fail(where + "sub-chunk " + std::to_string(s) + " decompresses short");
    const uint32_t lines =
        n == 0 ? 0 : uint32_t(std::count(plain_.begin(), plain_.end(), '\n') + (plain_.back() != '\n'));
    if (lines != warp.subchunk_insts[s])
      fail(where + "sub-chunk " + std::to_string(s) + " holds " + std::to_string(lines) +
           " lines where the index says " + std::to_string(warp.subchunk_insts[s]));
    text.append(plain_);
    if (!plain_.empty() && plain_.back() != '\n') text.push_back('\n');
  }
}

bool TracezFile::next_block(BlockText& out) {
  if (next_ == blocks_) {
    if (index_at_ != size_ - 8) fail(std::to_string(size_ - 8 - index_at_) + " bytes after the index's last record");
    return false;
  }
  read_block_record(block_);
  ++next_;
  const Block& b = block_;
  std::string& text = out.text;
  text.clear();
  out.numbered = false;
  out.first_line = 1;
  append_block_place(text, b.id, &b.cluster);  // (the index gives every block's place in its cluster)
  for (size_t w = 0; w < b.warps.size(); ++w) {
    text.append("warp = ").append(std::to_string(w)).push_back('\n');
    text.append("insts = ").append(std::to_string(b.warps[w].insts)).push_back('\n');
    append_warp_lines(b, w, text);
  }
  out.label = name_ + " (block " + std::to_string(b.id.x) + "," + std::to_string(b.id.y) + "," +
              std::to_string(b.id.z) + " as .traceg text)";
  return true;
}

}  // namespace lockstep
