#pragma once
// Nsight Compute's raw-page CSV (`ncu --csv --page raw --metrics ...`), the
// wide format: a header row, an optional units row, one row per profiled
// kernel launch. Lines before the header (ncu's `==PROF==` lines and the
// application's own output when both share a stream) are skipped: the header
// is the first line whose CSV fields include "ID" and "Kernel Name". Fields
// are parsed by libcsv (RFC 4180: quotes, doubled quotes, commas inside
// quotes). Numbers may carry thousands separators ("1,234"); a unit with a
// K/M/G prefix in the units row ("Kcycle", "Msector") scales the column's values.
#include <string>
#include <vector>

#include "frontend/validate/kernel_counters.h"

namespace lockstep::validate {

// The kernels in row order, each with the columns named in `metrics` that
// the file has (a metric without a column is simply absent; a row with an
// empty or "n/a" cell lacks that counter). Throws std::runtime_error with one
// line naming the file, and the row and column where it applies: unreadable
// file, no header, a header without "Kernel Name", a malformed CSV, a row of
// the wrong width, a non-numeric value in a metric column.
KernelSequence read_ncu_csv(const std::string& path, const std::vector<std::string>& metrics);

// The records of CSV `text` (libcsv), each a list of fields. Throws
// std::runtime_error("<what>: ...") on malformed input.
std::vector<std::vector<std::string>> parse_csv_records(const std::string& text, const std::string& what);

}  // namespace lockstep::validate
