#include "memsys/sector_cache.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "memsys/index_hash/index_hash.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lockstep {
namespace {

bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("SectorCache: " + what);
}

// Bit i set where marks[i] == mark, for i < 16.
[[gnu::always_inline]] inline uint32_t matching_marks(const uint16_t* marks, uint16_t mark) {
#if defined(__SSE2__)
  // Eight marks a compare; the two results packed to bytes, one bit a byte.
  const __m128i pattern = _mm_set1_epi16(short(mark));
  const __m128i low = _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(marks)), pattern);
  const __m128i high = _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(marks + 8)), pattern);
  return uint32_t(_mm_movemask_epi8(_mm_packs_epi16(low, high)));
#else
  uint32_t bits = 0;
  for (uint32_t i = 0; i < 16; ++i) bits |= uint32_t(marks[i] == mark) << i;
  return bits;
#endif
}

}  // namespace

SectorCache::SectorCache(const SectorCacheGeometry& geometry) : geometry_(geometry) {
  check(is_power_of_two(geometry.sets), "sets must be a power of two");
  check(geometry.ways >= 1, "ways must be >= 1");
  check(is_power_of_two(geometry.sector_bytes) && geometry.sector_bytes <= kMaxSectorBytes,
        "sector_bytes must be a power of two <= 32");
  check(is_power_of_two(geometry.line_bytes) && geometry.line_bytes >= geometry.sector_bytes,
        "line_bytes must be a power of two >= sector_bytes");
  check(geometry.line_bytes / geometry.sector_bytes <= kMaxSectorsPerLine, "more than 32 sectors per line");
  const uint64_t lines = uint64_t(geometry.sets) * geometry.ways;
  check(lines < (uint64_t(1) << 30), "more than 2^30 lines");
  check(geometry.ways <= 65536, "more than 65536 ways");
  ways_in_use_ = geometry.ways;
  sectors_per_line_ = geometry.sectors_per_line();
  set_bits_ = uint32_t(std::countr_zero(geometry.sets));
  line_shift_ = uint32_t(std::countr_zero(geometry.line_bytes));
  sector_shift_ = uint32_t(std::countr_zero(geometry.sector_bytes));
  full_mask_ = geometry.sector_bytes == 32 ? 0xffffffffu : (1u << geometry.sector_bytes) - 1;
  lines_ = ZeroedArray<Line>(lines);
  byte_masks_ = ZeroedArray<uint32_t>(lines * sectors_per_line_);
  set_state_ = ZeroedArray<SetState>(geometry.sets);
  // A set of few ways is scanned: its tag marks take a host cache line or
  // two, where the index costs two scattered loads per lookup, two more per
  // eviction, and 32 bytes a line.
  scan_ = geometry.tag_lookup == TagLookup::kScan ||
          (geometry.tag_lookup == TagLookup::kAuto && geometry.ways <= kMaxScannedWays);
  if (scan_) {
    marks_per_set_ = (geometry.ways + kMarkGroup - 1) / kMarkGroup * kMarkGroup;
    marks_ = ZeroedArray<uint16_t>(uint64_t(geometry.sets) * marks_per_set_);
    home_shift_ = 32;
    return;
  }
  // The index: at most a quarter full (half for more than 2^29 lines, so
  // that a slot number fits 32 bits): a miss looks at ~1.4 slots on average
  // with linear probing (~2.5 at half full), and a deletion moves few entries.
  const uint64_t slots = std::max<uint64_t>(16, std::min<uint64_t>(std::bit_ceil(lines) * 4, uint64_t(1) << 31));
  home_shift_ = 32 - uint32_t(std::countr_zero(slots));
  tag_index_ = ZeroedArray<StoredSlot>(slots);
}

uint32_t SectorCache::set_of(uint64_t addr) const { return set_of_line(addr >> line_shift_); }

uint32_t SectorCache::set_of_line(uint64_t line) const {
  if (geometry_.set_hash == IndexHash::kIpoly && set_bits_ != 0 && set_bits_ <= kMaxIpolyBits) {
    // The hash is an XOR of one table entry per byte of the line number, so
    // its high half's part (mostly the same from one miss to the next) is
    // remembered and XORed with the low half's.
    const uint64_t high = line >> 32;
    if (high != ipoly_high_) {
      ipoly_high_ = high;
      ipoly_high_part_ = ipoly_index(high << 32, set_bits_);
    }
    return ipoly_index(uint32_t(line), set_bits_) ^ ipoly_high_part_;
  }
  return index_hash(geometry_.set_hash, line, set_bits_);
}

SectorCache::TagSlot SectorCache::find_in_index(uint64_t tag) const {
  const uint32_t mask = uint32_t(tag_index_.size() - 1);
  const uint32_t fingerprint = fingerprint_of(tag);
  for (uint32_t i = home_of(fingerprint);; i = (i + 1) & mask) {
    const StoredSlot slot = tag_index_[i];
    if (slot.empty()) {
      last_missing_ = tag;
      last_missing_slot_ = i;
      last_missing_set_ = true;
      return TagSlot{};
    }
    if (slot.fingerprint == fingerprint) {
      const Line& l = lines_[slot.line()];
      if (l.tag == tag) return last_found_ = TagSlot{tag, slot.line(), l.set};
    }
  }
}

SectorCache::TagSlot SectorCache::find_in_set(uint64_t tag) const {
  const uint32_t set = set_of_line(tag);
  const uint16_t* marks = &marks_[std::size_t(set) * marks_per_set_];
  const uint32_t present = set_state_[set].present;
  const uint16_t mark = mark_of(tag);
  static_assert(kMarkGroup == 16, "matching_marks() compares 16 marks");
  // A group's marks compared at once; every candidate's tag is compared (a
  // false candidate costs a look, never a wrong answer).
  for (uint32_t group = 0; group < present; group += kMarkGroup) {
    uint32_t candidates = matching_marks(marks + group, mark);
    if (present - group < kMarkGroup) candidates &= (1u << (present - group)) - 1;  // absent ways
    for (; candidates != 0; candidates &= candidates - 1) {
      const uint32_t line = index_of(set, group + uint32_t(std::countr_zero(candidates)));
      if (lines_[line].tag == tag) return last_found_ = TagSlot{tag, line, set};
    }
  }
  last_missing_ = tag;
  last_missing_slot_ = set;  // (scan_: the set to allocate in)
  last_missing_set_ = true;
  return TagSlot{};
}

uint32_t SectorCache::set_to_allocate(uint64_t addr) const {
  const uint64_t tag = addr >> line_shift_;
  if (scan_ && last_missing_set_ && last_missing_ == tag) return last_missing_slot_;
  return set_of_line(tag);
}

uint32_t SectorCache::free_slot_for(uint64_t tag) const {
  if (last_missing_set_ && last_missing_ == tag) return last_missing_slot_;
  const uint32_t mask = uint32_t(tag_index_.size() - 1);
  uint32_t i = home_slot(tag);
  while (!tag_index_[i].empty()) i = (i + 1) & mask;
  return i;
}

void SectorCache::index_insert_at(uint32_t slot, uint64_t tag, uint32_t line) {
  tag_index_[slot] = StoredSlot{~line, fingerprint_of(tag)};
  lines_[line].slot = slot;
  last_missing_set_ = false;
}

[[gnu::always_inline]] inline void SectorCache::index_erase_at(uint32_t slot) {
  const uint32_t mask = uint32_t(tag_index_.size() - 1);
  if (last_found_.line == tag_index_[slot].line()) last_found_ = TagSlot{};
  last_missing_set_ = false;  // (a hole may now end its probe run earlier)
  uint32_t hole = slot;
  // Backward-shift deletion: pull later entries of the probe run into the hole
  // unless their home slot lies cyclically in (hole, j], so every entry stays
  // reachable from its home slot without tombstones.
  for (uint32_t j = (hole + 1) & mask; !tag_index_[j].empty(); j = (j + 1) & mask) {
    const uint32_t home = home_of(tag_index_[j].fingerprint);
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      tag_index_[hole] = tag_index_[j];
      lines_[tag_index_[hole].line()].slot = hole;
      hole = j;
    }
  }
  tag_index_[hole] = StoredSlot{};
}

[[gnu::always_inline]] inline void SectorCache::make_mru(uint32_t set, uint32_t way) {
  SetState& st = set_state_[set];
  if (st.mru == way) return;
  Line* ways = &lines_[index_of(set, 0)];
  // Unlink (way is not the MRU, so it has a more recently used neighbour).
  const uint16_t prev = ways[way].lru_prev;
  const uint16_t next = ways[way].lru_next;
  ways[prev].lru_next = next;
  if (st.lru == way) {
    st.lru = prev;
  } else {
    ways[next].lru_prev = prev;
  }
  ways[way].lru_next = uint16_t(st.mru);
  ways[st.mru].lru_prev = uint16_t(way);
  st.mru = way;
}

Eviction SectorCache::eviction_of(uint32_t line_index) const {
  Eviction ev;
  const Line& l = lines_[line_index];
  ev.valid = true;
  ev.line_addr = l.tag << line_shift_;
  ev.valid_sectors = l.valid;
  ev.dirty_sectors = l.dirty;
  return ev;
}

[[gnu::always_inline]] inline uint32_t SectorCache::use_found(uint64_t addr, TagSlot found, bool allocate_line,
                                                              Eviction& ev) {
  if (found.line != kNoLine) {
    make_mru(found.set, found.line - index_of(found.set, 0));
    return found.line;
  }
  return allocate_line ? allocate(set_to_allocate(addr), addr >> line_shift_, &ev) : kNoLine;
}

uint32_t SectorCache::use_line(uint64_t addr, bool allocate_line, Eviction& ev) {
  return use_found(addr, find(addr >> line_shift_), allocate_line, ev);
}

Eviction SectorCache::victim_of(uint64_t addr) const {
  const uint64_t tag = addr >> line_shift_;
  if (find(tag).line != kNoLine) return Eviction{};
  const uint32_t set = set_to_allocate(addr);
  if (set_state_[set].present < ways_in_use_) return Eviction{};
  return eviction_of(index_of(set, set_state_[set].lru));
}

uint32_t SectorCache::allocate(uint32_t set, uint64_t tag, Eviction* ev) {
  SetState& st = set_state_[set];
  Line* ways = &lines_[index_of(set, 0)];
  // The new tag goes where its lookup ended, before the victim leaves the
  // index: erasing first could open a hole earlier in the new tag's probe run.
  const uint32_t free_slot = scan_ ? 0 : free_slot_for(tag);
  uint32_t way = 0;
  if (st.present < ways_in_use_) {
    // A free way: becomes present and most recently used.
    way = st.present++;
    if (way == 0) {
      st.lru = 0;
    } else {
      ways[way].lru_next = uint16_t(st.mru);
      ways[st.mru].lru_prev = uint16_t(way);
    }
    st.mru = way;
    ways[way].set = set;
    if (!scan_) index_insert_at(free_slot, tag, index_of(set, way));
  } else {
    // The least recently used way becomes the most recently used.
    way = st.lru;
    Line& victim = ways[way];
    *ev = Eviction{true, victim.tag << line_shift_, victim.valid, victim.dirty};
    if (!scan_) {
      const uint32_t victim_slot = victim.slot;
      index_insert_at(free_slot, tag, index_of(set, way));
      index_erase_at(victim_slot);
    }
    if (st.mru != way) {
      const uint16_t prev = victim.lru_prev;  // (the LRU way has no less recently used neighbour)
      ways[prev].lru_next = victim.lru_next;
      st.lru = prev;
      victim.lru_next = uint16_t(st.mru);
      ways[st.mru].lru_prev = uint16_t(way);
      st.mru = way;
    }
  }
  Line& l = ways[way];  // (its place in the recency list and its slot are set above)
  l.tag = tag;
  if (scan_) {
    marks_[std::size_t(set) * marks_per_set_ + way] = mark_of(tag);
    last_missing_set_ = false;
  }
  l.valid = l.dirty = l.whole = 0;  // (no sector valid: its byte masks are not read until written)
  last_found_ = TagSlot{tag, index_of(set, way), set};
  return index_of(set, way);
}

SectorState SectorCache::probe(uint64_t addr) const {
  const uint32_t li = find(addr >> line_shift_).line;
  if (li == kNoLine) return SectorState::kLineMiss;
  const uint32_t s = sector_in_line(addr);
  if (!(lines_[li].valid >> s & 1)) return SectorState::kSectorMiss;
  return lines_[li].whole >> s & 1 ? SectorState::kHit : SectorState::kPartial;
}

uint32_t SectorCache::byte_mask(uint64_t addr) const {
  const uint32_t li = find(addr >> line_shift_).line;
  if (li == kNoLine) return 0;
  const uint32_t s = sector_in_line(addr);
  const Line& l = lines_[li];
  if (!(l.valid >> s & 1)) return 0;
  return l.whole >> s & 1 ? full_mask_ : masks(li)[s];
}

bool SectorCache::touch(uint64_t addr) {
  const TagSlot found = find(addr >> line_shift_);
  if (found.line == kNoLine) return false;
  make_mru(found.set, found.line - index_of(found.set, 0));
  return true;
}

bool SectorCache::read_hit(uint64_t addr) {
  const TagSlot found = find(addr >> line_shift_);
  if (found.line == kNoLine) return false;
  const uint32_t s = sector_in_line(addr);
  const Line& l = lines_[found.line];
  if (!((l.valid & l.whole) >> s & 1)) return false;
  make_mru(found.set, found.line - index_of(found.set, 0));
  return true;
}


Eviction SectorCache::write(uint64_t addr, uint32_t byte_mask, bool allocate_line) {
  Eviction ev;
  const uint32_t li = use_line(addr, allocate_line, ev);
  if (li == kNoLine) return ev;
  write_bytes(li, sector_in_line(addr), byte_mask);
  Line& l = lines_[li];
  l.valid |= 1u << sector_in_line(addr);
  if (geometry_.write_policy == WritePolicy::kWriteBack) l.dirty |= 1u << sector_in_line(addr);
  return ev;
}

void SectorCache::write_bytes(uint32_t line_index, uint32_t s, uint32_t byte_mask) {
  Line& l = lines_[line_index];
  const uint32_t bit = 1u << s;
  const uint32_t bytes = byte_mask & full_mask_;
  if (bytes == full_mask_) {
    l.whole |= bit;
    return;
  }
  uint32_t& m = masks(line_index)[s];
  const uint32_t had = l.valid & bit ? (l.whole & bit ? full_mask_ : m) : 0;  // (an invalid sector's mask is stale)
  const uint32_t now = had | bytes;
  if (now == full_mask_) {
    l.whole |= bit;
  } else {
    m = now;
    l.whole &= ~bit;
  }
}

uint32_t SectorCache::readable_in(uint32_t line_index, uint32_t sectors) const {
  const Line& l = lines_[line_index];
  return sectors & l.valid & l.whole;
}

uint32_t SectorCache::readable_sectors(uint64_t addr, uint32_t sectors) const {
  const uint32_t li = find(addr >> line_shift_).line;
  return li == kNoLine ? 0 : readable_in(li, sectors);
}

uint32_t SectorCache::read_hit_sectors(uint64_t addr, uint32_t sectors) {
  const TagSlot found = find(addr >> line_shift_);
  if (found.line == kNoLine) return 0;
  const uint32_t readable = readable_in(found.line, sectors);
  if (readable != 0) make_mru(found.set, found.line - index_of(found.set, 0));
  return readable;
}

Eviction SectorCache::fill_sectors(uint64_t addr, uint32_t sectors) {
  Eviction ev;
  if (sectors == 0) return ev;
  const uint32_t li = use_line(addr, true, ev);
  lines_[li].valid |= sectors;
  lines_[li].whole |= sectors;  // (bytes written before stay: every byte is present now)
  return ev;
}

template <typename BytesOf>
[[gnu::always_inline]] inline Eviction SectorCache::write_sectors_with(uint64_t addr, uint32_t sectors, bool allocate_line, BytesOf&& bytes_of) {
  Eviction ev;
  if (sectors == 0) return ev;
  const uint32_t li = use_line(addr, allocate_line, ev);
  if (li == kNoLine) return ev;
  for (uint32_t v = sectors; v != 0; v &= v - 1) {
    const uint32_t s = uint32_t(std::countr_zero(v));
    write_bytes(li, s, bytes_of(s));
  }
  Line& l = lines_[li];
  l.valid |= sectors;
  if (geometry_.write_policy == WritePolicy::kWriteBack) l.dirty |= sectors;
  return ev;
}

Eviction SectorCache::write_sectors(uint64_t addr, uint32_t sectors, const uint32_t* byte_masks, bool allocate_line) {
  // All of them whole (a copy's sectors but its first and last, a warp's
  // stores of whole sectors): the single-mask form, which writes no masks.
  bool whole = true;
  for (uint32_t v = sectors; v != 0; v &= v - 1) whole &= (byte_masks[std::countr_zero(v)] & full_mask_) == full_mask_;
  if (whole) return write_sectors(addr, sectors, full_mask_, allocate_line);
  return write_sectors_with(addr, sectors, allocate_line, [byte_masks](uint32_t s) { return byte_masks[s]; });
}

[[gnu::always_inline]] inline Eviction SectorCache::write_found(uint64_t addr, TagSlot found, uint32_t sectors, uint32_t byte_mask,
                                  bool allocate_line) {
  if ((byte_mask & full_mask_) == full_mask_) {  // whole sectors: each becomes valid and whole
    Eviction ev;
    if (sectors == 0) return ev;
    const uint32_t li = use_found(addr, found, allocate_line, ev);
    if (li == kNoLine) return ev;
    Line& l = lines_[li];
    l.valid |= sectors;
    l.whole |= sectors;
    if (geometry_.write_policy == WritePolicy::kWriteBack) l.dirty |= sectors;
    return ev;
  }
  return write_sectors_with(addr, sectors, allocate_line, [byte_mask](uint32_t) { return byte_mask; });
}

uint32_t SectorCache::read_hit_or_fill_sectors(uint64_t addr, uint32_t sectors, Eviction* ev) {
  *ev = Eviction{};
  if (sectors == 0) return 0;
  const uint64_t tag = addr >> line_shift_;
  const TagSlot found = find(tag);
  uint32_t hits = 0;
  uint32_t li = found.line;
  if (li != kNoLine) {
    // The read (when a sector is readable) and the fill (when one is not)
    // each make the line most recently used.
    hits = readable_in(li, sectors);
    make_mru(found.set, li - index_of(found.set, 0));
    if (hits == sectors) return hits;
  } else {
    li = allocate(set_to_allocate(addr), tag, ev);
  }
  Line& l = lines_[li];
  l.valid |= sectors;  // (the readable ones already are valid and whole)
  l.whole |= sectors;
  return hits;
}

Eviction SectorCache::write_sectors(uint64_t addr, uint32_t sectors, uint32_t byte_mask, bool allocate_line,
                                    bool* line_was_present) {
  const TagSlot found = find(addr >> line_shift_);
  *line_was_present = found.line != kNoLine;
  return write_found(addr, found, sectors, byte_mask, allocate_line);
}

Eviction SectorCache::write_sectors(uint64_t addr, uint32_t sectors, uint32_t byte_mask, bool allocate_line) {
  return write_found(addr, find(addr >> line_shift_), sectors, byte_mask, allocate_line);
}


void SectorCache::invalidate_all() {
  // Lines are reset when allocated; only the present counts and the tag index matter.
  // A cache holding few lines (an L1 after a short kernel) erases them one by
  // one rather than clearing the whole index. (Scanned sets read the tags of
  // their present ways only.)
  if (scan_) {
    // nothing to erase
  } else if (uint64_t(valid_lines()) * 8 < tag_index_.size()) {
    for (uint32_t set = 0; set < geometry_.sets; ++set)
      for (uint32_t w = 0; w < set_state_[set].present; ++w) index_erase_at(lines_[index_of(set, w)].slot);
  } else {
    tag_index_.clear_all();
  }
  for (SetState& st : set_state_) st = SetState{};
  last_found_ = TagSlot{};
  last_missing_set_ = false;
}

void SectorCache::set_ways(uint32_t ways) {
  check(ways >= 1 && ways <= geometry_.ways, "set_ways(" + std::to_string(ways) + ") outside 1 .. " +
                                                 std::to_string(geometry_.ways));
  ways_in_use_ = ways;
  invalidate_all();
}

uint32_t SectorCache::valid_lines() const {
  uint32_t n = 0;
  for (const SetState& st : set_state_) n += st.present;
  return n;
}

uint32_t SectorCache::valid_sectors() const {
  uint32_t n = 0;
  for (uint32_t set = 0; set < geometry_.sets; ++set)
    for (uint32_t w = 0; w < set_state_[set].present; ++w) n += uint32_t(std::popcount(lines_[index_of(set, w)].valid));
  return n;
}

uint32_t SectorCache::dirty_sectors() const {
  uint32_t n = 0;
  for (uint32_t set = 0; set < geometry_.sets; ++set)
    for (uint32_t w = 0; w < set_state_[set].present; ++w) n += uint32_t(std::popcount(lines_[index_of(set, w)].dirty));
  return n;
}

}  // namespace lockstep
