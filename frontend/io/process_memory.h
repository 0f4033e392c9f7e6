#pragma once
// The peak resident memory of this process (Linux: VmHWM of /proc/self/status,
// the high-water mark of the address space the process got at its exec).
// getrusage's ru_maxrss is no substitute for a child's own figure: Linux
// carries the maximum across exec, so a child forked from a large process
// reports at least its parent's size at the fork.
namespace lockstep {

// In MB (2^20 bytes); 0 when the system does not say.
double process_peak_rss_mb();

}  // namespace lockstep
