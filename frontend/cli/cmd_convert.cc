// Placeholder while the convert command is written; replaced in the same change.
#include <stdexcept>
#include "frontend/cli/commands.h"
namespace lockstep::cli {
int cmd_convert(const Args&) { throw std::runtime_error("convert: not built yet"); }
}  // namespace lockstep::cli
