#include "parallel/engine_options.h"

#include <stdexcept>

namespace lockstep {

const char* schedule_name(Schedule s) {
  switch (s) {
    case Schedule::kSeq: return "seq";
    case Schedule::kPara1: return "para1";
    case Schedule::kPara2: return "para2";
  }
  return "?";
}

const char* partition_name(Partition p) {
  switch (p) {
    case Partition::kContiguous: return "contiguous";
    case Partition::kRoundRobin: return "round-robin";
    case Partition::kBalanced: return "balanced";
  }
  return "?";
}

const char* handshake_name(HandshakeKind h) {
  switch (h) {
    case HandshakeKind::kSpinFutex: return "spin";
    case HandshakeKind::kStd: return "std";
  }
  return "?";
}

Schedule parse_schedule(const std::string& text) {
  for (Schedule s : {Schedule::kSeq, Schedule::kPara1, Schedule::kPara2})
    if (text == schedule_name(s)) return s;
  throw std::invalid_argument("--schedule " + text + ": expected seq, para1 or para2");
}

Partition parse_partition(const std::string& text) {
  for (Partition p : {Partition::kContiguous, Partition::kRoundRobin, Partition::kBalanced})
    if (text == partition_name(p)) return p;
  throw std::invalid_argument("--partition " + text + ": expected contiguous, round-robin or balanced");
}

HandshakeKind parse_handshake(const std::string& text) {
  for (HandshakeKind h : {HandshakeKind::kSpinFutex, HandshakeKind::kStd})
    if (text == handshake_name(h)) return h;
  throw std::invalid_argument("--handshake " + text + ": expected spin or std");
}

}  // namespace lockstep
