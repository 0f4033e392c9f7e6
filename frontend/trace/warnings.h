#pragma once
// Non-fatal findings in a trace (unknown header keys, instructions after EXIT)
// go to a handler the caller picks; the default prints one stderr line each.
#include <functional>
#include <string>

namespace lockstep {

using WarningHandler = std::function<void(const std::string&)>;

void print_warning(const std::string& message);  // "lockstep: warning: <message>" on stderr

}  // namespace lockstep
