// Placeholder while the info command is written; replaced in the same change.
#include <stdexcept>
#include "frontend/cli/commands.h"
namespace lockstep::cli {
int cmd_info(const Args&) { throw std::runtime_error("info: not built yet"); }
}  // namespace lockstep::cli
