#include "frontend/trace/warnings.h"

#include <cstdio>

namespace lockstep {

void print_warning(const std::string& message) { std::fprintf(stderr, "lockstep: warning: %s\n", message.c_str()); }

}  // namespace lockstep
