#!/bin/sh
# This file contains the back-to-back comparison of Skein with other OpenCL
# drivers: it runs Debian's clpeak and skein-bench-launch once per driver,
# each with OCL_ICD_VENDORS naming that driver's one .icd file, keeps the
# raw output under <build>/bench-results/<date>/ and prints a summary table.
# skein-bench-peak (our clpeak-like compute and read figures) and
# skein-bench-collectives (work-group collectives against a copy) run as well.
#
# The machine's own ceilings come first: skein-bench-cpu-peak's FMA peak
# and read bandwidth (for AVX2 too with -c), which the table's figures
# are fractions of.
#
# usage: bench/compare.sh [-b BUILD_DIR] [-n SAMPLES] [-t] [-c CPU] [ICD_FILE...]
#   -b  Skein build tree (default: build-bench next to this script's folder);
#       its vendors/skein.icd is used, else /etc/OpenCL/vendors/skein.icd
#   -n  skein-bench-launch samples (default 10000)
#   -t  skip clpeak's transfer-bandwidth test
#   -c  also run Skein with SKEIN_CPU=CPU (e.g. haswell: the AVX2 code of an
#       AVX-512 machine), as the column skein@CPU
#   ICD_FILE  other drivers, e.g. /etc/OpenCL/vendors/pocl.icd
set -u

here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build-bench"
samples=10000
transfer=--transfer-bandwidth
other_cpu=
while getopts b:n:tc: opt; do
  case $opt in
    b) build=$OPTARG ;;
    n) samples=$OPTARG ;;
    t) transfer= ;;
    c) other_cpu=$OPTARG ;;
    *) sed -n '/^# usage/,/ICD_FILE  /p' "$0" >&2; exit 1 ;;
  esac
done
shift $((OPTIND - 1))
build=$(cd "$build" && pwd) || exit 1
launch="$build/bench/skein-bench-launch"
peak="$build/bench/skein-bench-peak"
collectives="$build/bench/skein-bench-collectives"
for prog in "$launch" "$peak" "$collectives"; do
  [ -x "$prog" ] || { echo "compare.sh: no $prog (build it first)" >&2; exit 1; }
done
command -v clpeak >/dev/null || { echo "compare.sh: clpeak not installed" >&2; exit 1; }

skein_icd="$build/vendors/skein.icd"
[ -f "$skein_icd" ] || skein_icd=/etc/OpenCL/vendors/skein.icd
[ -f "$skein_icd" ] || { echo "compare.sh: no skein.icd found" >&2; exit 1; }

out="$build/bench-results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out" || exit 1
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host: $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
  flags=$(grep -m1 '^flags' /proc/cpuinfo)
  case " $flags " in
    *" avx512f "*) isa="AVX-512$(case " $flags " in *" avx512_fp16 "*) echo " with FP16";; esac)" ;;
    *" avx2 "*) isa="AVX2$(case " $flags " in *" fma "*) echo " and FMA";; esac)" ;;
    *) isa="SSE" ;;
  esac
  echo "isa: $isa"
  echo "cpus: $(nproc)"
  echo "uptime before: $(uptime)"
  cpu_peak="$build/bench/skein-bench-cpu-peak"
  if [ -x "$cpu_peak" ]; then
    echo "machine peak (skein-bench-cpu-peak, widest ISA):"
    "$cpu_peak" | sed 's/^/  /'
    if [ -n "$other_cpu" ] && [ "$isa" != "${isa#AVX-512}" ]; then
      echo "machine peak in AVX2 (for skein@$other_cpu):"
      "$cpu_peak" -i avx2 | sed 's/^/  /'
    fi
  fi
} | tee "$out/machine.txt"

# Runs both programs against one .icd file; raw output goes to $out/$name.*
# A third argument is an environment assignment for the driver
# (SKEIN_CPU=haswell).
run_driver() {
  name=$1 icd=$2 extra=${3:-COMPARE_RUN=1}
  echo "== $name ($icd) — load: $(uptime | sed 's/.*load average: //')" |
    tee -a "$out/machine.txt"
  env "$extra" OCL_ICD_VENDORS=$icd OCL_ICD_ASSUME_ICD_EXTENSION=1 \
    timeout 1800 clpeak --compute-sp --compute-dp --compute-integer \
    --global-bandwidth --kernel-latency \
    $transfer >"$out/$name.clpeak.txt" 2>&1
  st=$?
  # clpeak builds all its kernels as one program and exits 0 when that
  # build fails; say so rather than leave its figures silently blank.
  grep -q 'Kernel launch latency\|GFLOPS' "$out/$name.clpeak.txt" ||
    st="$st, no results (see $name.clpeak.txt)"
  echo "   clpeak exit status $st" | tee -a "$out/machine.txt"
  env "$extra" OCL_ICD_VENDORS=$icd OCL_ICD_ASSUME_ICD_EXTENSION=1 \
    timeout 600 "$launch" -n "$samples" >"$out/$name.launch.txt" 2>&1
  echo "   skein-bench-launch exit status $?" | tee -a "$out/machine.txt"
  env "$extra" OCL_ICD_VENDORS=$icd OCL_ICD_ASSUME_ICD_EXTENSION=1 \
    timeout 1800 "$peak" >"$out/$name.peak.txt" 2>&1
  echo "   skein-bench-peak exit status $?" | tee -a "$out/machine.txt"
  # Work-group collectives and the local-memory tree against a copy
  # (issue 10's barrier targets are fractions of the copy).
  env "$extra" OCL_ICD_VENDORS=$icd OCL_ICD_ASSUME_ICD_EXTENSION=1 \
    timeout 1800 "$collectives" >"$out/$name.collectives.txt" 2>&1
  echo "   skein-bench-collectives exit status $?" | tee -a "$out/machine.txt"
}

# Turns one driver's raw output into "metric<TAB>value" lines.
extract() {
  awk '
    /^    [A-Z].*\((GBPS|GFLOPS|GIOPS)\)$/ {
      s = $0; sub(/^ +/, "", s)
      sub(/Integer compute/, "int compute", s)
      sub(/Half-precision compute/, "HP compute", s)
      sub(/Global memory bandwidth/, "global BW", s)
      sub(/Single-precision compute/, "SP compute", s)
      sub(/Double-precision compute/, "DP compute", s)
      sub(/Transfer bandwidth/, "transfer", s)
      next
    }
    /Kernel launch latency/ {
      split($0, a, ":"); v = a[2]; gsub(/[ us]/, "", v)
      print "clpeak kernel launch latency (us)\t" v; next
    }
    /^      [ a-zA-Z0-9(]/ && index($0, ":") && s != "" {
      split($0, a, ":"); k = a[1]; v = a[2]
      gsub(/^ +| +$/, "", k); gsub(/ /, "", v)
      print s " " k "\t" v; next
    }
    FILENAME ~ /collectives.txt$/ && /Melem\/s$/ {
      print "collectives " $1 " " $2 " (Melem/s)\t" $3; next
    }
    /^\| / && !/\| metric/ {
      n = split($0, a, "|"); k = a[2]; v = a[3]; u = a[4]
      gsub(/^ +| +$/, "", k); gsub(/ /, "", v); gsub(/^ +| +$/, "", u)
      if (FILENAME ~ /peak.txt$/) k = "bench-peak " k
      print k " (" u ")\t" v
    }' "$@"
}

names=skein
run_driver skein "$skein_icd"
if [ -n "$other_cpu" ]; then
  names="$names skein@$other_cpu"
  run_driver "skein@$other_cpu" "$skein_icd" "SKEIN_CPU=$other_cpu"
fi
for icd in "$@"; do
  name=$(basename "$icd" .icd)
  names="$names $name"
  run_driver "$name" "$icd"
done
echo "uptime after: $(uptime)" | tee -a "$out/machine.txt"

for n in $names; do
  extract "$out/$n.launch.txt" "$out/$n.peak.txt" "$out/$n.clpeak.txt" \
    "$out/$n.collectives.txt" >"$out/$n.tsv"
done

# Side by side: one column per driver, then Skein's value over each other's,
# under the machine's description (CPU, ISA, cores, load, peaks).
(
  sed -n '1,/^== /p' "$out/machine.txt" | sed '$d'
  echo
) | tee "$out/summary.txt"
(
  cd "$out" || exit 1
  awk -F'\t' -v names="$names" '
    BEGIN { nd = split(names, d, " ") }
    FNR == 1 { f++ }
    { if (!($1 in seen)) { seen[$1] = 1; order[++nk] = $1 }; v[f, $1] = $2 }
    END {
      printf "%-52s", "metric"
      for (i = 1; i <= nd; i++) printf " %12s", d[i]
      for (i = 2; i <= nd; i++) printf " %12s", "skein/" d[i]
      printf "\n"
      for (k = 1; k <= nk; k++) {
        m = order[k]; printf "%-52s", m
        for (i = 1; i <= nd; i++)
          printf " %12s", ((i, m) in v) ? v[i, m] : "-"
        for (i = 2; i <= nd; i++) {
          a = v[1, m]; b = v[i, m]
          if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b + 0 > 0)
            printf " %12.2f", a / b
          else
            printf " %12s", "-"
        }
        printf "\n"
      }
    }' $(for n in $names; do printf '%s.tsv ' "$n"; done)
) | tee -a "$out/summary.txt"
echo "raw output and summary: $out"
