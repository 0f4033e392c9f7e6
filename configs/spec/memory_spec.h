#pragma once
// The immutable description of the memory system below the SM's LD/ST unit:
// L1 data cache, SM <-> L2 interconnect, L2 slices and DRAM channels. Filled
// from a GPU config file (sections [l1d], [l2], [icnt], [dram]) and validated
// before use. Each field is a config key; its description is in the block's
// <block>_keys.cc (l1d_keys.cc, l2_keys.cc, icnt_keys.cc, dram_keys.cc), the one
// place keys are described. Mutable state lives in the blocks that model
// these, never here.
#include <cstdint>

namespace lockstep {

// How a set (or memory channel, or DRAM bank) index is formed from an address.
enum class IndexHash : uint8_t {
  kLinear = 0,  // plain address bits
  kIpoly,       // irreducible-polynomial hash (Accel-Sim's IPOLY)
  kXor,         // index bits XORed with higher address bits
};

enum class DramType : uint8_t { kGddr5 = 0, kGddr5x, kGddr6, kHbm2, kHbm3 };
enum class DramScheduler : uint8_t { kFrFcfs = 0, kFcfs };
enum class PagePolicy : uint8_t { kOpen = 0, kClosed };

// Config spellings (lower case; parsed case-insensitively).
const char* index_hash_name(IndexHash hash);
const char* dram_type_name(DramType type);
const char* dram_scheduler_name(DramScheduler scheduler);
const char* page_policy_name(PagePolicy policy);

// Per-SM L1 data cache: sectored, banked, streaming (many MSHRs, allocate on fill).
// Keys l1d.*: l1d_keys.cc.
struct L1dSpec {
  uint32_t line_bytes = 128;
  uint32_t sector_bytes = 32;
  uint32_t sets = 4;
  uint32_t ways = 64;
  bool adaptive = true;
  bool cache_global = true;
  bool streaming = true;
  uint32_t banks = 4;
  uint32_t bank_bytes = 32;
  uint32_t hit_latency = 20;
  uint32_t mshr_entries = 512;
  uint32_t mshr_max_merge = 8;
  uint32_t miss_queue = 16;

  uint64_t base_bytes() const { return uint64_t(sets) * ways * line_bytes; }
};

// One L2 slice per memory sub-partition; slices = dram.channels x l2.subpartitions.
// Keys l2.*: l2_keys.cc.
struct L2Spec {
  uint32_t subpartitions = 2;
  uint32_t sets = 32;
  uint32_t ways = 24;
  uint32_t line_bytes = 128;
  uint32_t sector_bytes = 32;
  uint32_t latency = 160;
  uint32_t mshr_entries = 192;
  uint32_t mshr_max_merge = 4;
  uint32_t miss_queue = 32;
  IndexHash set_hash = IndexHash::kIpoly;
  IndexHash partition_hash = IndexHash::kIpoly;
  uint32_t channel_interleave_bytes = 256;
  uint32_t icnt_to_l2_queue = 64;
  uint32_t l2_to_dram_queue = 64;
  uint32_t dram_to_l2_queue = 64;
  uint32_t l2_to_icnt_queue = 64;
  uint32_t atomic_latency = 4;
  // true: write-validate (a write miss installs its bytes, no DRAM read);
  // false: fetch on write (a write to a sector not readable reads it from
  // DRAM first; the cache-functional model only).
  bool write_validate = true;

  uint64_t slice_bytes() const { return uint64_t(sets) * ways * line_bytes; }
};

// SM <-> L2 crossbar: two subnets (requests, replies), iSLIP arbitration.
// Keys icnt.*: icnt_keys.cc.
struct IcntSpec {
  uint32_t flit_bytes = 40;
  uint32_t latency = 2;
  uint32_t in_buffer = 512;
  uint32_t out_buffer = 512;
  uint32_t sm_ejection_buffer = 32;
  uint32_t ldst_response_buffer = 2;
};

// One DRAM channel per memory partition. Timings are in DRAM command-clock cycles (clock.dram_mhz).
// Keys dram.*: dram_keys.cc.
struct DramSpec {
  DramType type = DramType::kHbm2;
  uint32_t channels = 32;
  uint32_t bus_width_bits = 128;
  uint32_t burst_length = 2;
  uint32_t data_rate = 2;
  uint32_t banks = 16;
  uint32_t bank_groups = 4;
  uint32_t tCCD = 1;
  uint32_t tCCDL = 2;
  uint32_t tRRD = 3;
  uint32_t tRCD = 12;
  uint32_t tRCDWR = 9;
  uint32_t tRAS = 28;
  uint32_t tRP = 12;
  uint32_t tRC = 40;
  uint32_t tCL = 12;
  uint32_t tWL = 2;
  uint32_t tWR = 10;
  uint32_t tWTR = 3;
  uint32_t tRTW = 13;
  uint32_t tRTPL = 3;
  uint32_t tREFI = 0;
  uint32_t tRFC = 0;
  bool per_bank_refresh = false;
  DramScheduler scheduler = DramScheduler::kFrFcfs;
  uint32_t sched_queue = 64;
  uint32_t write_queue = 0;
  uint32_t write_high_watermark = 28;
  uint32_t write_low_watermark = 16;
  uint32_t return_queue = 192;
  bool dual_command_bus = true;
  PagePolicy page_policy = PagePolicy::kOpen;
  IndexHash bank_hash = IndexHash::kLinear;
  uint32_t extra_latency = 100;

  uint32_t access_bytes() const { return bus_width_bits / 8 * burst_length; }  // bytes per column command
};

struct MemorySpec {
  L1dSpec l1d;
  L2Spec l2;
  IcntSpec icnt;
  DramSpec dram;

  uint32_t l2_slices() const { return dram.channels * l2.subpartitions; }
  uint64_t l2_bytes() const { return l2.slice_bytes() * l2_slices(); }
  // Throws std::invalid_argument naming the first impossible value: "l2.sets = 0: must be >= 1".
  void validate() const;
};

}  // namespace lockstep
