#!/bin/bash
# The whole suite, as `make check` runs it: unit tests and end-to-end cases
# on a normal build, the same on an ASan+UBSan build, then a short fuzzing
# run of the trace reader.  Each stage prints its own "N passed, N failed";
# the last line totals them.
set -u
cd "$(dirname "$0")/.."
J=${J:-2}
SANFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
pass=0 fail=0 skip=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

stage() {          # stage NAME COMMAND...: run it, add up its summary lines
	local name=$1; shift
	echo "== $name"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]} p=0 f=0 s=0 line
	while read -r line; do
		p=$((p + $(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')))
		f=$((f + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
		case $line in *skipped*) s=$((s + $(echo "$line" | sed -E 's/.* ([0-9]+) skipped.*/\1/'))) ;; esac
	done < <(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "stage '$name' failed (exit $rc)"; fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then p=1; fi   # a stage with no counter (fuzzing) counts once
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

units() {          # units BUILD: every unit test binary of that build
	local rc=0 t
	for t in "$1"/tests/test-*; do
		[ -x "$t" ] || continue
		echo "-- $t"
		"$t" || rc=1
	done
	return $rc
}

# a passed case's traces are deleted as it passes (tests/run.py), so the
# suite needs about 2 GB at most; say what there is, for a failure's reader
echo "check: $(df -Ph . | awk 'NR == 2 { print $4 }') free on $(df -P . | awk 'NR == 2 { print $6 }')"
stage "build" make -j"$J" all unit
stage "unit tests" units build
stage "end-to-end" python3 tests/run.py --build build -j "$J"
stage "sanitizer build" make -j"$J" O=build-san SAN="$SANFLAGS" all unit
stage "unit tests (ASan+UBSan)" units build-san
stage "end-to-end (ASan+UBSan)" python3 tests/run.py --build build-san -j "$J"
if [ -f tests/fuzz/fuzz-reader.c ]; then
	stage "fuzzing the reader" make fuzz-smoke FUZZ_TIME="${FUZZ_TIME:-30}"
fi
echo
if [ "$skip" -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ "$fail" -eq 0 ]
