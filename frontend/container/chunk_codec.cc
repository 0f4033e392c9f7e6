#include "frontend/container/chunk_codec.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "frontend/container/byte_streams.h"
#include "frontend/container/frame_codec.h"
#include "frontend/trace/trace_error.h"
#include "trace.pb.h"

namespace lockstep {
namespace {

// Address record kinds (proto/trace.proto, BlockChunk.addr_kinds).
enum AddrKind : uint8_t { kStride = 0, kLanes = 1, kRef = 2, kRepeat = 3 };
constexpr uint32_t kMaxU32 = std::numeric_limits<uint32_t>::max();
// Masks stream: a run's mask may be given as that of the run 1..8 runs back.
constexpr uint8_t kMaskHistory = 8;

std::string serialize(const google::protobuf::MessageLite& msg, const char* what) {
  std::string raw;
  if (!msg.SerializeToString(&raw)) throw TraceError(std::string("cannot serialize ") + what);
  return raw;
}

// a - b modulo 2^64 (shifts and steps of addresses wrap like the addresses).
int64_t wrap_sub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }

// Lane addresses a[0..n) and b[0..n) differ by one constant.
bool same_offsets(const uint64_t* a, const uint64_t* b, uint32_t n) {
  const uint64_t d = a[0] - b[0];
  for (uint32_t k = 1; k < n; ++k)
    if (a[k] - b[k] != d) return false;
  return true;
}

// ---------------------------------------------------------------------------
// Encoding

[[noreturn]] void encode_fail(uint32_t kernel, uint32_t block_ordinal, size_t warp, size_t inst, const std::string& what) {
  throw TraceError("encode_chunk: kernel " + std::to_string(kernel) + " block " + std::to_string(block_ordinal) +
                   " warp " + std::to_string(warp) + " inst " + std::to_string(inst) + ": " + what);
}

// The previous instance of a memory static id in the current warp.
struct EncSidState {
  uint64_t gen = 0;  // the warp it belongs to; stale otherwise
  uint32_t addr_ref = 0;
  uint32_t lanes = 0;
  int64_t step = 0;
};

class ChunkEncoder {
 public:
  ChunkEncoder(const StaticTable& table, EncodedChunk& chunk)
      : table_(table), table_size_(table.size()), chunk_(chunk), slot_(table_size_, 0) {}

  void add_block(const BlockTrace& bt, uint32_t block_ordinal) {
    if (bt.warps.size() > kMaxU32) throw TraceError("encode_chunk: too many warps");
    put_block_id(blocks_, bt.id, prev_block_);
    blocks_.u(bt.warps.size());
    const uint64_t before = chunk_.warp_insts;
    uint32_t expected_id = 0;
    for (size_t w = 0; w < bt.warps.size(); ++w) {
      const WarpTrace& wt = bt.warps[w];
      warps_.z(int32_t(wt.warp_id - expected_id));
      expected_id = wt.warp_id + 1;
      add_warp(wt, block_ordinal, w);
    }
    chunk_.blocks.push_back(BlockInfo{bt.id, uint32_t(bt.warps.size()), chunk_.warp_insts - before});
    clusters_.u(bt.has_cluster);
    if (bt.has_cluster) {
      any_cluster_ = true;
      for (uint32_t v : {bt.cluster.id.x, bt.cluster.id.y, bt.cluster.id.z, bt.cluster.cta.x, bt.cluster.cta.y,
                         bt.cluster.cta.z, bt.cluster.rank})
        clusters_.u(v);
    }
  }

  void finish(proto::BlockChunk& msg) {
    msg.set_num_insts(chunk_.warp_insts);
    msg.set_blocks(blocks_.take());
    msg.set_warps(warps_.take());
    msg.set_id_runs(id_runs_.take());
    msg.set_mask_runs(mask_runs_.take());
    msg.set_masks(masks_.take());
    msg.set_addr_kinds(kinds_.take());
    msg.set_addr_values(values_.take());
    if (any_cluster_) msg.set_clusters(clusters_.take());
  }

 private:
  // 0 when not memory, else 1 + a slot in sids_ (assigned on first sight).
  uint32_t mem_slot(uint32_t id) {
    uint32_t& s = slot_[id];
    if (s == 0) {
      if (table_.inst(id).is_memory()) {
        sids_.emplace_back();
        s = uint32_t(sids_.size()) + 1;
      } else {
        s = 1;
      }
    }
    return s - 1;
  }

  static uint64_t control_hash(const WarpTrace& w) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ w.insts.size();
    for (const WarpInstruction& wi : w.insts) {
      h ^= (uint64_t(wi.static_id) << 32) | wi.active_mask;
      h *= 0xFF51AFD7ED558CCDULL;
      h ^= h >> 29;
    }
    return h;
  }
  static bool same_control(const WarpTrace& a, const WarpTrace& b) {
    if (a.insts.size() != b.insts.size()) return false;
    for (size_t i = 0; i < a.insts.size(); ++i)
      if (a.insts[i].static_id != b.insts[i].static_id || a.insts[i].active_mask != b.insts[i].active_mask)
        return false;
    return true;
  }

  void add_warp(const WarpTrace& w, uint32_t block_ordinal, size_t warp_pos) {
    const size_t n = w.insts.size();
    if (n > kMaxU32) encode_fail(chunk_.kernel_index, block_ordinal, warp_pos, 0, "too many instructions in one warp");
    for (size_t i = 0; i < n; ++i) {
      const WarpInstruction& wi = w.insts[i];
      if (wi.static_id >= table_size_)
        encode_fail(chunk_.kernel_index, block_ordinal, warp_pos, i,
                    "static id " + std::to_string(wi.static_id) + " outside the table (" +
                        std::to_string(table_size_) + " entries)");
      ++chunk_.static_counts[wi.static_id];
      chunk_.thread_insts += uint32_t(std::popcount(wi.active_mask));
    }

    // The latest earlier warp of the chunk with the same control flow.
    const uint64_t hash = control_hash(w);
    const WarpTrace* ref = nullptr;
    const size_t index = seen_.size();
    if (auto it = by_control_.find(hash); it != by_control_.end() && same_control(*seen_[it->second], w)) {
      ref = seen_[it->second];
      warps_.u(index - it->second);
    } else {
      warps_.u(0);
      warps_.u(n);
      put_control(w);
    }
    by_control_[hash] = index;
    seen_.push_back(&w);

    ++gen_;
    for (size_t i = 0; i < n; ++i) {
      const WarpInstruction& wi = w.insts[i];
      const uint32_t slot = mem_slot(wi.static_id);
      if (slot == 0) continue;
      ++chunk_.mem_insts;
      const uint32_t lanes = uint32_t(std::popcount(wi.active_mask));
      if (lanes == 0) continue;
      if (!w.addrs.holds(wi.addr_ref, lanes))
        encode_fail(chunk_.kernel_index, block_ordinal, warp_pos, i,
                    "addresses of " + std::to_string(lanes) + " lanes (record " + std::to_string(wi.addr_ref) +
                        ") beyond the warp's " + std::to_string(w.addrs.words()) + " address words");
      const uint64_t* r = nullptr;
      if (ref && ref->addrs.holds(ref->insts[i].addr_ref, lanes)) r = ref->lane_addresses(ref->insts[i], r_).data();
      put_addresses(w, wi, lanes, r, sids_[slot - 1]);
    }
    chunk_.warp_insts += n;
  }

  void put_control(const WarpTrace& w) {
    const size_t n = w.insts.size();
    uint32_t expected = 0;
    for (size_t i = 0; i < n;) {
      const uint32_t start = w.insts[i].static_id;
      size_t len = 1;
      while (i + len < n && w.insts[i + len].static_id == start + len) ++len;
      id_runs_.z(int32_t(start - expected));
      id_runs_.u(len - 1);
      expected = start + uint32_t(len);
      i += len;
    }
    uint32_t recent[kMaskHistory] = {};  // masks of the last runs, ring
    size_t runs = 0;
    for (size_t i = 0; i < n;) {
      const uint32_t mask = w.insts[i].active_mask;
      size_t len = 1;
      while (i + len < n && w.insts[i + len].active_mask == mask) ++len;
      mask_runs_.u(len - 1);
      uint8_t back = 0;
      for (uint8_t k = 1; k <= kMaskHistory && k <= runs && !back; ++k)
        if (recent[(runs - k) % kMaskHistory] == mask) back = k;
      masks_.byte(back);
      if (back == 0) masks_.le32(mask);
      recent[runs++ % kMaskHistory] = mask;
      i += len;
    }
  }

  void put_addresses(const WarpTrace& w, const WarpInstruction& wi, uint32_t lanes, const uint64_t* r,
                     EncSidState& st) {
    const uint64_t* a = w.lane_addresses(wi, a_).data();
    const bool earlier = st.gen == gen_;
    const uint64_t* p = nullptr;
    if (earlier) {
      w.addrs.read(st.addr_ref, st.lanes, p_.data());
      p = p_.data();
    }
    const int64_t step = earlier ? int64_t(a[0] - p[0]) : 0;
    if (r && same_offsets(a, r, lanes)) {
      const int64_t shift = int64_t(a[0] - r[0]);
      kinds_.byte(kRef);
      values_.z(wrap_sub(shift, prev_shift_));
      prev_shift_ = shift;
    } else if (earlier && st.lanes == lanes && same_offsets(a, p, lanes)) {
      kinds_.byte(kRepeat);
      values_.z(wrap_sub(step, st.step));
    } else {
      const int64_t stride = lanes >= 2 ? int64_t(a[1] - a[0]) : 0;
      bool uniform = lanes >= 2;
      for (uint32_t k = 2; k < lanes && uniform; ++k) uniform = int64_t(a[k] - a[k - 1]) == stride;
      kinds_.byte(uniform ? kStride : kLanes);
      values_.z(int64_t(a[0] - base_));
      if (uniform) {
        values_.z(stride);
      } else {
        for (uint32_t k = 1; k < lanes; ++k) values_.z(int64_t(a[k] - a[k - 1]));
      }
    }
    st = EncSidState{gen_, wi.addr_ref, lanes, step};
    base_ = a[0];
  }

  const StaticTable& table_;
  const uint32_t table_size_;
  EncodedChunk& chunk_;
  LaneBuffer a_, p_, r_;  // an instruction's addresses, its earlier instance's, its reference warp's
  std::vector<uint32_t> slot_;
  std::vector<EncSidState> sids_;
  std::vector<const WarpTrace*> seen_;
  std::unordered_map<uint64_t, size_t> by_control_;
  uint64_t gen_ = 0;
  uint64_t base_ = 0;
  int64_t prev_shift_ = 0;
  Dim3 prev_block_{0, 0, 0};
  ByteSink blocks_, warps_, id_runs_, mask_runs_, masks_, kinds_, values_, clusters_;
  bool any_cluster_ = false;
};

// ---------------------------------------------------------------------------
// Decoding

// Thrown inside the decoder, turned into a TraceError with the position.
using DecodeError = StreamDecodeError;
[[noreturn]] void bad(std::string what) { stream_fail(std::move(what)); }
using In = ByteSource;

struct DecSidState {
  uint64_t gen = 0;
  uint32_t addr_ref = 0;
  uint32_t lanes = 0;
  uint64_t first = 0;  // its first lane's address
  int64_t step = 0;
};

std::string inst_at(size_t i) { return "instruction " + std::to_string(i) + ": "; }

// Active lanes of a mask, inline (a portable build has no popcount instruction).
inline uint32_t lanes_of(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

// Decoded storage holds its content with at most 1/8 to spare (beyond 8
// elements): decoded blocks are recycled from block to block, and storage
// sized for another warp (a hub's long gather loop) would otherwise be much
// of the memory of the blocks the SMs hold, so that the memory of a run grew
// with the blocks it has decoded instead of the blocks it holds.
constexpr size_t kKeptElements = 8, kSpareDivisor = 8;
inline bool far_larger(size_t capacity, size_t n) {
  return capacity > kKeptElements && capacity - n > n / kSpareDivisor;
}

// Makes room in a reused vector for exactly n elements; its old contents are
// not kept (they are about to be overwritten).
template <class T>
void make_room(std::vector<T>& v, size_t n) {
  if (n > v.capacity() || far_larger(v.capacity(), n)) {
    std::vector<T>().swap(v);
    v.reserve(n);
  }
}

// Sizes a reused vector for n elements to be overwritten.
template <class T>
void size_for(std::vector<T>& v, size_t n) {
  make_room(v, n);
  v.resize(n);
}

}  // namespace

struct ChunkScratch::Impl {
  std::string frame;
  std::string raw;
  proto::BlockChunk msg;
  std::vector<DecSidState> sids;
  uint64_t gen = 0;
  struct Mem {
    uint32_t inst;   // index in the warp
    uint32_t lanes;  // active lanes
  };
  std::vector<Mem> memlist;  // per decoded warp, its memory instructions with lanes
  struct Warp {
    const WarpTrace* w;
    uint32_t mem_begin, mem_count;  // into memlist
    uint64_t lanes;                 // lane addresses in all
  };
  std::vector<Warp> warps;  // the chunk's warps decoded so far
  LaneAddressStore addrs;   // the addresses of the warp being decoded
  // Blocks and warps that outputs had beyond what the last chunk needed, kept
  // with their vectors' capacity instead of being freed and allocated again.
  std::vector<BlockTrace> spare_blocks;
  std::vector<WarpTrace> spare_warps;
};

namespace {

// Resizes `v` to n, parking surplus elements in `spare` and reviving parked
// ones before constructing new ones.
template <class T>
void resize_keeping(std::vector<T>& v, size_t n, std::vector<T>& spare) {
  while (v.size() > n) {
    spare.push_back(std::move(v.back()));
    v.pop_back();
  }
  if (v.size() < n) {
    v.reserve(n);
    while (v.size() < n && !spare.empty()) {
      v.push_back(std::move(spare.back()));
      spare.pop_back();
    }
    v.resize(n);
  }
}

}  // namespace

ChunkScratch::ChunkScratch() : impl_(std::make_unique<Impl>()) {}
ChunkScratch::~ChunkScratch() = default;
std::string& ChunkScratch::frame_buffer() { return impl_->frame; }

ChunkTableInfo::ChunkTableInfo(const StaticTable& table) : size(table.size()), mem_slot(size, 0) {
  for (uint32_t i = 0; i < size; ++i)
    if (table.inst(i).is_memory()) mem_slot[i] = ++mem_entries;
}

namespace {

class ChunkDecoder {
 public:
  ChunkDecoder(const ChunkTableInfo& info, ChunkScratch::Impl& s)
      : info_(info),
        s_(s),
        blocks_(s.msg.blocks(), "blocks"),
        warps_(s.msg.warps(), "warps"),
        ids_(s.msg.id_runs(), "id_runs"),
        mask_runs_(s.msg.mask_runs(), "mask_runs"),
        masks_(s.msg.masks(), "masks"),
        kinds_(s.msg.addr_kinds(), "addr_kinds"),
        values_(s.msg.addr_values(), "addr_values"),
        clusters_(s.msg.clusters(), "clusters") {
    s_.warps.clear();
    s_.memlist.clear();
    if (s_.sids.size() < info_.mem_entries) s_.sids.resize(info_.mem_entries);
  }

  // Position of the last error, for the message.
  size_t block = 0, warp = 0;
  bool in_warp = false;
  uint64_t insts = 0;

  void run(std::vector<BlockTrace>& out, uint32_t block_limit) {
    const uint32_t all = s_.msg.num_blocks();
    // Every block takes at least four bytes of the block stream.
    if (all > blocks_.left() / 4)
      bad(std::to_string(all) + " blocks do not fit a block stream of " + std::to_string(blocks_.left()) + " bytes");
    const uint32_t nb = std::min(all, block_limit);
    resize_keeping(out, nb, s_.spare_blocks);
    Dim3 prev{0, 0, 0};
    for (block = 0; block < nb; ++block) {
      in_warp = false;
      BlockTrace& bt = out[block];
      bt.id = get_block_id(blocks_, prev);
      read_cluster(bt);
      const uint64_t nw = blocks_.u();
      // Every warp takes at least two bytes of the warp stream.
      if (nw > warps_.left() / 2)
        bad(std::to_string(nw) + " warps do not fit the " + std::to_string(warps_.left()) +
            " bytes left in the warp stream");
      resize_keeping(bt.warps, size_t(nw), s_.spare_warps);
      in_warp = true;
      uint32_t expected_id = 0;
      for (warp = 0; warp < nw; ++warp) {
        WarpTrace& wt = bt.warps[warp];
        wt.warp_id = expected_id + warps_.z32();
        expected_id = wt.warp_id + 1;
        decode_warp(wt);
      }
    }
    in_warp = false;
    if (nb < all) return;  // (the rest is not read: see decode_chunk)
    for (const In* in : {&blocks_, &warps_, &ids_, &mask_runs_, &masks_, &kinds_, &values_, &clusters_})
      if (in->left() != 0)
        bad(std::to_string(in->left()) + " unused bytes in the " + in->name() + " stream");
    if (insts != s_.msg.num_insts())
      bad("chunk declares " + std::to_string(s_.msg.num_insts()) + " warp instructions but holds " +
          std::to_string(insts));
  }

 private:
  void read_cluster(BlockTrace& bt) {
    bt.has_cluster = false;
    if (s_.msg.clusters().empty()) return;
    const uint64_t has = clusters_.u();
    if (has > 1) bad("cluster flag " + std::to_string(has) + " (expected 0 or 1)");
    if (!has) return;
    bt.has_cluster = true;
    ClusterPlace& c = bt.cluster;
    for (uint32_t* v : {&c.id.x, &c.id.y, &c.id.z, &c.cta.x, &c.cta.y, &c.cta.z, &c.rank}) *v = clusters_.u32();
  }

  void decode_warp(WarpTrace& wt) {
    const uint64_t ref = warps_.u();
    const size_t index = s_.warps.size();
    const WarpTrace* rw = nullptr;
    uint32_t mem_begin = 0, mem_count = 0;
    uint64_t na = 0;
    if (ref == 0) {
      const uint64_t n = warps_.u();
      decode_control(wt, n);
      if (s_.memlist.size() > kMaxU32) bad("more than 2^32 memory instructions in one chunk");
      mem_begin = uint32_t(first_mem_);
      mem_count = uint32_t(s_.memlist.size() - first_mem_);
      na = na_;
    } else {
      if (ref > index)
        bad("refers to the warp " + std::to_string(ref) + " places back, but the chunk has only " +
            std::to_string(index) + " warps before it");
      const ChunkScratch::Impl::Warp& r = s_.warps[index - size_t(ref)];
      rw = r.w;
      make_room(wt.insts, rw->insts.size());
      wt.insts.assign(rw->insts.begin(), rw->insts.end());
      mem_begin = r.mem_begin;
      mem_count = r.mem_count;
      na = r.lanes;
    }
    insts += wt.insts.size();
    // The words a lane takes depend on the addresses: they are decoded into
    // the scratch's store (whose storage only grows) and copied to the warp's
    // at their size, so the warp's storage is sized once, not grown record
    // by record, and storage far larger than they take is given back.
    s_.addrs.clear();
    ++s_.gen;
    decode_addresses(wt, rw, s_.addrs, s_.memlist.data() + mem_begin, mem_count);
    make_room(wt.addrs.storage(), s_.addrs.words());
    wt.addrs = s_.addrs;
    s_.warps.push_back({&wt, mem_begin, mem_count, na});
  }

  void decode_control(WarpTrace& wt, uint64_t n) {
    if (n > kMaxU32) bad(std::to_string(n) + " instructions in one warp");
    // A run of consecutive static ids holds at most one of each table entry
    // and takes at least two bytes. A count beyond what the runs left can
    // describe is bogus: decode it run by run, so that it fails on the runs
    // without allocating for the count.
    const bool sized = n <= uint64_t(ids_.left() / 2) * info_.size;
    size_for(wt.insts, sized ? size_t(n) : 0);
    const uint32_t table_size = info_.size;
    uint32_t expected = 0;
    for (size_t i = 0; i < n;) {
      const uint32_t start = expected + ids_.z32();
      const uint64_t len_m1 = ids_.u();
      if (len_m1 >= n - i)
        bad(inst_at(i) + "id run of length " + std::to_string(len_m1 + 1) + " does not fit " + std::to_string(n) +
            " instructions");
      const uint32_t len = uint32_t(len_m1) + 1;
      if (start >= table_size || len > table_size - start)
        bad(inst_at(i) + "static id " + std::to_string(start >= table_size ? start : table_size) +
            " outside the kernel table (" + std::to_string(table_size) + " entries)");
      if (!sized) wt.insts.resize(i + len);  // keeps the ids decoded so far
      WarpInstruction* ins = wt.insts.data() + i;
      for (uint32_t k = 0; k < len; ++k) ins[k].static_id = start + k;
      i += len;
      expected = start + len;
    }
    WarpInstruction* ins = wt.insts.data();
    const uint32_t* mem_slot = info_.mem_slot.data();
    std::vector<ChunkScratch::Impl::Mem>& memlist = s_.memlist;
    first_mem_ = memlist.size();
    uint64_t na = 0;
    uint32_t recent[kMaskHistory] = {};
    size_t runs = 0;
    for (size_t i = 0; i < n;) {
      const uint64_t len_m1 = mask_runs_.u();
      if (len_m1 >= n - i)
        bad(inst_at(i) + "mask run of length " + std::to_string(len_m1 + 1) + " does not fit " +
            std::to_string(n) + " instructions");
      const uint8_t back = masks_.byte();
      uint32_t mask;
      if (back == 0) {
        mask = masks_.le32();
      } else {
        if (back > kMaskHistory || back > runs)
          bad(inst_at(i) + "mask of the run " + std::to_string(back) + " back, after " + std::to_string(runs) +
              " runs");
        mask = recent[(runs - back) % kMaskHistory];
      }
      recent[runs++ % kMaskHistory] = mask;
      const uint32_t lanes = lanes_of(mask);
      const size_t end = i + size_t(len_m1) + 1;
      if (lanes == 0) {
        for (; i < end; ++i) ins[i].active_mask = 0, ins[i].addr_ref = 0;
        continue;
      }
      for (; i < end; ++i) {
        ins[i].active_mask = mask;
        ins[i].addr_ref = 0;
        if (mem_slot[ins[i].static_id]) {
          memlist.push_back({uint32_t(i), lanes});
          na += lanes;
        }
      }
      if (na > kMaxU32) bad("more than 2^32 lane addresses in one warp");
    }
    na_ = na;
  }

  // Decodes the addresses of wt's memory instructions into `store`.
  void decode_addresses(WarpTrace& wt, const WarpTrace* rw, LaneAddressStore& store,
                        const ChunkScratch::Impl::Mem* mem, uint32_t count) {
    WarpInstruction* ins = wt.insts.data();
    const uint32_t* mem_slot = info_.mem_slot.data();
    const uint64_t gen = s_.gen;
    uint64_t* a = a_.data();
    for (uint32_t j = 0; j < count; ++j) {
      const uint32_t i = mem[j].inst;
      const uint32_t lanes = mem[j].lanes;
      WarpInstruction& wi = ins[i];
      DecSidState& st = s_.sids[mem_slot[wi.static_id] - 1];
      const bool earlier = st.gen == gen;
      const uint8_t kind = kinds_.byte();
      // A strided record (the common case) is stored as such, its addresses never written out.
      uint64_t first = 0, stride = 0;
      switch (kind) {
        case kStride: {
          if (lanes < 2) bad(inst_at(i) + "stride address record for a single lane");
          first = base_ + uint64_t(values_.z());
          stride = uint64_t(values_.z());
          wi.addr_ref = store.append_strided(first, stride, lanes);
          break;
        }
        case kLanes: {
          uint64_t v = base_ + uint64_t(values_.z());
          a[0] = v;
          for (uint32_t k = 1; k < lanes; ++k) a[k] = (v += uint64_t(values_.z()));
          first = a[0];
          wi.addr_ref = store.append(a, lanes);
          break;
        }
        case kRef: {
          if (!rw) bad(inst_at(i) + "REF address record in a warp without a reference warp");
          const uint64_t shift = uint64_t(prev_shift_) + uint64_t(values_.z());
          // The reference warp has this warp's control flow: instruction i, same lanes.
          first = shifted(rw->addrs, rw->insts[i].addr_ref, lanes, shift, store, wi.addr_ref);
          prev_shift_ = int64_t(shift);
          break;
        }
        case kRepeat: {
          if (!earlier || st.lanes != lanes)
            bad(inst_at(i) + "REPEAT address record without an earlier instance of static id " +
                std::to_string(wi.static_id) + " with " + std::to_string(lanes) + " lanes in the warp");
          const uint64_t step = uint64_t(st.step) + uint64_t(values_.z());
          first = shifted(store, st.addr_ref, lanes, step, store, wi.addr_ref);
          break;
        }
        default:
          bad(inst_at(i) + "unknown address kind " + std::to_string(kind));
      }
      st.step = earlier ? int64_t(first - st.first) : 0;
      st.gen = gen;
      st.addr_ref = wi.addr_ref;
      st.lanes = lanes;
      st.first = first;
      base_ = first;
    }
  }

  // Appends to `to` record `ref` of `from` (`lanes` addresses) moved by
  // `shift`, into *out_ref; returns its first address.
  uint64_t shifted(const LaneAddressStore& from, uint32_t ref, uint32_t lanes, uint64_t shift, LaneAddressStore& to,
                   uint32_t& out_ref) {
    uint64_t first = 0, stride = 0;
    if (from.strided(ref, lanes, &first, &stride)) {
      out_ref = to.append_strided(first + shift, stride, lanes);
      return first + shift;
    }
    // A lane form's addresses are not one 32-bit stride apart, nor moved.
    uint64_t* a = a_.data();
    from.read(ref, lanes, a);
    for (uint32_t k = 0; k < lanes; ++k) a[k] += shift;
    out_ref = to.append_lanes(a, lanes);
    return a[0];
  }

  const ChunkTableInfo& info_;
  ChunkScratch::Impl& s_;
  In blocks_, warps_, ids_, mask_runs_, masks_, kinds_, values_, clusters_;
  size_t first_mem_ = 0;
  uint64_t na_ = 0;
  uint64_t base_ = 0;
  int64_t prev_shift_ = 0;
  LaneBuffer a_;  // the instruction being decoded
};

}  // namespace

EncodedChunk encode_chunk(uint32_t kernel_index, uint32_t first_block, std::span<const BlockTrace> blocks,
                          const StaticTable& table) {
  EncodedChunk chunk;
  chunk.kernel_index = kernel_index;
  chunk.first_block = first_block;
  chunk.static_counts.assign(table.size(), 0);
  chunk.blocks.reserve(blocks.size());
  if (blocks.size() > kMaxU32) throw TraceError("encode_chunk: too many blocks");
  proto::BlockChunk msg;
  msg.set_kernel_index(kernel_index);
  msg.set_num_blocks(uint32_t(blocks.size()));
  {
    ChunkEncoder enc(table, chunk);
    for (size_t b = 0; b < blocks.size(); ++b) enc.add_block(blocks[b], first_block + uint32_t(b));
    enc.finish(msg);
  }
  const std::string raw = serialize(msg, "BlockChunk");
  if (raw.size() > std::numeric_limits<uint32_t>::max())
    throw TraceError("encode_chunk: kernel " + std::to_string(kernel_index) + " chunk at block " +
                     std::to_string(first_block) + " serializes to more than 4 GiB; use smaller chunks");
  chunk.frame = compress_frame(raw, FrameCodec::kLz4Hc);
  return chunk;
}

namespace {
constexpr size_t kSegmentedGroupBlocks = 16;
}  // namespace

uint32_t segments_of(const BlockTrace& block, uint32_t segment_insts) {
  size_t longest = 0;
  for (const WarpTrace& w : block.warps) longest = std::max(longest, w.insts.size());
  if (segment_insts == 0 || longest <= segment_insts) return 1;
  const size_t n = (longest + segment_insts - 1) / segment_insts;
  if (n > kMaxU32) throw TraceError("encode: a warp of block " + block.id.str() + " has too many segments");
  return uint32_t(n);
}

namespace {

// Blocks of which some are in segments, as the chunks of their segments
// (`whole`: the blocks' summaries, segments included).
void encode_segments(uint32_t kernel_index, uint32_t first_block, std::span<const BlockTrace> blocks,
                     std::span<const BlockInfo> whole, const StaticTable& table, uint32_t segment_insts,
                     std::vector<EncodedChunk>& chunks) {
  uint32_t segments = 1;
  for (const BlockInfo& b : whole) segments = std::max(segments, b.segments);
  const auto is_memory = [&](uint32_t id) { return table.inst(id).is_memory(); };
  std::vector<BlockTrace> pieces(blocks.size());
  for (uint32_t k = 0; k < segments; ++k) {
    const size_t from = size_t(k) * segment_insts;
    for (size_t b = 0; b < blocks.size(); ++b) {
      BlockTrace& piece = pieces[b];
      piece.id = blocks[b].id;
      piece.has_cluster = blocks[b].has_cluster;
      piece.cluster = blocks[b].cluster;
      piece.warps.resize(blocks[b].warps.size());
      for (size_t w = 0; w < piece.warps.size(); ++w) {
        const WarpTrace& src = blocks[b].warps[w];
        WarpTrace& dst = piece.warps[w];
        dst.clear();
        dst.warp_id = src.warp_id;
        const size_t n = src.insts.size();
        append_instructions(dst, src, std::min(from, n), std::min(from + segment_insts, n), is_memory);
      }
    }
    EncodedChunk c = encode_chunk(kernel_index, first_block, pieces, table);
    c.segment = k;
    c.segment_insts = segment_insts;
    c.blocks.assign(whole.begin(), whole.end());
    chunks.push_back(std::move(c));
  }
}

}  // namespace

std::vector<EncodedChunk> encode_block_group(uint32_t kernel_index, uint32_t first_block,
                                             std::span<const BlockTrace> blocks, const StaticTable& table,
                                             uint32_t segment_insts) {
  std::vector<EncodedChunk> chunks;
  bool segmented = false;
  std::vector<BlockInfo> whole;
  whole.reserve(blocks.size());
  for (const BlockTrace& b : blocks) {
    whole.push_back(BlockInfo{b.id, uint32_t(b.warps.size()), b.warp_insts(), segments_of(b, segment_insts)});
    segmented = segmented || whole.back().segments > 1;
  }
  if (!segmented) {
    chunks.push_back(encode_chunk(kernel_index, first_block, blocks, table));
    return chunks;
  }
  // Blocks in segments go in groups of at most kSegmentedGroupBlocks: a
  // reader decodes a segment of the whole group to get one block's, and the
  // group's other blocks may not be running yet.
  for (size_t at = 0; at < blocks.size(); at += kSegmentedGroupBlocks) {
    const size_t n = std::min(kSegmentedGroupBlocks, blocks.size() - at);
    encode_segments(kernel_index, first_block + uint32_t(at), blocks.subspan(at, n),
                    std::span<const BlockInfo>(whole).subspan(at, n), table, segment_insts, chunks);
  }
  return chunks;
}

uint32_t decode_chunk(std::string_view frame, const ChunkTableInfo& table, std::vector<BlockTrace>& out,
                      const std::string& where, ChunkScratch& scratch, uint32_t block_limit) {
  ChunkScratch::Impl& s = scratch.impl();
  decompress_frame_into(frame, where, s.raw);
  if (s.raw.size() > size_t(std::numeric_limits<int>::max()) || !s.msg.ParseFromArray(s.raw.data(), int(s.raw.size())))
    throw TraceError(where + ": bad protobuf (BlockChunk does not parse)");
  ChunkDecoder dec(table, s);
  try {
    dec.run(out, block_limit);
  } catch (const DecodeError& e) {
    std::string at;
    if (dec.block < s.msg.num_blocks()) {
      at = "block " + std::to_string(dec.block) + (dec.in_warp ? " warp " + std::to_string(dec.warp) : "") + ": ";
    }
    throw TraceError(where + ": " + at + e.what);
  }
  return s.msg.kernel_index();
}

uint32_t decode_chunk(std::string_view frame, const StaticTable& table, std::vector<BlockTrace>& out,
                      const std::string& where) {
  thread_local ChunkScratch scratch;
  return decode_chunk(frame, ChunkTableInfo(table), out, where, scratch);
}

// ---------------------------------------------------------------------------
// Kernel tables

void encode_kernel_table(uint32_t kernel_index, const StaticTable& table, proto::KernelTable& out) {
  // Entries first: an entry's opcode is interned before the entry, so every
  // opcode the snapshot's entries use is within the later opcode count.
  const uint32_t n = table.size();
  const uint32_t nops = table.opcode_count();
  out.Clear();
  out.set_kernel_index(kernel_index);
  for (uint32_t i = 0; i < nops; ++i) out.add_opcodes(table.opcode(i));
  out.set_num_insts(n);
  uint64_t prev_pc = 0;
  uint32_t prev_line = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const StaticInstruction& s = table.inst(i);
    out.add_pc_deltas(int64_t(s.pc - prev_pc));
    prev_pc = s.pc;
    out.add_opcode_ids(s.opcode_id);
    out.add_dst_counts(uint32_t(s.dsts.size()));
    out.add_src_counts(uint32_t(s.srcs.size()));
    for (const RegRef& r : s.dsts) out.add_regs(uint32_t(r.num) * 4 + uint32_t(r.kind));
    for (const RegRef& r : s.srcs) out.add_regs(uint32_t(r.num) * 4 + uint32_t(r.kind));
    out.add_mem_widths(s.mem_width);
    out.add_flags(uint32_t(s.has_immediate) | uint32_t(s.has_line) << 1 | uint32_t(s.immediate != 0) << 2 |
                  uint32_t(s.line != 0) << 3 | uint32_t(s.has_imm2) << 4 | uint32_t(s.imm2 != 0) << 5 |
                  uint32_t(s.value_marker == ValueMarker::kNoVal) << 6 |
                  uint32_t(s.value_marker == ValueMarker::kValDropped) << 7 | uint32_t(s.gmma_commit >= 0) << 8 |
                  uint32_t(s.gmma_commit == 1) << 9 | uint32_t(s.transfer_dropped) << 10);
    if (s.immediate != 0) out.add_immediates(s.immediate);
    if (s.imm2 != 0) out.add_immediates2(s.imm2);
    if (s.line != 0) {
      out.add_line_deltas(int64_t(s.line) - int64_t(prev_line));
      prev_line = s.line;
    }
  }
}

std::string encode_kernel_table_frame(uint32_t kernel_index, const StaticTable& table) {
  proto::KernelTable msg;
  encode_kernel_table(kernel_index, table, msg);
  return compress_frame(serialize(msg, "KernelTable"), FrameCodec::kXz);
}

StaticTable decode_kernel_table(const proto::KernelTable& msg, const std::string& where) {
  StaticTable table;
  for (int i = 0; i < msg.opcodes_size(); ++i) {
    if (msg.opcodes(i).empty()) throw TraceError(where + ": opcode " + std::to_string(i) + " is empty");
    if (table.intern_opcode(msg.opcodes(i)) != uint32_t(i))
      throw TraceError(where + ": opcode " + std::to_string(i) + " (" + msg.opcodes(i) + ") listed twice");
  }
  const uint32_t n = msg.num_insts();
  auto column = [&](int size, const char* name) {
    if (uint32_t(size) != n)
      throw TraceError(where + ": column " + name + " has " + std::to_string(size) + " values for " +
                       std::to_string(n) + " static instructions");
  };
  column(msg.pc_deltas_size(), "pc_deltas");
  column(msg.opcode_ids_size(), "opcode_ids");
  column(msg.dst_counts_size(), "dst_counts");
  column(msg.src_counts_size(), "src_counts");
  column(msg.mem_widths_size(), "mem_widths");
  column(msg.flags_size(), "flags");
  int reg = 0, imm = 0, imm2 = 0, line = 0;
  auto regs = [&](uint32_t count, std::vector<RegRef>& out, uint32_t inst) {
    if (count > uint32_t(msg.regs_size() - reg))
      throw TraceError(where + ": static instruction " + std::to_string(inst) + ": register column runs out");
    out.reserve(count);
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t v = msg.regs(reg++);
      if ((v >> 2) > 0xffff)
        throw TraceError(where + ": static instruction " + std::to_string(inst) + ": register number " +
                         std::to_string(v >> 2) + " out of range");
      out.push_back(RegRef{RegKind(v & 3), uint16_t(v >> 2)});
    }
  };
  // The next value of an immediates column: only those that are not 0 are stored.
  auto nonzero = [&](const google::protobuf::RepeatedField<int64_t>& column, int& at, const char* what,
                     uint32_t inst) {
    if (at >= column.size())
      throw TraceError(where + ": static instruction " + std::to_string(inst) + ": " + what + " column runs out");
    const int64_t v = column.Get(at++);
    if (v == 0) throw TraceError(where + ": static instruction " + std::to_string(inst) + ": zero " + what + " stored");
    return v;
  };
  uint64_t pc = 0;
  uint32_t prev_line = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const int k = int(i);
    StaticInstruction s;
    s.pc = pc += uint64_t(msg.pc_deltas(k));
    s.opcode_id = msg.opcode_ids(k);
    if (s.opcode_id >= uint32_t(msg.opcodes_size()))
      throw TraceError(where + ": static instruction " + std::to_string(i) + ": opcode index " +
                       std::to_string(s.opcode_id) + " out of range (" + std::to_string(msg.opcodes_size()) +
                       " opcodes)");
    regs(msg.dst_counts(k), s.dsts, i);
    regs(msg.src_counts(k), s.srcs, i);
    s.mem_width = msg.mem_widths(k);
    const uint32_t flags = msg.flags(k);
    if (flags > 2047 || (flags & 0xc0) == 0xc0 || (flags & 0x300) == 0x200 || (flags & 0x30) == 0x20)
      throw TraceError(where + ": static instruction " + std::to_string(i) + ": bad flags " + std::to_string(flags));
    s.has_immediate = flags & 1;
    s.has_line = flags & 2;
    s.has_imm2 = flags & 16;
    if (flags & 32) s.imm2 = nonzero(msg.immediates2(), imm2, "second immediate", i);
    s.value_marker = flags & 64 ? ValueMarker::kNoVal : flags & 128 ? ValueMarker::kValDropped : ValueMarker::kNone;
    s.gmma_commit = flags & 256 ? int8_t((flags >> 9) & 1) : int8_t(-1);
    s.transfer_dropped = flags & 1024;
    if (flags & 4) s.immediate = nonzero(msg.immediates(), imm, "immediate", i);
    if (flags & 8) {
      if (line >= msg.line_deltas_size())
        throw TraceError(where + ": static instruction " + std::to_string(i) + ": line column runs out");
      const int64_t d = msg.line_deltas(line++);
      const int64_t v = d > int64_t(kMaxU32) || d < -int64_t(kMaxU32) ? -1 : int64_t(prev_line) + d;
      if (v <= 0 || v > int64_t(kMaxU32))
        throw TraceError(where + ": static instruction " + std::to_string(i) + ": line " + std::to_string(v) +
                         " out of range");
      s.line = prev_line = uint32_t(v);
    }
    if (table.intern(s) != i)
      throw TraceError(where + ": static instruction " + std::to_string(i) + " duplicates an earlier one");
  }
  if (reg != msg.regs_size() || imm != msg.immediates_size() || imm2 != msg.immediates2_size() ||
      line != msg.line_deltas_size())
    throw TraceError(where + ": unused values in the register, immediate or line columns");
  return table;
}

StaticTable decode_kernel_table_frame(std::string_view frame, const std::string& where, uint32_t* named,
                                      size_t max_size) {
  std::string raw;
  decompress_frame_to_limit(frame, max_size, where, raw);
  proto::KernelTable msg;
  if (raw.size() > size_t(std::numeric_limits<int>::max()) || !msg.ParseFromArray(raw.data(), int(raw.size())))
    throw TraceError(where + ": bad protobuf (KernelTable does not parse)");
  if (named) *named = msg.kernel_index();
  return decode_kernel_table(msg, where);
}

StaticTable decode_kernel_table_frame(std::string_view frame, uint32_t kernel_index, const std::string& where) {
  uint32_t named = 0;
  StaticTable table = decode_kernel_table_frame(frame, where, &named);
  if (named != kernel_index)
    throw TraceError(where + ": table names kernel " + std::to_string(named) + ", expected " +
                     std::to_string(kernel_index));
  return table;
}

}  // namespace lockstep
