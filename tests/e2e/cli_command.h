#pragma once
// Running the built `lockstep` driver from a test: exit code, stdout, stderr.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_paths.h"

namespace lockstep::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `text` in single quotes, for a shell command line.
inline std::string quoted(const std::filesystem::path& text) {
  std::string s(1, '\'');
  s += text.string();
  s += '\'';
  return s;
}

// Runs a shell command line; stdout captured, stderr through a file in `dir`.
inline CommandResult shell_cmd(const std::string& command, const ScratchDir& dir) {
  std::string cmd = command;
  cmd += " 2>";
  cmd += quoted(dir / "stderr.txt");
  CommandResult r;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text(dir / "stderr.txt");
  return r;
}

// Runs `lockstep ARGS` (ARGS as a shell would split them); stderr goes through a file in `dir`.
// `shell_prefix` (e.g. "ulimit -v N;") runs first in the same shell.
inline CommandResult lockstep_cmd(const std::string& args, const ScratchDir& dir, const std::string& shell_prefix = "") {
  std::string cmd = shell_prefix;
  cmd += quoted(lockstep_binary());
  cmd += ' ';
  cmd += args;
  return shell_cmd(cmd, dir);
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

inline void write_text(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace lockstep::test

namespace lockstep::test {

// A `lockstep` (or any program) started without a shell, for tests that
// signal it or read its output while it runs.
struct Child {
  pid_t pid = -1;
};

// Starts `argv` with stdout and stderr sent to the files named.
inline Child spawn(const std::vector<std::string>& argv, const std::filesystem::path& out,
                   const std::filesystem::path& err) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Child c;
  c.pid = fork();
  if (c.pid == 0) {
    if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) _exit(126);
    execv(args[0], args.data());
    _exit(127);
  }
  return c;
}

// The wait status of `c`, waiting for it to end.
inline int wait_for(const Child& c) {
  int status = 0;
  waitpid(c.pid, &status, 0);
  return status;
}

}  // namespace lockstep::test
