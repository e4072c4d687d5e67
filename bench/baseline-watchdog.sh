#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/baseline-watchdog.sh RULESET.nft [TABLE]
#
# The baseline bench/restore compares sandwalld with: the usual shell
# watchdog, `nft monitor` piped into a loop that re-runs `nft -f RULESET`
# whenever a transaction mentions table inet TABLE (default sandwall).
# RULESET is what `sandwall export` prints (it starts with "table ...;
# delete table ...", so it replaces whatever is there).
#
# nft monitor closes every transaction with a line
#   # new generation N by process PID (COMM)
# The loop reacts on that line, once per transaction that touched the table,
# and skips its own repairs (the pid of the last `nft -f` it started);
# without that it would re-apply forever in reaction to itself.
# Runs until SIGTERM/SIGINT; kills its `nft monitor` on the way out.
set -u

FILE=${1:?usage: baseline-watchdog.sh RULESET.nft [TABLE]}
TABLE=${2:-sandwall}
NFT=$(command -v nft) || { echo "baseline-watchdog: nft not found" >&2; exit 2; }
[ -r "$FILE" ] || { echo "baseline-watchdog: cannot read $FILE" >&2; exit 2; }

exec {mon}< <(exec "$NFT" monitor)
MON=$!
trap 'kill "$MON" 2>/dev/null; exit 0' TERM INT
trap 'kill "$MON" 2>/dev/null' EXIT

touched='' last=''
while IFS= read -r -u "$mon" line; do
	case $line in
	"# new generation "*)
		pid=${line#* by process }
		pid=${pid%% *}
		if [ -n "$touched" ] && [ "$pid" != "$last" ]; then
			"$NFT" -f "$FILE" &
			last=$!
			wait "$last" || echo "baseline-watchdog: nft -f failed" >&2
		fi
		touched=
		;;
	*" inet $TABLE "* | *" inet $TABLE")
		touched=1
		;;
	esac
done
