#!/usr/bin/env bash
# Turns the CSV of `lockstep bench --csv FILE` into a PNG speedup plot:
# speedup against seq on one thread, per schedule, over the thread count, with
# the ideal line. Needs Debian's gnuplot (gnuplot-nox; scripts/setup.sh installs it).
#   usage: bench/plot_speedup.sh bench.csv [speedup.png]
set -euo pipefail
csv=${1:?usage: plot_speedup.sh bench.csv [out.png]}
png=${2:-${csv%.csv}.png}
[ -s "$csv" ] || { echo "plot_speedup: $csv: missing or empty" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "plot_speedup: gnuplot not found (apt-get install -y gnuplot-nox)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One data file per threaded schedule: threads speedup efficiency wait_share,
# starting from the seq run (one thread).
schedules=$(tail -n +2 "$csv" | cut -d, -f2 | grep -v '^seq$' | sort -u)
plots=""
for s in $schedules; do
  awk -F, -v s="$s" 'NR > 1 && ($2 == s || $2 == "seq") { print $1, $6, $7, $8 }' "$csv" | sort -n >"$work/$s.dat"
  plots="$plots${plots:+, }'$work/$s.dat' using 1:2 with linespoints lw 2 pt 7 title '$s'"
done
max=$(tail -n +2 "$csv" | cut -d, -f1 | sort -n | tail -1)
tmp="$png.tmp-$$.png"
gnuplot <<GP
set terminal png size 800,500
set output '$tmp'
set title 'lockstep: speedup against seq on one thread ($(basename "$csv"))'
set xlabel 'simulation threads'
set ylabel 'speedup'
set key top left
set grid
set xrange [0.5:$max + 0.5]
set yrange [0:*]
plot x title 'ideal' with lines dt 2 lc rgb 'gray', $plots
GP
mv "$tmp" "$png"
echo "plot_speedup: wrote $png"
