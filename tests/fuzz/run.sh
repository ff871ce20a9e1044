#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz/ for a while:
#
#   tests/fuzz/run.sh TARGET SECONDS [extra libFuzzer arguments...]
#
# TARGET is build, binary, link or api. The binaries come from
# $FUZZ_BUILD (default build/fuzz, made with -DSKEIN_FUZZ=ON, see
# docs/reliability.md): either a build tree (tests/fuzz/fuzz_TARGET and
# icd/libskein.so) or one folder holding fuzz_TARGET and libskein.so (a
# copy on another machine). The target's corpus is copied into a scratch
# folder ($FUZZ_OUT, default a new one under /tmp) so the run grows its
# own corpus there; crashes land in $FUZZ_OUT/artifacts/. The last lines
# say what ran: executions, coverage (cov: edges, ft: features) and the
# scratch folder. Extra arguments go to libFuzzer (-jobs=16 -workers=16,
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
# keeps per-process state it never frees (the option registry, pass and
# target registries, the JIT's symbol tables made by the first build);
# libFuzzer reports a leak only when an input's mallocs outlive it and
# LSan then finds them unreachable, which LLVM's globals are not.
# lsan.supp lists what remains, each with its reason.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1:allocator_may_return_null=1:detect_stack_use_after_return=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

log="$out/fuzz.log"
echo "run.sh: $bin for $seconds s, corpus $out/corpus, log $log"
set +e
"$bin" "$out/corpus" -dict="$here/opencl.dict" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=6144 \
  -malloc_limit_mb=4096 -close_fd_mask=1 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/" "$@" 2>&1 | tee "$log" | \
  grep --line-buffered -E '^#[0-9]+.*(NEW|pulse|REDUCE|DONE|INITED)|ERROR|finding|SUMMARY|Done' 
status=${PIPESTATUS[0]}
set -e
echo "---- $target: $(grep -m1 -E '^model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
grep -E '^#[0-9]+.*(DONE|pulse)' "$log" | tail -1 || true
grep -E '^Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb' "$log" || true
echo "corpus: $(ls "$out/corpus" | wc -l) inputs in $out/corpus; artifacts: $(ls "$out/artifacts" | wc -l)"
exit "$status"
