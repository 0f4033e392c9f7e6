// Placeholder while the export command is written; replaced in the same change.
#include <stdexcept>
#include "frontend/cli/commands.h"
namespace lockstep::cli {
int cmd_export(const Args&) { throw std::runtime_error("export: not built yet"); }
}  // namespace lockstep::cli
