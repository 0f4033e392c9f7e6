#pragma once
// Opens any trace lockstep reads: a .lst container (by its magic bytes) or an
// Accel-Sim text trace (directory, kernelslist, kernel file).
#include <filesystem>
#include <memory>

#include "frontend/trace/kernel_completeness.h"
#include "frontend/trace/trace_source.h"
#include "frontend/trace/warnings.h"

namespace lockstep {

bool is_container_file(const std::filesystem::path& path);
// A trace that is not whole (kernel_completeness.h) is an error unless
// `partial` allows it: a text trace is checked as each kernel's blocks are
// read, a container by what its conversion found.
std::unique_ptr<TraceSource> open_trace(const std::filesystem::path& path, WarningHandler warn = print_warning,
                                        PartialTraces partial = PartialTraces::kReject);

}  // namespace lockstep
