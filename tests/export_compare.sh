#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# export_compare: does a change leave `sandwall export` byte-identical?
#
#   tests/export_compare.sh [-k] [-v] OLD_SANDWALL NEW_SANDWALL
#     -k   keep the work directory (configs, outputs) for inspection
#     -v   show the whole diff of a DIFFERENT config (default: 20 lines)
#
# Builds the integration topology (tests/integration/lib.sh, topo_build:
# host namespace with docker0 and br-0a1b2c3d4e5f, uplink eth0 to the
# cloud namespace and its gateway, LAN, containers) in namespaces named
# swx<pid>-*, removed on exit (also on failure, INT and TERM), and runs
# `SANDWALL -c CONF export` in the host namespace with each binary for
# every config the tree holds:
#   - every *.conf under rules/ and tests/;
#   - the code blocks of docs/*.md and README.md that are configs;
#   - the integration tests' configs: each $(mkconf ...) call of
#     tests/integration/test_*.sh (evaluated with the suite's own mkconf;
#     words that name a test's runtime variable expand to nothing) and the
#     cat >FILE <<EOF bodies that are configs.
# Configs with identical text are run once. Not covered: the configs the
# unit tests hold as C strings, and the sections integration tests append
# to a config (printf >>) at run time.
#
# stdout, stderr and the exit code are compared byte for byte (both
# binaries run as argv[0] "sandwall", in the same directory, on the same
# file). One line per config: "same", "same-refusal" (both exit non-zero
# with the same stderr) or "DIFFERENT", then a summary. Exit 0 when every
# config is the same, 1 when one differs, 2 on a usage or setup error.
# Root only; the root network namespace is never touched.

set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
keep=0 verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	-k) keep=1; shift ;;
	-v) verbose=1; shift ;;
	-h|--help) sed -n '3,30p' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) echo "export_compare: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 2 ]; then
	echo "usage: tests/export_compare.sh [-k] [-v] OLD_SANDWALL NEW_SANDWALL" >&2
	exit 2
fi
old=$(realpath -e "$1" 2>/dev/null) && [ -x "$old" ] || { echo "export_compare: $1: no executable" >&2; exit 2; }
new=$(realpath -e "$2" 2>/dev/null) && [ -x "$new" ] || { echo "export_compare: $2: no executable" >&2; exit 2; }
if [ "$(id -u)" != 0 ]; then
	echo "export_compare: needs root (network namespaces)" >&2
	exit 2
fi

SWT_PREFIX="swx$$-"
SWT_ROOT=$root
# shellcheck source-path=SCRIPTDIR source=integration/lib.sh
. "$root/tests/integration/lib.sh"
SWT_TMP=$(mktemp -d /tmp/sandwall-xc.XXXXXX)
work=$SWT_TMP

xc_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	topo_down "$SWT_PREFIX"
	[ "$SWT_ETC_NETNS_CREATED" = 1 ] && rmdir /etc/netns 2>/dev/null
	if [ "$keep" = 1 ]; then echo "kept: $work"; else rm -rf "$work"; fi
	exit $rc
}
trap xc_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the configs: "LABEL<TAB>PATH" lines in $work/list -------------------------
mkdir -p "$work/conf" "$work/mk" "$work/out"
cd "$root" || exit 2
{
	find rules tests -name '*.conf' -type f | sort | while read -r f; do
		printf '%s\t%s\n' "$f" "$root/$f"
	done
	"$PY" "$here/export_extract.py" docs "$work/conf" docs/*.md README.md
	"$PY" "$here/export_extract.py" heredocs "$work/conf" tests/integration/test_*.sh
	# the suite's mkconf, with the suite's globals (sourcing defines only
	# functions and variables, as run.sh -l does); each call in a subshell
	(
		set +u
		set --          # a call's "$1" is its test's argument: none here
		for f in tests/integration/test_*.sh; do
			# shellcheck disable=SC1090
			. "$f"
		done
		n=0
		"$PY" "$here/export_extract.py" mkconf tests/integration/test_*.sh |
		while IFS=$'\t' read -r label args; do
			n=$((n + 1))
			# shellcheck disable=SC2034
			out=$( eval "mkconf $args" 2>/dev/null ) && [ -f "$out" ] || {
				echo "export_compare: $label: mkconf $args failed" >&2; continue; }
			cp "$out" "$work/mk/$n.conf" && rm -f "$out"
			printf '%s\t%s\n' "$label: mkconf ${args%% *}" "$work/mk/$n.conf"
		done
	)
} >"$work/list.all" || exit 2

# one run per distinct text
declare -A seen=()
: >"$work/list"
while IFS=$'\t' read -r label path; do
	sum=$(sha256sum <"$path" | cut -d' ' -f1)
	[ -n "${seen[$sum]:-}" ] && continue
	seen[$sum]=1
	printf '%s\t%s\n' "$label" "$path" >>"$work/list"
done <"$work/list.all"

# ---- the topology ------------------------------------------------------------
if ! topo_build "$SWT_PREFIX" noservers >"$work/topo.log" 2>&1; then
	echo "export_compare: topology setup failed:" >&2
	sed 's/^/  | /' "$work/topo.log" >&2
	exit 2
fi

# run BIN CONF OUTPREFIX: export in the host namespace, as argv[0] "sandwall"
run() {
	timeout "$SW_TIMEOUT" ip netns exec "$H" bash -c 'exec -a sandwall "$@"' sandwall \
		"$1" -c "$2" export >"$3.out" 2>"$3.err"
	echo $? >"$3.rc"
}

same=0 refused=0 differ=0 i=0
while IFS=$'\t' read -r label path; do
	i=$((i + 1))
	o="$work/out/$i"
	run "$old" "$path" "$o.old"
	run "$new" "$path" "$o.new"
	what=""
	cmp -s "$o.old.rc" "$o.new.rc" || what+=" exit $(cat "$o.old.rc") vs $(cat "$o.new.rc");"
	cmp -s "$o.old.out" "$o.new.out" || what+=" stdout;"
	cmp -s "$o.old.err" "$o.new.err" || what+=" stderr;"
	rc=$(cat "$o.old.rc")
	if [ -n "$what" ]; then
		differ=$((differ + 1))
		printf 'DIFFERENT     %s (%s)\n' "$label" "${what# }"
		for s in out err; do
			if [ "$verbose" = 1 ]; then diff -u "$o.old.$s" "$o.new.$s"
			else diff -u "$o.old.$s" "$o.new.$s" | head -n 20; fi | sed 's/^/    | /'
		done
	elif [ "$rc" != 0 ]; then
		refused=$((refused + 1))
		printf 'same-refusal  %s (exit %s: %s)\n' "$label" "$rc" "$(head -c 100 "$o.old.err" | head -n 1)"
	else
		same=$((same + 1))
		printf 'same          %s (%s lines)\n' "$label" "$(wc -l <"$o.old.out")"
	fi
done <"$work/list"

echo "=== $i configs ($(wc -l <"$work/list.all") found): $same same, $refused same refusal, $differ DIFFERENT"
[ "$differ" -eq 0 ] || exit 1
exit 0
