#pragma once
// Opens any trace lockstep reads: a .lst container (by its magic bytes) or an
// Accel-Sim text trace (directory, kernelslist, kernel file).
#include <filesystem>
#include <memory>

#include "frontend/trace/trace_source.h"
#include "frontend/trace/warnings.h"

namespace lockstep {

bool is_container_file(const std::filesystem::path& path);
std::unique_ptr<TraceSource> open_trace(const std::filesystem::path& path, WarningHandler warn = print_warning);

}  // namespace lockstep
