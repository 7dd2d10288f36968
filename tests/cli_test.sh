#!/usr/bin/env bash
# End-to-end checks of the weft binary: help and version, a sweep in every format, determinism
# (same seed -> byte-identical JSON), and clear one-line errors with a non-zero exit for bad input.
set -u
weft="$1"
source_dir="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

pass() { :; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_ok NAME PATTERN CMD...: exit 0 and stdout matching PATTERN
expect_ok() {
  local name="$1" pattern="$2"; shift 2
  local out
  if ! out=$("$@" 2>"$work/err"); then fail "$name: exit $? ($(cat "$work/err"))"; return; fi
  grep -qE -- "$pattern" <<<"$out" || fail "$name: output does not match /$pattern/: $out"
}

# expect_error NAME PATTERN CMD...: non-zero exit (not a crash) and stderr matching PATTERN
expect_error() {
  local name="$1" pattern="$2"; shift 2
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -eq 0 ]]; then fail "$name: exited 0"; return; fi
  if [[ $rc -ge 128 ]]; then fail "$name: crashed with signal $((rc - 128))"; return; fi
  grep -qE -- "$pattern" "$work/err" || fail "$name: stderr does not match /$pattern/: $(cat "$work/err")"
}

expect_ok version '^weft [0-9]+\.[0-9]+\.[0-9]+' "$weft" --version
expect_ok help 'collective' "$weft" --help
expect_ok collective-help 'link-rate' "$weft" collective --help
expect_ok table 'busbw' "$weft" collective --ranks 4 -b 8 -e 1M
expect_ok csv '^size,count,type,time_us,algbw_GBps,busbw_GBps' "$weft" collective --ranks 4 -e 64K --format csv
expect_ok ring-analytic '"fabric": "analytic"' "$weft" collective --topology ring --ranks 6 --fabric analytic --op all_gather --format json
expect_ok run-default 'total simulated time' "$weft" run
expect_ok run-file 'all_reduce' "$weft" run "$source_dir/scenarios/default.yaml" --fabric analytic

# Determinism: two runs, byte-identical JSON.
"$weft" collective --ranks 16 -b 1K -e 16M --channels 2 --seed 5 --format json >"$work/a.json"
"$weft" collective --ranks 16 -b 1K -e 16M --channels 2 --seed 5 --format json >"$work/b.json"
cmp -s "$work/a.json" "$work/b.json" || fail "collective JSON differs between identical runs"
"$weft" run --format json >"$work/c.json"
"$weft" run --format json >"$work/d.json"
cmp -s "$work/c.json" "$work/d.json" || fail "run JSON differs between identical runs"

# Bad command-line values.
expect_error bad-rate 'link-rate.*400Gbps' "$weft" collective --link-rate fast
expect_error bad-latency 'latency' "$weft" collective --latency 3parsecs
expect_error bad-op 'all_reduce' "$weft" collective --op all_reduse
expect_error bad-ranks 'ranks' "$weft" collective --ranks 0
expect_error bad-range 'min-bytes' "$weft" collective -b 1M -e 1K
expect_error bad-topology 'topology' "$weft" collective --topology torus
expect_error bad-format 'format' "$weft" collective --format xml
expect_error no-subcommand 'subcommand' "$weft"

# Bad scenario files: file:line:column, key, expectation.
printf 'system:\n  topology: ring\n  ranks: 4\n  link: {rate: 100Gbps, latency: 1us}\nworkload:\n  collectives:\n    - op: all_reduce\n      size: 1 lightyear\n' >"$work/bad_unit.yaml"
expect_error bad-unit "bad_unit.yaml:8:13: .*size" "$weft" run "$work/bad_unit.yaml"
printf 'system: [unclosed\n' >"$work/bad_syntax.yaml"
expect_error bad-syntax 'bad_syntax.yaml:[0-9]+:[0-9]+: not valid YAML' "$weft" run "$work/bad_syntax.yaml"
expect_error missing-file 'cannot open' "$weft" run "$work/none.yaml"

if [[ $failures -gt 0 ]]; then
  echo "$failures e2e check(s) failed"
  exit 1
fi
echo "all e2e checks passed"
