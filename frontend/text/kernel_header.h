#pragma once
// Reads a kernel trace's "-key = value" header into KernelInfo.
#include <string>

#include "frontend/text/line_reader.h"
#include "frontend/trace/kernel_info.h"
#include "frontend/trace/warnings.h"

namespace lockstep {

// Consumes header lines, comments and blank lines; stops at the first line of
// the body (returned in `first_body_line`, empty when the file has no body).
void read_kernel_header(LineReader& lines, KernelInfo& info, std::string& first_body_line,
                        const WarningHandler& warn);

// Sets one header field (typed member and the ordered list); returns false for an unknown key.
bool apply_header_field(KernelInfo& info, const std::string& key, const std::string& value, const std::string& where);

}  // namespace lockstep
