#include "frontend/sweep/gnuplot.h"

#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "frontend/sweep/process.h"

namespace fs = std::filesystem;

namespace lockstep::sweep {

GnuplotPlot::GnuplotPlot() {
  std::string pattern = (fs::temp_directory_path() / "lockstep-plot-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory");
  scratch_ = pattern;
}

GnuplotPlot::~GnuplotPlot() {
  std::error_code ec;
  fs::remove_all(scratch_, ec);
}

fs::path GnuplotPlot::add_data(const std::string& name, const std::string& contents) {
  const fs::path path = scratch_ / name;
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out.flush()) throw std::runtime_error(path.string() + ": write failed");
  return path;
}

void GnuplotPlot::render_png(const std::string& commands, const fs::path& png, int width, int height) {
  const fs::path tmp = png.string() + ".tmp-" + std::to_string(::getpid()) + ".png";
  add_data("plot.gp", "set terminal png noenhanced size " + std::to_string(width) + "," + std::to_string(height) +
                          "\nset output " + gnuplot_quoted(tmp.string()) + "\n" + commands);
  const ProcessResult r = run_captured({"gnuplot", (scratch_ / "plot.gp").string()});
  if (r.exit_code != 0 || !fs::exists(tmp)) {
    std::error_code ec;
    fs::remove(tmp, ec);
    const std::string line = r.err.substr(0, r.err.find('\n'));
    throw std::runtime_error("gnuplot failed" + (line.empty() ? std::string() : ": " + line));
  }
  fs::rename(tmp, png);
}

std::string gnuplot_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace lockstep::sweep
