#include "memsys/memory_stats.h"

namespace lockstep {

namespace {
// One list of (name, member) keeps += and for_each in step.
template <typename Visit>
void visit_fields(MemoryStats& s, Visit&& v) {
  v("lockstep__icnt_request_packets", s.icnt_request_packets);
  v("lockstep__icnt_request_flits", s.icnt_request_flits);
  v("lockstep__icnt_reply_packets", s.icnt_reply_packets);
  v("lockstep__icnt_reply_flits", s.icnt_reply_flits);
  v("lockstep__icnt_stall_cycles", s.icnt_stall_cycles);
  v("lts__t_sectors_op_read.sum", s.l2_read_sectors);
  v("lts__t_sectors_op_read_lookup_hit.sum", s.l2_read_hits);
  v("lts__t_sectors_op_write.sum", s.l2_write_sectors);
  v("lts__t_sectors_op_write_lookup_hit.sum", s.l2_write_hits);
  v("lts__t_sectors_op_atom.sum", s.l2_atomic_sectors);
  v("lockstep__l2_mshr_merges", s.l2_mshr_merges);
  v("lockstep__l2_reservation_fails", s.l2_reservation_fails);
  v("lockstep__l2_writeback_sectors", s.l2_writeback_sectors);
  v("lockstep__l2_fill_sectors", s.l2_fill_sectors);
  v("dram__sectors_read.sum", s.dram_read_sectors);
  v("dram__sectors_write.sum", s.dram_write_sectors);
  v("lockstep__dram_activates", s.dram_activates);
  v("lockstep__dram_precharges", s.dram_precharges);
  v("lockstep__dram_row_hits", s.dram_row_hits);
  v("lockstep__dram_refreshes", s.dram_refreshes);
  v("lockstep__dram_data_bus_cycles", s.dram_data_bus_cycles);
}
}  // namespace

MemoryStats& MemoryStats::operator+=(const MemoryStats& o) {
  MemoryStats copy = o;
  uint64_t* src[32];
  int n = 0;
  visit_fields(copy, [&](const char*, uint64_t& f) { src[n++] = &f; });
  n = 0;
  visit_fields(*this, [&](const char*, uint64_t& f) { f += *src[n++]; });
  return *this;
}

void MemoryStats::for_each(const std::function<void(const std::string&, uint64_t)>& visit) const {
  MemoryStats copy = *this;
  visit_fields(copy, [&](const char* name, uint64_t& f) { visit(name, f); });
}

}  // namespace lockstep
