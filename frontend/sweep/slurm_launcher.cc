#include "frontend/sweep/slurm_launcher.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "frontend/sweep/process.h"
#include "frontend/io/output_file.h"

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace lockstep::sweep {
namespace {

fs::path record_path(const SweepDir& dir) { return dir.slurm_dir() / "jobs.json"; }
fs::path script_path(const SweepDir& dir) { return dir.slurm_dir() / "sweep.sh"; }

void write_slurm_record(const SweepDir& dir, const SlurmRecord& record) {
  json jobs = json::array();
  for (const SlurmRecord::Job& j : record.jobs) jobs.push_back({{"job", j.id}, {"tasks", j.tasks}});
  const json out = {{"jobs", jobs},
                    {"partition", record.options.partition},
                    {"time", record.options.time},
                    {"mem", record.options.mem}};
  write_output_file(record_path(dir).string(), out.dump(1) + "\n");
}

void write_job_script(const SweepDir& dir, const SlurmOptions& options) {
  std::string s = "#!/bin/bash\n";
  s += "# lockstep sweep: one array task per point of " + (dir.root() / "sweep.json").string() + "\n";
  s += "# (the task id is the point's index); each runs that point's lockstep run command.\n";
  s += "#SBATCH --job-name=lockstep-sweep\n";
  s += "#SBATCH --cpus-per-task=" + std::to_string(dir.threads()) + "\n";
  s += "#SBATCH --output=" + (dir.slurm_dir() / "task-%A_%a.out").string() + "\n";
  if (!options.partition.empty()) s += "#SBATCH --partition=" + options.partition + "\n";
  if (!options.time.empty()) s += "#SBATCH --time=" + options.time + "\n";
  if (!options.mem.empty()) s += "#SBATCH --mem=" + options.mem + "\n";
  s += "exec " + shell_line({dir.binary().string(), "sweep", "--run-point", dir.root().string()}) +
       " --point \"$SLURM_ARRAY_TASK_ID\"\n";
  write_output_file(script_path(dir).string(), s);
  fs::permissions(script_path(dir), fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
}

// "12_3" of a recorded job -> point 3.
bool parse_task(const std::string& task, const std::vector<std::string>& jobs, std::string& job, size_t& index) {
  const size_t underscore = task.find('_');
  if (underscore == std::string::npos) return false;
  job = task.substr(0, underscore);
  if (std::find(jobs.begin(), jobs.end(), job) == jobs.end()) return false;
  const std::string rest = task.substr(underscore + 1);
  if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos) return false;
  index = std::stoul(rest);
  return true;
}

std::vector<std::string> job_ids(const SweepDir& dir) {
  std::vector<std::string> out;
  for (const SlurmRecord::Job& j : read_slurm_record(dir).jobs) out.push_back(j.id);
  return out;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "no output" : line;
}

}  // namespace

SlurmRecord read_slurm_record(const SweepDir& dir) {
  SlurmRecord r;
  std::ifstream in(record_path(dir));
  if (!in) return r;
  const json j = json::parse(in, nullptr, false);
  try {
    for (const json& job : j.at("jobs")) r.jobs.push_back({job.at("job").get<std::string>(), job.at("tasks").get<std::string>()});
    r.options = {j.at("partition").get<std::string>(), j.at("time").get<std::string>(), j.at("mem").get<std::string>()};
  } catch (const std::exception& e) {
    throw std::runtime_error(record_path(dir).string() + ": not a valid job record (" + e.what() + ")");
  }
  return r;
}

std::string array_spec(const std::vector<size_t>& indices) {
  std::string out;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(indices[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(indices[j]);
    }
    i = j + 1;
  }
  return out;
}

std::string submit_array(const SweepDir& dir, const std::vector<size_t>& points, const SlurmOptions& options) {
  if (points.empty()) throw std::logic_error("submit_array: no points");
  fs::create_directories(dir.slurm_dir());
  write_job_script(dir, options);
  const std::string tasks = array_spec(points);
  const ProcessResult r = run_captured({"sbatch", "--parsable", "--array=" + tasks, script_path(dir).string()});
  if (r.exit_code != 0) throw std::runtime_error("sbatch failed: " + first_line(r.err.empty() ? r.out : r.err));
  std::string id = first_line(r.out);
  id = id.substr(0, id.find(';'));  // "ID;cluster" on multi-cluster setups
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("sbatch printed no job id: " + first_line(r.out));
  SlurmRecord record = read_slurm_record(dir);
  record.jobs.push_back({id, tasks});
  record.options = options;
  write_slurm_record(dir, record);
  return id;
}

std::map<size_t, TaskState> queued_tasks(const SweepDir& dir) {
  std::map<size_t, TaskState> out;
  const std::vector<std::string> jobs = job_ids(dir);
  if (jobs.empty()) return out;
  const ProcessResult r = run_captured({"squeue", "--me", "-h", "-r", "-n", "lockstep-sweep", "-o", "%i %T"});
  if (r.exit_code != 0) throw std::runtime_error("squeue failed: " + first_line(r.err));
  std::istringstream lines(r.out);
  std::string task, state, job;
  while (lines >> task >> state) {
    size_t index = 0;
    if (parse_task(task, jobs, job, index) && index < dir.points().size()) out[index] = {task, state};
  }
  return out;
}

std::map<size_t, TaskState> controller_tasks(const SweepDir& dir) {
  std::map<size_t, TaskState> out;
  const std::vector<std::string> jobs = job_ids(dir);
  for (const std::string& id : jobs) {
    const ProcessResult r = run_captured({"scontrol", "-o", "show", "job", id});
    if (r.exit_code != 0) continue;  // forgotten by the controller
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line)) {
      std::string array_job, array_task, state;
      std::istringstream fields(line);
      std::string field;
      while (fields >> field) {
        if (field.rfind("ArrayJobId=", 0) == 0) array_job = field.substr(11);
        if (field.rfind("ArrayTaskId=", 0) == 0) array_task = field.substr(12);
        if (field.rfind("JobState=", 0) == 0) state = field.substr(9);
      }
      std::string job;
      size_t index = 0;
      if (parse_task(array_job + "_" + array_task, jobs, job, index) && index < dir.points().size())
        out[index] = {array_job + "_" + array_task, state};
    }
  }
  return out;
}

}  // namespace lockstep::sweep
