#include "parallel/thread_affinity.h"

#include <pthread.h>
#include <sched.h>

namespace lockstep {

namespace {
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

void set_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}
}  // namespace

CpuAffinity pin_current_thread(uint32_t index) {
  CpuAffinity before{allowed_cpus()};
  if (!before.cpus.empty()) set_cpus({before.cpus[index % before.cpus.size()]});
  return before;
}

void restore_affinity(const CpuAffinity& affinity) { set_cpus(affinity.cpus); }

}  // namespace lockstep
