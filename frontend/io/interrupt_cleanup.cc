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
  std::vector<pid_t> children;
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
  for (pid_t child : r.children) ::kill(child, sig);
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
    // A forked child (a benchmark's `lockstep` or `xz`) gets the signals as by default.
    pthread_atfork(nullptr, nullptr, [] {
      const sigset_t handled = handled_signals();
      pthread_sigmask(SIG_UNBLOCK, &handled, nullptr);
    });
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

namespace lockstep {

void InterruptCleanup::add_child(pid_t pid) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  r.children.push_back(pid);
}

void InterruptCleanup::forget_child(pid_t pid) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  r.children.erase(std::remove(r.children.begin(), r.children.end(), pid), r.children.end());
}

}  // namespace lockstep
