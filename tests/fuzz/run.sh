#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz/ for a while:
#
#   tests/fuzz/run.sh TARGET SECONDS [extra libFuzzer arguments...]
#
# TARGET is build, binary, link, api or il. The binaries come from
# $FUZZ_BUILD (default build/fuzz, made with -DSKEIN_FUZZ=ON, see
# docs/reliability.md): either a build tree (tests/fuzz/fuzz_TARGET and
# icd/libskein.so) or one folder holding fuzz_TARGET and libskein.so (a
# copy on another machine). The target's corpus is copied into a scratch
# folder ($FUZZ_OUT, default a new one under /tmp) so the run grows its
# own corpus there; crashes land in $FUZZ_OUT/artifacts/. The last lines
# say what ran: executions, coverage (cov: edges, ft: features) and the
# scratch folder. Extra arguments go to libFuzzer (-fork=16 for 16 cores,
# -seed=N, -only_ascii=1, ...).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${1:?usage: run.sh TARGET SECONDS [libFuzzer args]}"
seconds="${2:?usage: run.sh TARGET SECONDS [libFuzzer args]}"
shift 2

build="${FUZZ_BUILD:-$root/build/fuzz}"
if [[ -x "$build/fuzz_$target" ]]; then
  bin="$build/fuzz_$target" lib="$build/libskein.so"
else
  bin="$build/tests/fuzz/fuzz_$target" lib="$build/icd/libskein.so"
fi
[[ -x "$bin" && -f "$lib" ]] || {
  echo "run.sh: no $bin or $lib (build with -DSKEIN_FUZZ=ON first)" >&2
  exit 2
}
lib="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")"

out="${FUZZ_OUT:-$(mktemp -d "/tmp/skein-fuzz-$target.XXXXXX")}"
mkdir -p "$out/corpus" "$out/artifacts" "$out/vendors"
cp -n "$here/corpus/$target/"* "$out/corpus/" 2>/dev/null || true
# The loader sees only this library: no other platform takes part.
echo "$lib" > "$out/vendors/skein.icd"
export OCL_ICD_VENDORS="$out/vendors" OCL_ICD_ASSUME_ICD_EXTENSION=1

# LeakSanitizer stays on: each input must release what it made. LLVM
# keeps per-process state it never frees (option, pass and target
# registries, the JIT's tables made by the first build), but reachable
# from its globals, which LSan does not report; lsan.supp is empty (no
# LLVM-internal leak showed up in the runs so far).
# abort_on_error=0: a sanitizer report ends the process with _exit, which
# Skein's build guard (LLVM's crash recovery, which catches SIGABRT) cannot
# turn into a failed build. Program binaries (TARGET binary) run without
# leak checks: LLVM 19's bitcode reader crashes on some corrupted bitcode,
# the guard turns that into CL_INVALID_BINARY and leaks the abandoned
# build by design (docs/reliability.md), which would stop every run.
# The same reader also spends minutes on, or runs out of memory for,
# some corrupted attribute tables (81 s for one input, release build):
# binary runs in fork mode, which notes such inputs in artifacts/ and
# goes on (-fork=16 for 16 cores: pass it after SECONDS).
# The other targets count a timeout or running out of memory as a
# finding, also in fork mode (whose defaults ignore both).
leaks=1 mode=(-ignore_timeouts=0 -ignore_ooms=0)
if [[ "$target" == binary ]]; then
  leaks=0
  mode=(-fork=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=$leaks:symbolize=1:allocator_may_return_null=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

log="$out/fuzz.log"
echo "run.sh: $bin for $seconds s, corpus $out/corpus, log $log"
set +e
"$bin" "$out/corpus" -dict="$here/opencl.dict" -detect_leaks=$leaks \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=6144 \
  -malloc_limit_mb=4096 -close_fd_mask=1 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/" "${mode[@]}" "$@" 2>&1 | tee "$log" | \
  grep --line-buffered -E '^#[0-9]+.*(pulse|DONE|INITED)|^#[0-9]+: cov|ERROR|finding|SUMMARY|Done' 
status=${PIPESTATUS[0]}
set -e
echo "---- $target: $(grep -m1 -E '^model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
grep -E '^#[0-9]+.*(DONE|pulse)|^#[0-9]+: cov' "$log" | tail -1 || true
grep -E '^Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb' "$log" || true
echo "corpus: $(ls "$out/corpus" | wc -l) inputs in $out/corpus; artifacts: $(ls "$out/artifacts" | wc -l)"
exit "$status"
