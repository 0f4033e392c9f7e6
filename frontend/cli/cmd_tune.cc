#include "frontend/cli/commands.h"
#include <stdexcept>
namespace lockstep::cli {
int cmd_tune(const Args&) { throw std::runtime_error("tune: in progress"); }
}  // namespace lockstep::cli
