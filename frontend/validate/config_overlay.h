#pragma once
// A config overlay: keys and values in the config file format (configs/README.md),
// grouped into [section]s in the order first seen, for `run --config BASE
// --config OVERLAY` (or --gpu NAME --config OVERLAY) to layer over a GPU.
#include <string>
#include <vector>

namespace lockstep::validate {

struct OverlayEntry {
  std::string key;      // "l1d.hit_latency", "unit.SP.latency"
  std::string value;    // as the file writes it
  std::string comment;  // where it comes from (a line of the source), may be empty
};

struct ConfigOverlay {
  std::vector<std::string> header;  // comment lines at the top (without '#')
  std::vector<OverlayEntry> entries;

  // A later entry of the same key replaces the earlier one.
  void set(const std::string& key, const std::string& value, const std::string& comment = "");
  // The file: header comments, then "[section]" and "name = value  # comment" lines.
  std::string text() const;
  // key=value for each entry, as --set takes them (to check the overlay over a GPU).
  std::vector<std::string> as_overrides() const;
};

}  // namespace lockstep::validate
