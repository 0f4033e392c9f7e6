#pragma once
// The one exception type of the trace side: a message that already says what
// went wrong and where ("file:line: ..." or "file: chunk N: ...").
#include <stdexcept>
#include <string>

namespace lockstep {

class TraceError : public std::runtime_error {
 public:
  explicit TraceError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace lockstep
