#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot the kernels cloud VMs run (tests/kernels/kernels.list) in QEMU (TCG)
# and run a subset of the integration suites inside each (`make check-kernels`).
#
#   tests/kernels/run.sh [-s] [-k] [-t SECONDS] [-x COMMAND] [ID...]
#     -s          run the kernels one after the other (default: all at once;
#                 the tests mostly wait on probe timeouts, not on the CPU)
#     -k          keep the guest images (build/kernels/run.<ID>/)
#     -t SECONDS  time limit per guest, boot included (default 1200)
#     -x COMMAND  run this bash command in each guest (cwd: the worktree's
#                 copy) instead of the tests, e.g. to measure or debug
#     ID          only these kernels (default: every `kernel` line)
# Environment: SWK_CACHE (default build/kernels), SWK_LIST (another
# kernels.list), SWK_CPU (qemu -cpu, default max).
#
# Per kernel: `apt-get download` its package into build/kernels/ (cached; a
# package that cannot be had fails the run), extract it, build an initramfs
# that holds everything the guest needs (busybox for /init; bash, iproute2,
# nft, curl, python3 and the other tools the suites use, with their libraries;
# the worktree's tests and build/sandwall*; the kernel's net/lib/crypto
# modules, depmod'ed, loaded on demand by the kernel through kmod), boot it
# with qemu-system-x86_64 -accel tcg (KVM hangs on nested hosts), run
# tests/integration/run.sh with the selected tests and mode_probe.sh, and
# read the results from the serial console (printed here, prefixed [ID]).
# The run fails if any guest fails a test, does not boot, or times out.
#
# The guest is its own machine, but the suites still never touch its root
# network namespace: everything happens in the namespaces they create.

set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${SWK_CACHE:-$root/build/kernels}
list=${SWK_LIST:-$here/kernels.list}
serial=0 keep=0 limit=1200 cmd=""
while [ $# -gt 0 ]; do
	case $1 in
	-s) serial=1; shift ;;
	-k) keep=1; shift ;;
	-t) limit=$2; shift 2 ;;
	-x) cmd=$2; shift 2 ;;
	-h|--help) sed -n '3,27p' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
want_ids=("$@")

die() { echo "check-kernels: $*" >&2; echo "check-kernels: FAILED"; exit 1; }
say() { echo "check-kernels: $*"; }

[ "$(id -u)" = 0 ] || die "needs root (apt-get download into a root-owned cache, mknod in the image)"
for tool in qemu-system-x86_64 apt-get dpkg-deb depmod busybox ldd; do
	command -v "$tool" >/dev/null 2>&1 || die "missing tool: $tool (sudo make deps)"
done
[ -x "$root/build/sandwall" ] && [ -x "$root/build/sandwalld" ] || die "build/sandwall and build/sandwalld are not built (make all)"

# ---------------------------------------------------------------- kernels.list
declare -A PKG MODE SKIP SKIPWHY
IDS=() TESTS=()
while read -r kind a b c; do
	case $kind in
	''|'#'*) ;;
	kernel) IDS+=("$a"); PKG[$a]=$b; MODE[$a]=${c%% *} ;;
	tests) # shellcheck disable=SC2206
	       TESTS+=($a $b $c) ;;
	skip) SKIP[$a]+=" $b"; SKIPWHY[$a/$b]=$c ;;
	*) die "$list: unknown line '$kind $a $b $c'" ;;
	esac
done <"$list"
[ ${#IDS[@]} -gt 0 ] || die "$list names no kernel"
[ ${#TESTS[@]} -gt 0 ] || die "$list names no test"
if [ ${#want_ids[@]} -gt 0 ]; then
	for id in "${want_ids[@]}"; do [ -n "${PKG[$id]:-}" ] || die "no kernel '$id' in $list"; done
	IDS=("${want_ids[@]}")
fi

# the test names the patterns select (run.sh -l needs no root, no namespaces)
mapfile -t ALL < <("$root/tests/integration/run.sh" -l | awk '{print $1}')
SEL=()
for t in "${ALL[@]}"; do
	for p in "${TESTS[@]}"; do [[ $t =~ $p ]] && { SEL+=("$t"); break; }; done
done
for p in "${TESTS[@]}"; do
	hit=0; for t in "${SEL[@]}"; do [[ $t =~ $p ]] && hit=1; done
	[ $hit = 1 ] || die "pattern '$p' in $list selects no integration test"
done

mkdir -p "$cache"

# ---------------------------------------------------------------- fetch
fetch() {  # fetch ID: download + extract the package; sets KDIR, KVER
	local id=$1 pkg=${PKG[$1]} deb
	deb=$(ls "$cache/${pkg}"_*.deb 2>/dev/null | head -n1)
	if [ -z "$deb" ]; then
		say "[$id] apt-get download $pkg"
		if ! (cd "$cache" && apt-get download "$pkg") >"$cache/download.$id.log" 2>&1; then
			sed 's/^/  | /' "$cache/download.$id.log" >&2
			die "[$id] kernel package $pkg cannot be downloaded (not in this machine's apt sources any more? run apt-get update, or update $list)"
		fi
		deb=$(ls "$cache/${pkg}"_*.deb 2>/dev/null | head -n1)
		[ -n "$deb" ] || die "[$id] apt-get download $pkg left no .deb in $cache"
	fi
	KDIR=$cache/x.$pkg
	if [ ! -e "$KDIR/.done" ] || [ "$KDIR/.done" -ot "$deb" ]; then
		rm -rf "$KDIR"; mkdir -p "$KDIR"
		dpkg-deb -x "$deb" "$KDIR" || die "[$id] dpkg-deb -x $deb failed"
		touch "$KDIR/.done"
	fi
	KVER=$(ls "$KDIR/lib/modules" 2>/dev/null | head -n1)
	[ -n "$KVER" ] && [ -f "$KDIR/boot/vmlinuz-$KVER" ] || die "[$id] $deb holds no boot/vmlinuz-* with its modules"
}

# ---------------------------------------------------------------- userland
# Host packages whose files (minus docs) go into the guest, plus the shared
# libraries every ELF among them needs (from ldd).
GUEST_PKGS="bash coreutils grep sed mawk findutils procps iproute2 nftables curl
 python3 python3-minimal python3.11 python3.11-minimal libpython3.11-minimal
 libpython3.11-stdlib util-linux mount kmod diffutils sysvinit-utils gzip tar
 dash libc-bin bc slirp4netns passt"

copy_path() {  # copy_path DEST PATH: PATH (a symlink too, and its target) into DEST
	local d=$1 p=$2 t
	[ -e "$p" ] || [ -L "$p" ] || return 0
	[ -d "$p" ] && return 0   # directories come with their files (/lib -> usr/lib is made above)
	cp -a --parents "$p" "$d/" 2>/dev/null
	if [ -L "$p" ]; then
		t=$(readlink -f "$p") && [ -f "$t" ] && cp -a --parents "$t" "$d/" 2>/dev/null
	fi
	return 0
}

build_userland() {  # -> $cache/userland.cpio
	local u=$cache/userland pkg f libs
	local t0=$SECONDS
	rm -rf "$u"; mkdir -p "$u"/usr/{bin,sbin,lib,lib64}
	# merged /usr, as on Debian 12: /bin, /sbin, /lib, /lib64 are links
	ln -s usr/bin "$u/bin"; ln -s usr/sbin "$u/sbin"; ln -s usr/lib "$u/lib"; ln -s usr/lib64 "$u/lib64"
	for pkg in $GUEST_PKGS; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
			die "host package $pkg is not installed (sudo make deps)"
		dpkg -L "$pkg" | grep -vE '^/usr/share/(doc|man|info|locale|lintian|bash-completion|zsh|fish)' |
		while read -r f; do
			[ -d "$f" ] && [ ! -L "$f" ] && continue
			copy_path "$u" "$f"
		done
	done
	cp /bin/busybox "$u/usr/bin/busybox"   # busybox-static: /init, poweroff
	# the Debian alternatives the suites call by their generic name
	[ -e "$u/usr/bin/awk" ] || ln -s mawk "$u/usr/bin/awk"
	# libraries: ldd of every ELF in the tree, until nothing new appears
	find "$u" -type f \( -perm -u+x -o -name '*.so*' \) |
		while read -r f; do [ "$(head -c4 "$f" | tr -d '\0')" = $'\x7fELF' ] && ldd "$f" 2>/dev/null; done |
		grep -oE '/[^ ]+' >"$cache/libs.all"
	ldd "$root/build/sandwall" "$root/build/sandwalld" | grep -oE '/[^ ]+' >>"$cache/libs.all" ||
		die "ldd build/sandwall build/sandwalld failed"
	sort -u "$cache/libs.all" | grep -v "^$root/" >"$cache/libs.txt"
	while read -r f; do copy_path "$u" "$f"; done <"$cache/libs.txt"
	libs=$(wc -l <"$cache/libs.txt")
	# a second round for the libraries' own dependencies
	while read -r f; do ldd "$f" 2>/dev/null; done <"$cache/libs.txt" | grep -oE '/[^ ]+' | sort -u |
		while read -r f; do copy_path "$u" "$f"; done
	# cp --parents leaves some parent directories 0700 (coreutils 9.1): give
	# every directory the mode of the host's, or a non-root uid (runtimes_06,
	# setpriv) cannot even load libc
	(cd "$u" && find . -mindepth 1 -type d) | while read -r f; do
		if [ -d "/$f" ]; then chmod --reference="/$f" "$u/$f"; else chmod 0755 "$u/$f"; fi
	done
	# the few files from /etc the tools look at
	mkdir -p "$u"/etc "$u"/dev "$u"/proc "$u"/sys "$u"/run "$u"/tmp "$u"/var/lib "$u"/var/tmp "$u"/root
	ln -s ../run "$u/var/run"
	cp -a /etc/protocols /etc/services /etc/ethertypes /etc/nsswitch.conf "$u/etc/" 2>/dev/null
	[ -d /etc/iproute2 ] && cp -a /etc/iproute2 "$u/etc/"
	printf 'root:x:0:0:root:/root:/bin/bash\n' >"$u/etc/passwd"
	printf 'root:x:0:\n' >"$u/etc/group"
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$u/etc/hosts"
	: >"$u/etc/resolv.conf"
	chmod 0755 "$u/etc"
	mknod -m 600 "$u/dev/console" c 5 1
	mknod -m 666 "$u/dev/null" c 1 3
	(cd "$u" && find . | busybox cpio -o -H newc 2>/dev/null) >"$cache/userland.cpio" ||
		die "could not pack the guest userland"
	say "guest userland: $(du -sm "$u" | cut -f1) MB, $libs libraries, packed in $((SECONDS - t0)) s"
	[ $keep = 1 ] || rm -rf "$u"
}

# ---------------------------------------------------------------- per guest
build_guest() {  # build_guest ID: $run/initrd (userland + modules + tests + init)
	local id=$1 run=$2 g=$2/g t tests=() skipped=()
	rm -rf "$run"; mkdir -p "$g/usr/lib/modules/$KVER" "$g/sw/build" "$g/etc"   # usr/lib: /lib is a link in the userland archive
	# modules: netfilter, bridge, veth and what they depend on
	local m=$KDIR/lib/modules/$KVER
	for f in kernel/net kernel/drivers/net kernel/lib kernel/crypto; do
		[ -d "$m/$f" ] && mkdir -p "$g/usr/lib/modules/$KVER/$(dirname $f)" && cp -a "$m/$f" "$g/usr/lib/modules/$KVER/$f"
	done
	cp -a "$m"/modules.builtin* "$m"/modules.order "$g/usr/lib/modules/$KVER/" 2>/dev/null
	# (no -e -F: Debian's System.map is a stub; /init names a module that will not load)
	ln -s usr/lib "$g/lib"
	depmod -b "$g" "$KVER" 2>"$run/depmod.err" || { cat "$run/depmod.err"; die "[$id] depmod failed"; }
	rm "$g/lib"
	# the worktree's tests, config and binaries at /sw
	if ! (cd "$root" && git ls-files -z 2>/dev/null | xargs -0 -r cp -a --parents -t "$g/sw/"); then
		# not a git checkout: what the suites read
		cp -a "$root/tests" "$root/rules" "$root/docs" "$root/Makefile" "$g/sw/" ||
			die "could not copy the tests into the guest"
	fi
	cp -a "$root/tests/kernels" "$g/sw/tests/" 2>/dev/null
	cp -a "$root/tests/integration" "$g/sw/tests/" 2>/dev/null
	cp "$root/build/sandwall" "$root/build/sandwalld" "$g/sw/build/"
	# what this kernel runs
	for t in "${SEL[@]}"; do
		if [[ " ${SKIP[$id]:-} " == *" $t "* ]]; then skipped+=("$t"); else tests+=("^$t\$"); fi
	done
	{
		printf 'SWK_ID=%q\nSWK_MODE=%q\n' "$id" "${MODE[$id]}"
		printf "SWK_TESTS='%s'\n" "${tests[*]}"
		printf 'SWK_CMD=%s\n' "$(printf '%s' "$cmd" | base64 -w0)"
	} >"$g/etc/swk.env"
	install -m 0755 "$here/init" "$g/init"
	find "$g" -type d -exec chmod 0755 {} +   # cp --parents can leave 0700 (see build_userland)
	(cd "$g" && find . | busybox cpio -o -H newc 2>/dev/null) >"$run/guest.cpio" || die "[$id] could not pack the guest"
	cat "$cache/userland.cpio" "$run/guest.cpio" >"$run/initrd"
	rm -rf "$g" "$run/guest.cpio"
	for t in "${skipped[@]}"; do echo "SKIP $t on $id: ${SKIPWHY[$id/$t]}" >>"$run/skipped"; done
	return 0
}

run_guest() {  # run_guest ID RUN: boot, stream the console; result in $RUN/result
	local id=$1 run=$2 t0 rc
	t0=$(date +%s%N)
	# -accel tcg: KVM hangs on these (nested) machines. thread=single: with
	# one host thread per vCPU (MTTCG) a 6.12 guest died of an "Oops: int3"
	# in __ip6_local_out, a jump label being patched while the other vCPU
	# ran the old code (docs/kernels.md finding 9). 2 vCPUs, 1.5 GB (the
	# ~200 MB initramfs is unpacked into RAM). No network.
	timeout -k 5 "$limit" qemu-system-x86_64 -accel "${SWK_ACCEL:-tcg,thread=single}" -machine q35 -cpu "${SWK_CPU:-max}" -smp 2 -m 1536 \
		-kernel "$KDIR/boot/vmlinuz-$KVER" -initrd "$run/initrd" \
		-append "console=ttyS0 rdinit=/init panic=-1 quiet loglevel=4 nokaslr" \
		-display none -serial stdio -monitor none -nic none -no-reboot -pidfile "$run/qemu.pid" \
		</dev/null 2>"$run/qemu.err" | stdbuf -oL tr -d '\r' >"$run/console.log"   # by line: streamed as it comes
	rc=${PIPESTATUS[0]}
	echo "$rc $(( ($(date +%s%N) - t0) / 1000000 ))" >"$run/result"
}

# ---------------------------------------------------------------- main
T0=$SECONDS
say "tests on every kernel: ${SEL[*]} kernel_mode_probe"
for id in "${IDS[@]}"; do fetch "$id"; done
build_userland
declare -A RUN KVERS KDIRS
for id in "${IDS[@]}"; do
	fetch "$id"
	KVERS[$id]=$KVER KDIRS[$id]=$KDIR RUN[$id]=$cache/run.$id
	build_guest "$id" "${RUN[$id]}"
	[ -f "${RUN[$id]}/skipped" ] && sed 's/^/check-kernels: /' "${RUN[$id]}/skipped"
	say "[$id] $KVER: initramfs $(( $(stat -c %s "${RUN[$id]}/initrd") / 1048576 )) MB, expected daemon mode ${MODE[$id]}"
done

# every console streamed here, prefixed [ID], while its guest runs
start_guest() {
	local id=$1 gp
	KVER=${KVERS[$id]} KDIR=${KDIRS[$id]}
	: >"${RUN[$id]}/console.log"
	run_guest "$id" "${RUN[$id]}" &
	gp=$!
	tail --pid=$gp -n +1 -F "${RUN[$id]}/console.log" 2>/dev/null | sed -u "s/^/[$id] /" &
	GUESTS+=("$gp" "$!")
}
GUESTS=()
stop_guests() {  # INT/TERM: stop our guests (by the pids qemu wrote), then fail
	local id
	for id in "${IDS[@]}"; do
		[ -s "${RUN[$id]}/qemu.pid" ] && kill "$(cat "${RUN[$id]}/qemu.pid")" 2>/dev/null
	done
	die "interrupted"
}
trap stop_guests INT TERM
for id in "${IDS[@]}"; do
	start_guest "$id"
	if [ $serial = 1 ]; then wait "${GUESTS[@]}"; GUESTS=(); fi
done
[ ${#GUESTS[@]} -eq 0 ] || wait "${GUESTS[@]}"

# ---------------------------------------------------------------- verdict
fail=0
echo
say "summary ($((SECONDS - T0)) s in all)"
for id in "${IDS[@]}"; do
	run=${RUN[$id]} log=${RUN[$id]}/console.log
	read -r qrc ms <"$run/result"
	boot=$(grep -m1 '^SWK-BOOTED' "$log" | awk '{print $2}')
	res=$(grep -m1 '^SWK-RESULT' "$log")
	fails=$(grep -E '^FAIL ' "$log" | awk '{print $2}' | tr '\n' ' ')
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
	nskip=0; [ -f "$run/skipped" ] && nskip=$(wc -l <"$run/skipped")
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		say "[$id] FAIL: timed out after ${limit} s${res:+ ($res)}"; fail=1
	elif [ -z "$boot" ]; then
		say "[$id] FAIL: the guest did not boot (qemu exit $qrc)"; sed 's/^/  | /' "$run/qemu.err" | head -n 10
		tail -n 20 "$log" | sed 's/^/  | /'; fail=1
	elif [ -z "$res" ]; then
		say "[$id] FAIL: the guest stopped without a result (qemu exit $qrc)"; tail -n 20 "$log" | sed 's/^/  | /'; fail=1
	elif [ "$res" != "SWK-RESULT 0" ]; then
		say "[$id] FAIL: ${KVERS[$id]}: $summary; failed: ${fails:-see log} (boot ${boot} ms, ${ms} ms in all)"; fail=1
	else
		say "[$id] ok: ${KVERS[$id]}: $summary (+$nskip skipped by kernels.list), mode ${MODE[$id]}; boot ${boot} ms (to /init), ${ms} ms in all"
	fi
	[ -f "$run/skipped" ] && sed "s/^/check-kernels: [$id] /" "$run/skipped"
	[ $keep = 1 ] || rm -f "$run/initrd"
done
[ $fail = 0 ] && say "passed" || say "FAILED"
exit $fail
