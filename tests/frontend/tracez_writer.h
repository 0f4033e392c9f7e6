#pragma once
// Writes Accel-Sim .tracez kernel traces for tests (the layout in
// frontend/text/tracez_file.h), from a grouped .traceg's text.
#include <zstd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lockstep::test {

struct TracezBlock {
  uint32_t fields[9] = {};  // id x, y, z, cluster id x, y, z, cluster cta x, y, z
  uint32_t rank = 0;
  std::vector<std::vector<std::string>> warps;  // each warp's instruction lines
};

struct TracezText {
  std::string header;  // everything before the first #BEGIN_TB
  std::vector<TracezBlock> blocks;
};

// Splits a grouped .traceg's text (with or without cluster lines).
inline TracezText split_traceg(const std::string& text) {
  TracezText out;
  std::istringstream in(text);
  std::string line;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (!in_block && line.rfind("#BEGIN_TB", 0) != 0) {
      out.header += line + "\n";
      continue;
    }
    if (line.rfind("#BEGIN_TB", 0) == 0) {
      in_block = true;
      out.blocks.emplace_back();
    } else if (line.rfind("#END_TB", 0) == 0 || line.empty()) {
    } else if (line.rfind("thread block = ", 0) == 0) {
      std::sscanf(line.c_str(), "thread block = %u,%u,%u", &out.blocks.back().fields[0], &out.blocks.back().fields[1],
                  &out.blocks.back().fields[2]);
    } else if (line.rfind("cluster id = ", 0) == 0) {
      std::sscanf(line.c_str(), "cluster id = %u,%u,%u", &out.blocks.back().fields[3], &out.blocks.back().fields[4],
                  &out.blocks.back().fields[5]);
    } else if (line.rfind("cluster cta = ", 0) == 0) {
      std::sscanf(line.c_str(), "cluster cta = %u,%u,%u", &out.blocks.back().fields[6], &out.blocks.back().fields[7],
                  &out.blocks.back().fields[8]);
    } else if (line.rfind("cluster rank = ", 0) == 0) {
      std::sscanf(line.c_str(), "cluster rank = %u", &out.blocks.back().rank);
    } else if (line.rfind("warp = ", 0) == 0) {
      out.blocks.back().warps.emplace_back();
    } else if (line.rfind("insts = ", 0) == 0) {
    } else {
      out.blocks.back().warps.back().push_back(line);
    }
  }
  return out;
}

inline void put32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(char(v >> (8 * i)));
}
inline void put64(std::string& s, uint64_t v) {
  put32(s, uint32_t(v));
  put32(s, uint32_t(v >> 32));
}

// The file's bytes: sub-chunks of `subchunk` lines; with `dict`, every frame
// is compressed against it (a raw-content dictionary).
inline std::string tracez_bytes(const TracezText& t, uint32_t subchunk, const std::string& dict = "") {
  std::string f = t.header;
  f.push_back('\0');
  put32(f, uint32_t(dict.size()));
  put32(f, subchunk);
  f += dict;
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  std::string index;
  put32(index, uint32_t(t.blocks.size()));
  for (const TracezBlock& b : t.blocks) {
    for (uint32_t v : b.fields) put32(index, v);
    put32(index, b.rank);
    put32(index, uint32_t(b.warps.size()));
    for (const auto& w : b.warps) {
      const uint64_t offset = f.size();
      const uint32_t chunks = uint32_t((w.size() + subchunk - 1) / subchunk);
      put32(f, uint32_t(w.size()));
      put32(f, chunks);
      put32(index, uint32_t(w.size()));
      put32(index, chunks);
      put64(index, offset);
      for (size_t at = 0; at < w.size(); at += subchunk) {
        std::string text;
        for (size_t i = at; i < std::min(w.size(), at + subchunk); ++i) text += (i > at ? "\n" : "") + w[i];
        std::string out(ZSTD_compressBound(text.size()), '\0');
        const size_t n = dict.empty() ? ZSTD_compressCCtx(cctx, out.data(), out.size(), text.data(), text.size(), 3)
                                      : ZSTD_compress_usingDict(cctx, out.data(), out.size(), text.data(), text.size(),
                                                                dict.data(), dict.size(), 3);
        if (ZSTD_isError(n)) throw std::runtime_error(ZSTD_getErrorName(n));
        out.resize(n);
        put32(f, uint32_t(n));
        f += out;
        put32(index, uint32_t(std::min(w.size(), at + subchunk) - at));
      }
    }
  }
  ZSTD_freeCCtx(cctx);
  const uint64_t index_offset = f.size();
  f += index;
  put64(f, index_offset);
  return f;
}

}  // namespace lockstep::test
