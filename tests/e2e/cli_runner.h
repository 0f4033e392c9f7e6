#pragma once
// Runs the built lockstep driver for end-to-end tests: exit code, stdout and
// stderr of one command line.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/test_paths.h"

namespace lockstep {

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline Result lockstep_cmd(const std::string& args, const test::ScratchDir& dir) {
  const auto err_file = dir / "stderr.txt";
  std::string cmd = "'";  // appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "'" + std::string
  cmd.append(test::lockstep_binary().string()).append("' ").append(args).append(" 2>'").append(err_file.string()).append("'");
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  return r;
}

inline int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

inline void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace lockstep
