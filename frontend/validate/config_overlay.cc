#include "frontend/validate/config_overlay.h"

#include <algorithm>

namespace lockstep::validate {

void ConfigOverlay::set(const std::string& key, const std::string& value, const std::string& comment) {
  const auto it = std::find_if(entries.begin(), entries.end(), [&](const OverlayEntry& e) { return e.key == key; });
  if (it != entries.end())
    *it = {key, value, comment};
  else
    entries.push_back({key, value, comment});
}

std::string ConfigOverlay::text() const {
  std::string out;
  for (const std::string& h : header) out += "# " + h + "\n";
  // Sections in the order first seen; the section is the key up to its last dot.
  std::vector<std::string> sections;
  for (const OverlayEntry& e : entries) {
    const std::string section = e.key.substr(0, e.key.rfind('.'));
    if (std::find(sections.begin(), sections.end(), section) == sections.end()) sections.push_back(section);
  }
  for (const std::string& section : sections) {
    out += "\n[" + section + "]\n";
    for (const OverlayEntry& e : entries) {
      if (e.key.substr(0, e.key.rfind('.')) != section) continue;
      out += e.key.substr(e.key.rfind('.') + 1) + " = " + e.value;
      if (!e.comment.empty()) out += "    # " + e.comment;
      out += "\n";
    }
  }
  return out;
}

std::vector<std::string> ConfigOverlay::as_overrides() const {
  std::vector<std::string> out;
  for (const OverlayEntry& e : entries) out.push_back(e.key + "=" + e.value);
  return out;
}

}  // namespace lockstep::validate
