// No refresh (dram.tREFI = 0): no refresh ever falls due, so the channel never
// owes one, never blocks a bank for it, and an idle channel has no next event.
#include "memsys/dram/refresh/refresh_clock.h"

namespace lockstep {

RefreshTiming no_refresh_timing(const DramSpec&) { return RefreshTiming{}; }

}  // namespace lockstep
