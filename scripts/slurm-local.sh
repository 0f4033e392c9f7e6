#!/usr/bin/env bash
# Starts or stops a single-node Slurm cluster on this machine, without systemd:
# munged, slurmctld and slurmd from Debian's munge and slurm-wlm, every file
# (config, munge key and socket, state, spool, logs, pid files) under DIR and
# free ports picked at start, so it disturbs no other Slurm or munge.
# Needs root. Used by the sweep tests; also handy to try `lockstep sweep
# --launcher slurm` on one machine:
#   scripts/slurm-local.sh start DIR     # prints: export SLURM_CONF=DIR/slurm.conf
#   SLURM_CONF=DIR/slurm.conf lockstep sweep FILE --launcher slurm ...
#   scripts/slurm-local.sh stop DIR      # stops the daemons started in DIR
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
dir=$2

stop() {
  # Only the daemons this script started in $dir, by their pid files: all
  # asked to stop at once, then killed if still there after 10 s.
  local pidfile pids=()
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
    [ -s "$pidfile" ] || continue
    pids+=("$(cat "$pidfile")")
    rm -f "$pidfile"
  done
  ((${#pids[@]})) || return 0
  kill "${pids[@]}" 2>/dev/null || true
  local pid alive
  for _ in $(seq 100); do
    alive=()
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
    ((${#alive[@]})) || return 0
    sleep 0.1
  done
  kill -9 "${alive[@]}" 2>/dev/null || true
}

fail() {
  echo "slurm-local: $*" >&2
  for log in "$dir"/*.log; do [ -s "$log" ] && { echo "--- $log" >&2; tail -n 5 "$log" >&2; }; done
  stop
  exit 1
}

# A TCP port on 127.0.0.1 nothing listens on, from a range starting at $1.
free_port() {
  local port=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

start() {
  [ "$(id -u)" -eq 0 ] || { echo "slurm-local: needs root (munged and slurmd run as root here)" >&2; exit 1; }
  local tool
  for tool in munged slurmctld slurmd scontrol sinfo; do
    command -v "$tool" >/dev/null || { echo "slurm-local: $tool not found (apt-get install -y slurm-wlm munge)" >&2; exit 1; }
  done
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  chmod 700 "$dir"
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  chmod 700 "$dir/munge"

  # munged: its own key and socket.
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munge/munged.seed" --force >/dev/null 2>&1 ||
    fail "munged did not start"

  local host cpus mem ctld_port slurmd_port
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
  ctld_port=$(free_port $((20000 + RANDOM % 20000)))
  slurmd_port=$(free_port $((ctld_port + 1)))
  cat >"$dir/slurm.conf" <<EOF
ClusterName=lockstep-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
MailProg=/bin/true
MpiDefault=none
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" >/dev/null 2>&1 || fail "slurmctld did not start"
  slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || fail "slurmd did not start"
  local state=""
  for _ in $(seq 300); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    case "$state" in idle*|mixed*|allocated*) echo "export SLURM_CONF=$SLURM_CONF"; return 0 ;; esac
    sleep 0.1
  done
  fail "node $host not ready after 30 s (state: ${state:-none})"
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
