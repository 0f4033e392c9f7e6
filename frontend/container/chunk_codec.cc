#include "frontend/container/chunk_codec.h"

#include <bit>
#include <limits>

#include "frontend/container/lz4_frame.h"
#include "frontend/trace/trace_error.h"
#include "trace.pb.h"

namespace lockstep {
namespace {

std::string serialize(const google::protobuf::MessageLite& msg, const char* what) {
  std::string raw;
  if (!msg.SerializeToString(&raw)) throw TraceError(std::string("cannot serialize ") + what);
  return raw;
}

[[noreturn]] void encode_fail(uint32_t kernel, uint32_t block_ordinal, size_t warp, size_t inst, const std::string& what) {
  throw TraceError("encode_chunk: kernel " + std::to_string(kernel) + " block " + std::to_string(block_ordinal) +
                   " warp " + std::to_string(warp) + " inst " + std::to_string(inst) + ": " + what);
}

void encode_warp(const WarpTrace& w, const StaticTable& table, uint32_t table_size, proto::WarpStream& ws,
                 EncodedChunk& chunk, uint32_t block_ordinal, size_t warp_pos) {
  const size_t n = w.insts.size();
  if (n > std::numeric_limits<uint32_t>::max())
    encode_fail(chunk.kernel_index, block_ordinal, warp_pos, 0, "too many instructions in one warp");
  ws.set_warp_id(w.warp_id);
  ws.set_num_insts(uint32_t(n));
  auto* ids = ws.mutable_static_ids();
  ids->Reserve(int(n));
  uint32_t prev_id = 0;
  uint64_t prev_base = 0;
  uint32_t run_mask = 0;
  uint32_t run_len = 0;
  for (size_t i = 0; i < n; ++i) {
    const WarpInstruction& wi = w.insts[i];
    if (wi.static_id >= table_size)
      encode_fail(chunk.kernel_index, block_ordinal, warp_pos, i,
                  "static id " + std::to_string(wi.static_id) + " outside the table (" + std::to_string(table_size) +
                      " entries)");
    ids->AddAlreadyReserved(int32_t(wi.static_id - prev_id));  // wraps; decoding wraps back
    prev_id = wi.static_id;
    if (run_len > 0 && wi.active_mask == run_mask) {
      ++run_len;
    } else {
      if (run_len > 0) {
        ws.add_mask_runs(run_len);
        ws.add_masks(run_mask);
      }
      run_mask = wi.active_mask;
      run_len = 1;
    }
    const uint32_t lanes = uint32_t(std::popcount(wi.active_mask));
    ++chunk.static_counts[wi.static_id];
    chunk.thread_insts += lanes;
    if (!table.inst(wi.static_id).is_memory()) continue;
    ++chunk.mem_insts;
    if (lanes == 0) continue;
    if (uint64_t(wi.addr_begin) + lanes > w.addrs.size())
      encode_fail(chunk.kernel_index, block_ordinal, warp_pos, i,
                  "addresses " + std::to_string(wi.addr_begin) + "+" + std::to_string(lanes) + " beyond the warp's " +
                      std::to_string(w.addrs.size()));
    const uint64_t* a = w.addrs.data() + wi.addr_begin;
    const int64_t dbase = int64_t(a[0] - prev_base);
    prev_base = a[0];
    if (lanes == 1) {
      ws.add_addr_kinds(1);
      ws.add_addr_values(dbase);
      continue;
    }
    const int64_t stride = int64_t(a[1] - a[0]);
    bool uniform = true;
    for (uint32_t k = 2; k < lanes && uniform; ++k) uniform = int64_t(a[k] - a[k - 1]) == stride;
    ws.add_addr_values(dbase);
    if (uniform) {
      ws.add_addr_kinds(0);
      ws.add_addr_values(stride);
    } else {
      ws.add_addr_kinds(1);
      for (uint32_t k = 1; k < lanes; ++k) ws.add_addr_values(int64_t(a[k] - a[k - 1]));
    }
  }
  if (run_len > 0) {
    ws.add_mask_runs(run_len);
    ws.add_masks(run_mask);
  }
  chunk.warp_insts += n;
}

[[noreturn]] void decode_fail(const std::string& where, size_t block, size_t warp, const std::string& what) {
  throw TraceError(where + ": block " + std::to_string(block) + " warp " + std::to_string(warp) + ": " + what);
}

// The hot path: one warp's stream into `wt`, reusing its vectors.
void decode_warp(const proto::WarpStream& ws, const StaticTable& table, uint32_t table_size, WarpTrace& wt,
                 const std::string& where, size_t block, size_t warp) {
  const uint32_t n = ws.num_insts();
  if (uint32_t(ws.static_ids_size()) != n)
    decode_fail(where, block, warp,
                std::to_string(ws.static_ids_size()) + " static ids for " + std::to_string(n) + " instructions");
  if (ws.mask_runs_size() != ws.masks_size())
    decode_fail(where, block, warp,
                std::to_string(ws.mask_runs_size()) + " mask runs but " + std::to_string(ws.masks_size()) + " masks");
  const size_t nk = size_t(ws.addr_kinds_size());
  const size_t nv = size_t(ws.addr_values_size());
  // Every address record yields at most 32 addresses: bound the total so addr_begin cannot overflow.
  if (nk > std::numeric_limits<uint32_t>::max() / 32)
    decode_fail(where, block, warp, "too many address records (" + std::to_string(nk) + ")");

  wt.warp_id = ws.warp_id();
  wt.insts.resize(n);
  std::vector<uint64_t>& addrs = wt.addrs;
  if (addrs.size() < 64) addrs.resize(64);
  size_t na = 0;

  const int32_t* sid = ws.static_ids().data();
  const uint32_t* runs = ws.mask_runs().data();
  const uint32_t* masks = ws.masks().data();
  const uint32_t* kinds = ws.addr_kinds().data();
  const int64_t* vals = ws.addr_values().data();
  const size_t nruns = size_t(ws.mask_runs_size());
  WarpInstruction* out = wt.insts.data();

  size_t i = 0, ki = 0, vi = 0;
  uint32_t prev = 0;
  uint64_t prev_base = 0;
  for (size_t r = 0; r < nruns; ++r) {
    const uint32_t run = runs[r];
    const uint32_t mask = masks[r];
    if (run == 0 || run > n - i)
      decode_fail(where, block, warp,
                  "mask run " + std::to_string(r) + " of length " + std::to_string(run) + " does not fit " +
                      std::to_string(n) + " instructions");
    const uint32_t lanes = uint32_t(std::popcount(mask));
    for (const size_t end = i + run; i < end; ++i) {
      const uint32_t id = prev + uint32_t(sid[i]);
      prev = id;
      if (id >= table_size)
        decode_fail(where, block, warp,
                    "instruction " + std::to_string(i) + ": static id " + std::to_string(id) +
                        " outside the kernel table (" + std::to_string(table_size) + " entries)");
      WarpInstruction& wi = out[i];
      wi.static_id = id;
      wi.active_mask = mask;
      wi.addr_begin = uint32_t(na);
      if (lanes == 0 || !table.inst(id).is_memory()) continue;
      if (ki >= nk)
        decode_fail(where, block, warp,
                    "instruction " + std::to_string(i) + ": more memory instructions than address records (" +
                        std::to_string(nk) + ")");
      const uint32_t kind = kinds[ki++];
      const size_t need = kind == 0 ? 2 : lanes;
      if (kind > 1) decode_fail(where, block, warp, "instruction " + std::to_string(i) + ": unknown address kind " + std::to_string(kind));
      if (nv - vi < need)
        decode_fail(where, block, warp, "instruction " + std::to_string(i) + ": address values run out");
      if (na + 32 > addrs.size()) addrs.resize(addrs.size() * 2);
      uint64_t* a = addrs.data() + na;
      uint64_t addr = prev_base + uint64_t(vals[vi]);
      prev_base = addr;
      a[0] = addr;
      if (kind == 0) {
        const uint64_t stride = uint64_t(vals[vi + 1]);
        for (uint32_t k = 1; k < lanes; ++k) a[k] = (addr += stride);
      } else {
        const int64_t* d = vals + vi;
        for (uint32_t k = 1; k < lanes; ++k) a[k] = (addr += uint64_t(d[k]));
      }
      vi += need;
      na += lanes;
    }
  }
  if (i != n)
    decode_fail(where, block, warp,
                "mask runs cover " + std::to_string(i) + " of " + std::to_string(n) + " instructions");
  if (ki != nk || vi != nv)
    decode_fail(where, block, warp,
                "unused address records (" + std::to_string(nk - ki) + " kinds, " + std::to_string(nv - vi) +
                    " values left)");
  addrs.resize(na);
}

}  // namespace

EncodedChunk encode_chunk(uint32_t kernel_index, uint32_t first_block, std::span<const BlockTrace> blocks,
                          const StaticTable& table) {
  const uint32_t table_size = table.size();
  EncodedChunk chunk;
  chunk.kernel_index = kernel_index;
  chunk.first_block = first_block;
  chunk.static_counts.assign(table_size, 0);
  chunk.blocks.reserve(blocks.size());
  proto::BlockChunk msg;
  msg.set_kernel_index(kernel_index);
  msg.mutable_blocks()->Reserve(int(blocks.size()));
  for (size_t b = 0; b < blocks.size(); ++b) {
    const BlockTrace& bt = blocks[b];
    proto::BlockRecord* rec = msg.add_blocks();
    rec->mutable_id()->set_x(bt.id.x);
    rec->mutable_id()->set_y(bt.id.y);
    rec->mutable_id()->set_z(bt.id.z);
    rec->mutable_warps()->Reserve(int(bt.warps.size()));
    const uint64_t before = chunk.warp_insts;
    for (size_t w = 0; w < bt.warps.size(); ++w)
      encode_warp(bt.warps[w], table, table_size, *rec->add_warps(), chunk, first_block + uint32_t(b), w);
    if (bt.warps.size() > std::numeric_limits<uint32_t>::max()) throw TraceError("encode_chunk: too many warps");
    chunk.blocks.push_back(BlockInfo{bt.id, uint32_t(bt.warps.size()), chunk.warp_insts - before});
  }
  const std::string raw = serialize(msg, "BlockChunk");
  if (raw.size() > std::numeric_limits<uint32_t>::max())
    throw TraceError("encode_chunk: kernel " + std::to_string(kernel_index) + " chunk at block " +
                     std::to_string(first_block) + " serializes to more than 4 GiB; use smaller chunks");
  chunk.frame = lz4_compress_frame(raw);
  return chunk;
}

uint32_t decode_chunk(std::string_view frame, const StaticTable& table, std::vector<BlockTrace>& out,
                      const std::string& where) {
  // Reused per thread: the decompression buffer and the message keep their
  // capacity, so steady-state decoding does not allocate.
  thread_local std::string raw;
  thread_local proto::BlockChunk msg;
  lz4_decompress_frame_into(frame, lz4_max_content(frame.size()), where, raw);
  if (raw.size() > size_t(std::numeric_limits<int>::max()) || !msg.ParseFromArray(raw.data(), int(raw.size())))
    throw TraceError(where + ": bad protobuf (BlockChunk does not parse)");
  const uint32_t table_size = table.size();
  out.resize(size_t(msg.blocks_size()));
  for (int b = 0; b < msg.blocks_size(); ++b) {
    const proto::BlockRecord& rec = msg.blocks(b);
    BlockTrace& bt = out[size_t(b)];
    bt.id = Dim3{rec.id().x(), rec.id().y(), rec.id().z()};
    bt.warps.resize(size_t(rec.warps_size()));
    for (int w = 0; w < rec.warps_size(); ++w)
      decode_warp(rec.warps(w), table, table_size, bt.warps[size_t(w)], where, size_t(b), size_t(w));
  }
  return msg.kernel_index();
}

void encode_kernel_table(uint32_t kernel_index, const StaticTable& table, proto::KernelTable& out) {
  // Entries first: an entry's opcode is interned before the entry, so every
  // opcode the snapshot's entries use is within the later opcode count.
  const uint32_t n = table.size();
  const uint32_t nops = table.opcode_count();
  out.Clear();
  out.set_kernel_index(kernel_index);
  for (uint32_t i = 0; i < nops; ++i) out.add_opcodes(table.opcode(i));
  out.mutable_insts()->Reserve(int(n));
  for (uint32_t i = 0; i < n; ++i) {
    const StaticInstruction& s = table.inst(i);
    proto::StaticInstruction* p = out.add_insts();
    p->set_pc(s.pc);
    p->set_opcode(s.opcode_id);
    for (const RegRef& r : s.dsts) p->add_dst_regs(r.packed());
    for (const RegRef& r : s.srcs) p->add_src_regs(r.packed());
    p->set_mem_width(s.mem_width);
    p->set_has_immediate(s.has_immediate);
    p->set_immediate(s.immediate);
    p->set_has_line(s.has_line);
    p->set_line(s.line);
  }
}

std::string encode_kernel_table_frame(uint32_t kernel_index, const StaticTable& table) {
  proto::KernelTable msg;
  encode_kernel_table(kernel_index, table, msg);
  return lz4_compress_frame(serialize(msg, "KernelTable"));
}

StaticTable decode_kernel_table(const proto::KernelTable& msg, const std::string& where) {
  StaticTable table;
  for (int i = 0; i < msg.opcodes_size(); ++i) {
    if (msg.opcodes(i).empty()) throw TraceError(where + ": opcode " + std::to_string(i) + " is empty");
    if (table.intern_opcode(msg.opcodes(i)) != uint32_t(i))
      throw TraceError(where + ": opcode " + std::to_string(i) + " (" + msg.opcodes(i) + ") listed twice");
  }
  auto regs = [&](const google::protobuf::RepeatedField<uint32_t>& in, std::vector<RegRef>& out, int inst) {
    out.reserve(size_t(in.size()));
    for (uint32_t v : in) {
      std::optional<RegRef> r = RegRef::unpack(v);
      if (!r)
        throw TraceError(where + ": static instruction " + std::to_string(inst) + ": bad register kind " +
                         std::to_string(v >> 16));
      out.push_back(*r);
    }
  };
  for (int i = 0; i < msg.insts_size(); ++i) {
    const proto::StaticInstruction& p = msg.insts(i);
    if (p.opcode() >= uint32_t(msg.opcodes_size()))
      throw TraceError(where + ": static instruction " + std::to_string(i) + ": opcode index " +
                       std::to_string(p.opcode()) + " out of range (" + std::to_string(msg.opcodes_size()) +
                       " opcodes)");
    StaticInstruction s;
    s.pc = p.pc();
    s.opcode_id = p.opcode();
    regs(p.dst_regs(), s.dsts, i);
    regs(p.src_regs(), s.srcs, i);
    s.mem_width = p.mem_width();
    s.has_immediate = p.has_immediate();
    s.immediate = p.immediate();
    s.has_line = p.has_line();
    s.line = p.line();
    if (table.intern(s) != uint32_t(i))
      throw TraceError(where + ": static instruction " + std::to_string(i) + " duplicates an earlier one");
  }
  return table;
}

StaticTable decode_kernel_table_frame(std::string_view frame, uint32_t kernel_index, const std::string& where) {
  const std::string raw = lz4_decompress_frame(frame, lz4_max_content(frame.size()), where);
  proto::KernelTable msg;
  if (raw.size() > size_t(std::numeric_limits<int>::max()) || !msg.ParseFromArray(raw.data(), int(raw.size())))
    throw TraceError(where + ": bad protobuf (KernelTable does not parse)");
  if (msg.kernel_index() != kernel_index)
    throw TraceError(where + ": table names kernel " + std::to_string(msg.kernel_index()) + ", expected " +
                     std::to_string(kernel_index));
  return decode_kernel_table(msg, where);
}

}  // namespace lockstep
