#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sandwall integration tests (root only; network namespaces).
#
#   tests/integration/run.sh [-l] [-k] [PATTERN...]
#     -l        list the tests and exit
#     -k        keep the temp directory (configs, outputs) for inspection
#     PATTERN   run only tests whose name matches one of these (bash regex)
#
# Every suite file tests/integration/test_*.sh registers its test functions
# with register_test NAME "description". A test function uses the assertion
# helpers of lib.sh (ok/bad/reach/blocked/...); it fails if any assertion
# failed, and is skipped if it returns $SKIP (77) without failures.
# Environment: SANDWALL (binary, default build/sandwall), PROBE_TIMEOUT.
#
# Nothing here touches the root network namespace: all the network state lives
# in namespaces named swt<pid>-*, deleted on exit (also on failure/INT/TERM).

set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

list=0
while [ $# -gt 0 ]; do
	case $1 in
	-l) list=1; shift ;;
	-k) SWT_KEEP_TMP=1; shift ;;
	-h|--help) sed -n '3,17p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) break ;;
	esac
done

for f in "$here"/test_*.sh; do
	# shellcheck disable=SC1090
	. "$f"
done

if [ $list = 1 ]; then
	for t in "${SWT_TESTS[@]}"; do printf '%-32s %s\n' "$t" "${SWT_DESC[$t]}"; done
	exit 0
fi

selected=()
for t in "${SWT_TESTS[@]}"; do
	if [ $# -eq 0 ]; then selected+=("$t"); continue; fi
	for pat in "$@"; do
		if [[ $t =~ $pat ]]; then selected+=("$t"); break; fi
	done
done

if [ "$(id -u)" != 0 ]; then
	echo "integration tests need root (network namespaces, nftables)" >&2
	echo "0 passed, 1 failed"
	exit 2
fi
for tool in ip nft curl "$PY" timeout; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "missing tool: $tool" >&2
		echo "0 passed, 1 failed"
		exit 2
	fi
done

SWT_TMP=$(mktemp -d /tmp/sandwall-it.XXXXXX)
trap swt_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "sandwall integration: binary $SANDWALL$(have_sandwall || echo ' (NOT BUILT)'), namespaces ${SWT_PREFIX}*, tmp $SWT_TMP"
start=$SECONDS
root_fp=$(root_fingerprint)
if ! topo_up >"$SWT_TMP/topo.log" 2>&1; then
	echo "topology setup failed:"; sed 's/^/  | /' "$SWT_TMP/topo.log"
	echo "0 passed, ${#selected[@]} failed"
	exit 1
fi
SWT_TEST_PIDS=()   # topology servers live for the whole suite

passed=0 failed=0 skipped=0
failed_names=()
for t in "${selected[@]}"; do
	echo "--- $t: ${SWT_DESC[$t]}"
	T_FAILS=0
	t0=$SECONDS
	"$t"
	rc=$?
	dt=$((SECONDS - t0))
	if [ "$T_FAILS" -eq 0 ] && [ $rc -eq "$SKIP" ]; then
		echo "SKIP $t (${dt}s)"; skipped=$((skipped + 1))
	elif [ "$T_FAILS" -eq 0 ] && [ $rc -eq 0 ]; then
		echo "PASS $t (${dt}s)"; passed=$((passed + 1))
	else
		[ "$T_FAILS" -eq 0 ] && echo "    FAIL test function returned $rc"
		echo "FAIL $t (${dt}s)"; failed=$((failed + 1)); failed_names+=("$t")
	fi
	reset_state
done

reset_state
if [ "$(root_fingerprint)" != "$root_fp" ]; then
	echo "WARNING: the root network namespace changed during the run (links/addresses/routes/nft)."
	echo "         This suite never writes there; check for another actor, or a bug here."
fi
echo "=== $((SECONDS - start))s${failed_names[*]:+; failed: ${failed_names[*]}}"
summary="$passed passed, $failed failed"
[ $skipped -gt 0 ] && summary+=", $skipped skipped"
echo "$summary"
[ $failed -eq 0 ]
