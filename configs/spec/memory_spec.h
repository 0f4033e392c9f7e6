#pragma once
// The immutable description of the memory system below the SM's LD/ST unit:
// L1 data cache, SM <-> L2 interconnect, L2 slices and DRAM channels. Filled
// from a GPU config file (sections [l1d], [l2], [icnt], [dram]) and validated
// before use; each field's comment is its one-line description. Mutable state
// lives in the blocks that model these, never here.
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
struct L1dSpec {
  uint32_t line_bytes = 128;    // cache line (tag granularity)
  uint32_t sector_bytes = 32;   // fill and hit granularity inside a line
  uint32_t sets = 4;            // sets; fixed, the ways scale with the size when adaptive
  uint32_t ways = 64;           // ways at the base size (sets x ways x line); the size when not adaptive
  bool adaptive = true;         // L1D gets the unified storage the kernel's shared carve-out leaves free
  bool cache_global = true;     // global loads allocate in L1D (false: only read-only / non-coherent loads)
  bool streaming = true;        // allocate lines on fill, not on miss (misses never stall on line allocation)
  uint32_t banks = 4;           // data banks; one access per bank per cycle
  uint32_t bank_bytes = 32;     // bank interleave
  uint32_t hit_latency = 20;    // core cycles from access to data on a hit
  uint32_t mshr_entries = 512;  // outstanding missed sectors
  uint32_t mshr_max_merge = 8;  // requests merged into one outstanding sector
  uint32_t miss_queue = 16;     // misses waiting to enter the interconnect

  uint64_t base_bytes() const { return uint64_t(sets) * ways * line_bytes; }
};

// One L2 slice per memory sub-partition; slices = dram.channels x l2.subpartitions.
struct L2Spec {
  uint32_t subpartitions = 2;                    // L2 slices per DRAM channel
  uint32_t sets = 32;                            // sets per slice
  uint32_t ways = 24;                            // ways per slice
  uint32_t line_bytes = 128;                     // cache line (tag granularity)
  uint32_t sector_bytes = 32;                    // fill and hit granularity inside a line
  uint32_t latency = 160;                        // L2 cycles from slice input to data out on a hit
  uint32_t mshr_entries = 192;                   // outstanding missed sectors per slice
  uint32_t mshr_max_merge = 4;                   // requests merged into one outstanding sector
  uint32_t miss_queue = 32;                      // misses waiting for the DRAM channel
  IndexHash set_hash = IndexHash::kIpoly;        // set index inside a slice
  IndexHash partition_hash = IndexHash::kIpoly;  // which channel an address maps to
  uint32_t channel_interleave_bytes = 256;       // consecutive bytes mapped to one channel
  uint32_t icnt_to_l2_queue = 64;                // requests from the interconnect waiting for the slice
  uint32_t l2_to_dram_queue = 64;                // slice misses waiting for the DRAM scheduler
  uint32_t dram_to_l2_queue = 64;                // DRAM replies waiting to fill the slice
  uint32_t l2_to_icnt_queue = 64;                // replies waiting for the interconnect
  uint32_t atomic_latency = 4;                   // L2 cycles the atomic unit takes once the sector is readable

  uint64_t slice_bytes() const { return uint64_t(sets) * ways * line_bytes; }
};

// SM <-> L2 crossbar: two subnets (requests, replies), iSLIP arbitration.
struct IcntSpec {
  uint32_t flit_bytes = 40;           // bytes a port moves per interconnect cycle
  uint32_t latency = 2;               // interconnect cycles from injection to ejection without contention
  uint32_t in_buffer = 512;           // flits buffered per input port
  uint32_t out_buffer = 512;          // flits buffered per output port
  uint32_t sm_ejection_buffer = 32;   // packets the SM side accepts before back-pressuring the network
  uint32_t ldst_response_buffer = 2;  // replies the LD/ST unit holds before it stops ejecting
};

// One DRAM channel per memory partition. Timings are in DRAM command-clock cycles (clock.dram_mhz).
struct DramSpec {
  DramType type = DramType::kHbm2;                   // device class
  uint32_t channels = 32;                            // independent channels (memory partitions)
  uint32_t bus_width_bits = 128;                     // data bus per channel
  uint32_t burst_length = 2;                         // data beats per column command
  uint32_t data_rate = 2;                            // data beats per command clock (2: DDR, 4: QDR)
  uint32_t banks = 16;                               // banks per channel
  uint32_t bank_groups = 4;                          // bank groups per channel (1: none)
  uint32_t tCCD = 1;                                 // column to column, different bank groups
  uint32_t tCCDL = 2;                                // column to column, same bank group
  uint32_t tRRD = 3;                                 // activate to activate, different banks
  uint32_t tRCD = 12;                                // activate to read
  uint32_t tRCDWR = 9;                               // activate to write
  uint32_t tRAS = 28;                                // activate to precharge
  uint32_t tRP = 12;                                 // precharge to activate
  uint32_t tRC = 40;                                 // activate to activate, same bank
  uint32_t tCL = 12;                                 // read command to first data (CAS latency)
  uint32_t tWL = 2;                                  // write command to first data
  uint32_t tWR = 10;                                 // end of write data to precharge
  uint32_t tWTR = 3;                                 // end of write data to read command (write to read turnaround)
  uint32_t tRTW = 13;                                // read to write turnaround
  uint32_t tRTPL = 3;                                // read to precharge
  uint32_t tREFI = 0;                                // refresh interval (0: refresh not modelled)
  uint32_t tRFC = 0;                                 // refresh cycle time (of one bank with per_bank_refresh)
  bool per_bank_refresh = false;  // refresh one bank at a time in rotation every tREFI / banks (HBM REFSB), else all banks
  DramScheduler scheduler = DramScheduler::kFrFcfs;  // command scheduler
  uint32_t sched_queue = 64;                         // requests the scheduler sees per channel
  uint32_t write_queue = 0;                          // separate write queue per channel (0: writes share sched_queue)
  uint32_t write_high_watermark = 28;                // queued writes that start a write drain (with write_queue > 0)
  uint32_t write_low_watermark = 16;                 // queued writes at which a drain stops while reads wait
  uint32_t return_queue = 192;                       // replies buffered per channel
  bool dual_command_bus = true;                      // row and column commands issue in the same cycle (HBM)
  PagePolicy page_policy = PagePolicy::kOpen;        // keep rows open after an access, or precharge at once
  IndexHash bank_hash = IndexHash::kLinear;          // bank index inside a channel
  uint32_t extra_latency = 100;  // fixed core cycles added to every DRAM access (pads, PHY, return path)

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
