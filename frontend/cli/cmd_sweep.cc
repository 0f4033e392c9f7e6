// lockstep sweep FILE [--launcher local|slurm] [options]
// lockstep sweep --status DIR | --resubmit DIR | --collect DIR -o CSV [--plot COUNTER]...
#include <boost/program_options.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <thread>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/sweep/collect.h"
#include "frontend/sweep/local_launcher.h"
#include "frontend/sweep/point_runner.h"
#include "frontend/sweep/process.h"
#include "frontend/sweep/slurm_launcher.h"
#include "frontend/sweep/sweep_status.h"
#include "frontend/io/output_file.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace lockstep::cli {
namespace {

using namespace lockstep::sweep;

// The running lockstep binary: what every point runs.
fs::path own_binary() { return fs::read_symlink("/proc/self/exe"); }

int report_failures(const SweepDir& dir, const std::vector<size_t>& failed) {
  for (size_t i : failed)
    std::fprintf(stderr, "lockstep sweep: point %zu %s failed: %s\n", i, dir.points()[i].label().c_str(),
                 dir.status(i).detail.c_str());
  return failed.empty() ? 0 : 1;
}

// Runs `points` here; 0 when all of them completed.
int launch_local(const SweepDir& dir, const std::vector<size_t>& points, unsigned jobs) {
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency() / std::max(1u, dir.threads()));
  std::fprintf(stderr, "sweep: %zu points, %zu to run, %u at a time, in %s\n", dir.points().size(), points.size(), jobs,
               dir.root().c_str());
  const int rc = report_failures(dir, run_local(dir, points, jobs));
  if (rc == 0) std::fprintf(stderr, "sweep: every point complete; lockstep sweep --collect %s -o results.csv\n", dir.root().c_str());
  return rc;
}

// Polls the queue until none of `points` is pending or running; 0 when all completed.
int wait_for_tasks(const SweepDir& dir, const std::vector<size_t>& points) {
  ProgressLine progress(points.size());
  for (;;) {
    const std::vector<PointReport> reports = survey(dir, true);
    const SweepCounts c = count(reports, points);
    progress.update(c);
    if (c.running + c.pending == 0) {
      progress.finish();
      std::vector<size_t> failed;
      for (size_t i : points)
        if (!reports[i].complete()) failed.push_back(i);
      return report_failures(dir, failed);
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

int launch_slurm(const SweepDir& dir, const std::vector<size_t>& points, const SlurmOptions& options, bool wait) {
  if (points.empty()) {
    std::fprintf(stderr, "sweep: nothing to submit: every point of %s is complete or queued\n", dir.root().c_str());
    return 0;
  }
  const std::string job = submit_array(dir, points, options);
  std::printf("sweep: submitted %zu of %zu points as Slurm array job %s (--array=%s; recorded in %s)\n", points.size(),
              dir.points().size(), job.c_str(), array_spec(points).c_str(), (dir.slurm_dir() / "jobs.json").c_str());
  std::fflush(stdout);
  return wait ? wait_for_tasks(dir, points) : 0;
}

int collect(const SweepDir& dir, const std::string& csv, const std::vector<std::string>& plots) {
  if (csv.empty()) throw po::error("--collect needs -o FILE.csv");
  const CollectedResults results = collect_results(dir);
  for (size_t i : results.incomplete) {
    const PointStatus s = dir.status(i);
    std::fprintf(stderr, "lockstep sweep: point %zu %s has no result: %s\n", i, dir.points()[i].label().c_str(),
                 s.state == PointState::failed    ? s.detail.c_str()
                 : s.state == PointState::started ? "started but never finished (see lockstep sweep --status)"
                                                  : "never run");
  }
  write_output_file(csv, results.table.csv());
  std::printf("sweep: wrote %s (%zu rows from %zu of %zu points)\n", csv.c_str(), results.table.rows.size(),
              dir.points().size() - results.incomplete.size(), dir.points().size());
  std::string stem = csv;
  if (stem.size() > 4 && stem.ends_with(".csv")) stem.resize(stem.size() - 4);
  for (const std::string& counter : plots) {
    std::string safe = counter;
    for (char& ch : safe)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-') ch = '_';
    const std::string png = stem + "-" + safe + ".png";
    plot_counter(results.table, counter, png);
    std::printf("sweep: wrote %s\n", png.c_str());
  }
  return results.incomplete.empty() ? 0 : 1;
}

}  // namespace

int cmd_sweep(const Args& args) {
  std::string file, launcher, out, status_dir, resubmit_dir, collect_dir, run_point_dir, csv;
  std::vector<std::string> plots;
  unsigned jobs = 0;
  constexpr size_t kNoPoint = ~size_t(0);
  size_t point = kNoPoint;
  bool wait = false, dry_run = false;
  SlurmOptions slurm;
  po::options_description opts(
      "usage: lockstep sweep FILE [--launcher local|slurm] [options]   run or submit a sweep file's points\n"
      "       lockstep sweep --status DIR | --resubmit DIR | --collect DIR -o FILE.csv [--plot COUNTER]...\n"
      "FILE: a TOML sweep file (traces x GPU configs x override sets; see README, \"Sweeps on a cluster\")\noptions");
  opts.add_options()("help,h", "show this help")(
      "launcher", po::value(&launcher),
      "local (default): run the points on this machine; slurm: submit them as one sbatch --array job")(
      "out", po::value(&out), "output directory (instead of the sweep file's output)")(
      "jobs", po::value(&jobs), "local: points run at a time (default: cores / threads per point)")(
      "partition", po::value(&slurm.partition), "slurm: partition")("time", po::value(&slurm.time),
                                                                     "slurm: time limit per task (sbatch --time)")(
      "mem", po::value(&slurm.mem), "slurm: memory per task (sbatch --mem)")(
      "wait", po::bool_switch(&wait), "slurm: wait until the submitted tasks leave the queue, with a progress line")(
      "dry-run", po::bool_switch(&dry_run), "check the sweep file and print each point's command; run nothing")(
      "status", po::value(&status_dir), "DIR: each point's state (files, squeue, scontrol); exit 0 when all are complete")(
      "resubmit", po::value(&resubmit_dir),
      "DIR: submit again the points without a complete result that are not queued (with --launcher local, or for a "
      "sweep never submitted to Slurm: run them here)")(
      "collect", po::value(&collect_dir), "DIR: gather the complete points' statistics into -o FILE.csv")(
      "output,o", po::value(&csv), "--collect: the CSV file")(
      "plot", po::value(&plots)->composing(), "--collect: draw COUNTER per trace, one series per config (repeatable)")(
      "run-point", po::value(&run_point_dir), "DIR: run one point (--point N); what each array task does")(
      "point", po::value(&point), "--run-point: the point's index");
  if (!parse_command_line(args, opts, "file", file)) return 0;
  const int modes = !file.empty() + !status_dir.empty() + !resubmit_dir.empty() + !collect_dir.empty() +
                    !run_point_dir.empty();
  if (modes != 1)
    throw po::error("give one of: a sweep FILE, --status DIR, --resubmit DIR, --collect DIR, --run-point DIR");
  if (collect_dir.empty() && (!csv.empty() || !plots.empty())) throw po::error("-o and --plot go with --collect DIR");
  if (!launcher.empty() && launcher != "local" && launcher != "slurm") throw po::error("--launcher: expected local or slurm, got '" + launcher + "'");

  if (!run_point_dir.empty()) {
    if (point == kNoPoint) throw po::error("--run-point needs --point N");
    const SweepDir dir = SweepDir::open(run_point_dir);
    if (point >= dir.points().size())
      throw std::runtime_error("--point " + std::to_string(point) + ": the sweep has " +
                               std::to_string(dir.points().size()) + " points");
    return run_point(dir, point);
  }
  if (!status_dir.empty()) {
    const SweepDir dir = SweepDir::open(status_dir);
    const std::vector<PointReport> reports = survey(dir, true);
    print_status(stdout, dir, reports);
    return count(reports).done == reports.size() ? 0 : 1;
  }
  if (!collect_dir.empty()) return collect(SweepDir::open(collect_dir), csv, plots);
  if (!resubmit_dir.empty()) {
    const SweepDir dir = SweepDir::open(resubmit_dir);
    std::vector<size_t> todo;
    for (const PointReport& r : survey(dir, true))
      if (r.needs_run()) todo.push_back(r.index);
    const SlurmRecord record = read_slurm_record(dir);
    if (launcher == "local" || (launcher.empty() && record.jobs.empty())) return launch_local(dir, todo, jobs);
    const SlurmOptions& recorded = record.options;
    if (slurm.partition.empty()) slurm.partition = recorded.partition;
    if (slurm.time.empty()) slurm.time = recorded.time;
    if (slurm.mem.empty()) slurm.mem = recorded.mem;
    return launch_slurm(dir, todo, slurm, wait);
  }

  // A sweep file: everything is checked before anything runs or is submitted.
  const SweepSpec spec = load_sweep_file(file, out.empty() ? std::nullopt : std::optional<fs::path>(out));
  if (dry_run) {
    const std::vector<SweepPoint> points = plan_points(spec, own_binary());
    for (size_t i = 0; i < points.size(); ++i)
      std::printf("point %zu %s: %s\n", i, points[i].label().c_str(), shell_line(points[i].command).c_str());
    std::printf("%zu points, output %s\n", points.size(), spec.output.c_str());
    return 0;
  }
  const SweepDir dir = SweepDir::create(spec, own_binary());
  if (launcher != "slurm") return launch_local(dir, dir.incomplete(), jobs);
  std::vector<size_t> todo;
  for (const PointReport& r : survey(dir, true))
    if (r.needs_run()) todo.push_back(r.index);
  return launch_slurm(dir, todo, slurm, wait);
}

}  // namespace lockstep::cli
