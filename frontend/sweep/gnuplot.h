#pragma once
// Drawing a PNG with gnuplot: data files in a scratch directory removed
// afterwards, the image written to a temporary name and renamed into place
// only when gnuplot succeeded (no partial output).
#include <filesystem>
#include <string>

namespace lockstep::sweep {

class GnuplotPlot {
 public:
  GnuplotPlot();  // throws std::runtime_error when no scratch directory can be made
  ~GnuplotPlot();
  GnuplotPlot(const GnuplotPlot&) = delete;
  GnuplotPlot& operator=(const GnuplotPlot&) = delete;

  // Writes `contents` to a scratch file `name` and returns its path, for the script to plot.
  std::filesystem::path add_data(const std::string& name, const std::string& contents);
  // Runs `commands` after "set terminal png noenhanced size W,H" and "set
  // output" of a temporary beside `png`; renames it to `png` on success.
  // Throws std::runtime_error "gnuplot failed: <its first error line>".
  void render_png(const std::string& commands, const std::filesystem::path& png, int width, int height);

 private:
  std::filesystem::path scratch_;
};

// 'text' in gnuplot's single quotes ('' for a quote).
std::string gnuplot_quoted(const std::string& text);

}  // namespace lockstep::sweep
