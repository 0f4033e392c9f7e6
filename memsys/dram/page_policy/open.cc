// Open page policy: a column command (RD / WR) leaves its row open for later
// row hits; a PRE closes it only when another row is needed or for refresh.
#include "memsys/dram_channel.h"

namespace lockstep {

void DramChannel::open_page_after_column(const DramRequest& r, uint64_t now) {
  log(now, r.write ? DramCommandType::kWrite : DramCommandType::kRead, r.bank, r.row);
}

}  // namespace lockstep
