#pragma once
// TraceManifest <-> TraceHeader (the container's first frame).
#include <cstdint>
#include <string>

#include "frontend/trace/kernel_info.h"

namespace lockstep::proto {
class TraceHeader;
}

namespace lockstep {

inline constexpr const char* kContainerProducer = "lockstep 0.1.0";

void encode_manifest(const TraceManifest& manifest, uint32_t format_version, proto::TraceHeader& out);
// Validates the command list (every kernel index in range, every command set).
TraceManifest decode_manifest(const proto::TraceHeader& header, const std::string& where);

}  // namespace lockstep
