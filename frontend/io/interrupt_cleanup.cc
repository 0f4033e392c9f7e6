#include "frontend/io/interrupt_cleanup.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace lockstep {
namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::filesystem::path> temps;
};

// Never destroyed: the waiting thread may use it while the process exits.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

[[noreturn]] void remove_temps_and_die(int sig) {
  Registry& r = registry();
  r.mu.lock();  // held to the end: nothing registers or renames meanwhile
  for (const std::filesystem::path& p : r.temps)
    for (int attempt = 0; attempt < 3; ++attempt) {  // a writer may add a file while the walk runs
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
      if (!ec) break;
    }
  ::signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  ::raise(sig);  // the default action ends the process with the signal's status
  std::_Exit(128 + sig);
}

}  // namespace

void InterruptCleanup::install() {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t set = handled_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set] {
      int sig = 0;
      while (sigwait(&set, &sig) != 0) {
      }
      remove_temps_and_die(sig);
    }).detach();
  });
}

void InterruptCleanup::add(const std::filesystem::path& temp) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  r.temps.push_back(temp);
}

void InterruptCleanup::forget(const std::filesystem::path& temp) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = std::find(r.temps.begin(), r.temps.end(), temp);
  if (it != r.temps.end()) r.temps.erase(it);
}

}  // namespace lockstep
