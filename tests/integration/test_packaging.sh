# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2015
# (SC2015: "cond && ok ... || bad ..." is safe here: ok always returns 0)
# Packaging suite: the Debian package (build, contents, lintian, install and
# purge on this machine), the systemd unit as installed, man pages, bash
# completion, `make install`, the RPM spec, the YAML files and the
# Containerfile. None of these tests uses the network. The removal tests
# (pkg_04's purge, pkg_10's rpm %preun) apply and remove the table only in a
# network namespace of their own (swt<pid>-pkg, swt<pid>-rpm).
#
# Builds happen in temporary copies of the tree (under $SWT_TMP), never in
# the checkout. The install test puts a policy-rc.d that denies every start
# in place for its duration, checks that no sandwalld from the package runs,
# and purges the package again, also when it fails or is interrupted.

register_test pkg_01_deb_build     "dpkg-buildpackage -us -uc -b builds sandwall_<VERSION>_<arch>.deb outside the checkout"
register_test pkg_02_deb_contents  "the .deb holds binaries, unit, conffile, man pages, completion; sane maintainer scripts"
register_test pkg_03_lintian       "lintian: no E: tags (W: and I: reported)"
register_test pkg_04_deb_install   "dpkg -i: files, unit enabled, nothing started, unit verify + security <= 2.0; purge removes all"
register_test pkg_05_man_lint      "mandoc -Tlint: man pages have no warning or worse, and render no nested quotes"
register_test pkg_06_completion    "bash completion offers both programs' commands and options"
register_test pkg_07_make_install  "make install (PREFIX=/usr DESTDIR=...) and make uninstall"
register_test pkg_08_yaml          "every YAML file parses; daemonset and alert rules say what docs/fleet.md says"
register_test pkg_09_containerfile "Containerfile: multi-stage from debian:12 with the package's build deps"
register_test pkg_10_rpm           "rpmbuild -bb packaging/rpm/sandwall.spec (if rpmbuild is available); %preun removes the table on erase, keeps it on upgrade"

PKG_VERSION=$(sed -n 's/^VERSION *:*= *//p' "$SWT_ROOT/Makefile")
PKG_DEB=""           # built .deb (cached across tests)
PKG_DEB_FAILED=0
PKG_INSTALLED=0      # we installed the package: purge it on cleanup
PKG_POLICY_BACKUP="" # a policy-rc.d that was there before us
PKG_POLICY_OURS=0

pkg_tmp() { mkdir -p "$SWT_TMP/pkg" && echo "$SWT_TMP/pkg"; }

pkg_have() {
	local t missing=""
	for t in "$@"; do command -v "$t" >/dev/null 2>&1 || missing+=" $t"; done
	[ -z "$missing" ] && return 0
	info "skip: missing tool(s):$missing (make deps installs them)"
	return 1
}

# Every file of the tree as a package build would see it (tracked and
# untracked, not ignored), NUL separated.
pkg_tree_files() {
	if git -C "$SWT_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$SWT_ROOT" && git ls-files -z -c -o --exclude-standard |
			while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done)
	else
		(cd "$SWT_ROOT" && find . -path ./build -prune -o -path ./build-asan -prune -o \
			-path ./.git -prune -o -type f -print0)
	fi
}

# pkg_copy_tree DIR: a copy of the tree without build output
pkg_copy_tree() {
	mkdir -p "$1" && (cd "$SWT_ROOT" && pkg_tree_files | tar --null -T - -cf -) | tar -xf - -C "$1" &&
		rm -rf "$1/build" "$1/build-asan"
}

# pkg_need_deb: build the .deb once; 0 built, 1 failed, $SKIP tools missing
pkg_need_deb() {
	[ -n "$PKG_DEB" ] && [ -f "$PKG_DEB" ] && return 0
	[ "$PKG_DEB_FAILED" = 1 ] && { bad "the .deb did not build (see pkg_01_deb_build)"; return 1; }
	pkg_have dpkg-buildpackage dh dpkg-parsechangelog || return "$SKIP"
	local out log arch
	out="$(pkg_tmp)/deb"; log="$(pkg_tmp)/deb-build.log"
	arch=$(dpkg --print-architecture)
	rm -rf "$out"
	info "building the .deb (DEB_BUILD_OPTIONS=nocheck: the unit tests are make unit's job)"
	if ! DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" TMPDIR="$(pkg_tmp)" \
		timeout 300 "$SWT_ROOT/packaging/debian/build-deb.sh" "$out" >"$log" 2>&1; then
		bad "packaging/debian/build-deb.sh failed"; tail -n 25 "$log" | show - 25
		PKG_DEB_FAILED=1; return 1
	fi
	if [ ! -f "$out/sandwall_${PKG_VERSION}_${arch}.deb" ]; then
		bad "no sandwall_${PKG_VERSION}_${arch}.deb; built: $(cd "$out" && echo *)"
		PKG_DEB_FAILED=1; return 1
	fi
	PKG_DEB="$out/sandwall_${PKG_VERSION}_${arch}.deb"
	return 0
}

# ------------------------------------------------------------------ .deb
pkg_01_deb_build() {
	local parent before after rc
	parent=$(dirname "$SWT_ROOT")
	before=$(ls -d "$parent"/sandwall_* "$parent"/sandwall-dbgsym_* "$SWT_ROOT/debian" 2>/dev/null)
	pkg_need_deb; rc=$?
	[ $rc -eq 0 ] || return $rc
	ok "built $(basename "$PKG_DEB") (version $PKG_VERSION from the Makefile)"
	[ "$(dpkg-deb -f "$PKG_DEB" Version)" = "$PKG_VERSION" ] && ok "control Version = Makefile VERSION" ||
		bad "control Version $(dpkg-deb -f "$PKG_DEB" Version) != Makefile VERSION $PKG_VERSION"
	after=$(ls -d "$parent"/sandwall_* "$parent"/sandwall-dbgsym_* "$SWT_ROOT/debian" 2>/dev/null)
	if [ "$before" = "$after" ]; then ok "the checkout is untouched (no ./debian, no artefacts in $parent)"
	else bad "the build left files in or next to the checkout:"; printf '%s\n' "$after" | show -; fi
}

pkg_02_deb_contents() {
	local rc list ctl f
	pkg_need_deb; rc=$?
	[ $rc -eq 0 ] || return $rc
	list="$(pkg_tmp)/deb-contents"; ctl="$(pkg_tmp)/deb-control"
	dpkg-deb -c "$PKG_DEB" | awk '{print $6}' | sed 's|^\./|/|' >"$list"
	for f in /usr/sbin/sandwall /usr/sbin/sandwalld /lib/systemd/system/sandwalld.service \
		/etc/sandwall/sandwall.conf /usr/share/man/man8/sandwall.8.gz \
		/usr/share/man/man8/sandwalld.8.gz /usr/share/man/man5/sandwall.conf.5.gz \
		/usr/share/bash-completion/completions/sandwall /usr/share/bash-completion/completions/sandwalld \
		/usr/share/doc/sandwall/copyright /usr/share/doc/sandwall/json.md.gz /usr/share/doc/sandwall/threat-model.md.gz; do
		grep -qxF "$f" "$list" && ok "contains $f" || bad "missing $f"
	done
	dpkg-deb -c "$PKG_DEB" | grep -q ' ./usr/share/bash-completion/completions/sandwalld -> sandwall$' &&
		ok "sandwalld completion is a symlink to sandwall" || bad "completions/sandwalld is not a symlink to sandwall"
	rm -rf "$ctl"; dpkg-deb -e "$PKG_DEB" "$ctl"
	if grep -qxF /etc/sandwall/sandwall.conf "$ctl/conffiles" 2>/dev/null; then
		ok "conffiles: /etc/sandwall/sandwall.conf"
	else bad "/etc/sandwall/sandwall.conf is not a conffile"; show "$ctl/conffiles"; fi
	cmp -s <(dpkg-deb --fsys-tarfile "$PKG_DEB" | tar -xOf - ./etc/sandwall/sandwall.conf) \
		"$SWT_ROOT/rules/sandwall.conf" && ok "the conffile is rules/sandwall.conf" ||
		bad "the packaged sandwall.conf differs from rules/sandwall.conf"
	dpkg-deb --fsys-tarfile "$PKG_DEB" | tar -xOf - ./lib/systemd/system/sandwalld.service |
		grep -qx 'ExecStart=/usr/sbin/sandwalld -c /etc/sandwall/sandwall.conf' &&
		ok "unit ExecStart=/usr/sbin/sandwalld -c /etc/sandwall/sandwall.conf" ||
		bad "the packaged unit's ExecStart is not /usr/sbin/sandwalld -c /etc/sandwall/sandwall.conf"
	# the metrics directories [daemon] metrics accepts are writable by the unit as shipped
	local rw d
	rw=$(dpkg-deb --fsys-tarfile "$PKG_DEB" | tar -xOf - ./lib/systemd/system/sandwalld.service | sed -n 's/^ReadWritePaths=//p')
	for d in /var/lib/prometheus/node-exporter /var/lib/node_exporter /var/lib/node-exporter /var/log/sandwall; do
		[[ " $rw " == *" -$d "* || " $rw " == *" $d "* ]] && ok "the unit may write $d" ||
			bad "the unit cannot write $d (ReadWritePaths=$rw)"
	done
	dpkg-deb -f "$PKG_DEB" Depends | grep -q 'libnftnl' && ok "Depends: $(dpkg-deb -f "$PKG_DEB" Depends)" ||
		bad "Depends lacks libnftnl: $(dpkg-deb -f "$PKG_DEB" Depends)"
	for f in postinst prerm postrm; do
		[ -f "$ctl/$f" ] || { bad "no $f script"; continue; }
		sh -n "$ctl/$f" && ok "$f: sh -n clean" || bad "$f: syntax error"
	done
	grep -q "deb-systemd-helper enable 'sandwalld.service'" "$ctl/postinst" &&
		ok "postinst enables sandwalld.service (deb-systemd-helper)" || bad "postinst does not enable the unit"
	# Starting must be guarded by a running systemd (and deb-systemd-invoke,
	# which honours policy-rc.d): never a bare systemctl start.
	if awk '/if \[ -d \/run\/systemd\/system \]/{g=1} /^fi$/{g=0} /deb-systemd-invoke|systemctl/{ if (!g) bad=1 } END{exit bad}' "$ctl/postinst"; then
		ok "postinst starts only via deb-systemd-invoke, inside [ -d /run/systemd/system ]"
	else bad "postinst calls systemctl/deb-systemd-invoke outside the running-systemd guard"; show "$ctl/postinst" 40; fi
	grep -q "deb-systemd-helper purge 'sandwalld.service'" "$ctl/postrm" &&
		ok "postrm purges the unit's enable state" || bad "postrm does not purge the enable state"
}

pkg_03_lintian() {
	local rc out changes e w i
	pkg_need_deb; rc=$?
	[ $rc -eq 0 ] || return $rc
	pkg_have lintian || return "$SKIP"
	out="$(pkg_tmp)/lintian.out"
	changes=$(ls "$(dirname "$PKG_DEB")"/sandwall_"${PKG_VERSION}"_*.changes 2>/dev/null | head -n1)
	timeout 120 lintian -I --pedantic "${changes:-$PKG_DEB}" 2>&1 |
		grep -v '^running with root privileges is not recommended' >"$out"
	e=$(grep -c '^E: ' "$out"); w=$(grep -c '^W: ' "$out"); i=$(grep -c '^[IP]: ' "$out")
	info "lintian $(basename "${changes:-$PKG_DEB}"): $e error(s), $w warning(s), $i info/pedantic (overrides: packaging/debian/sandwall.lintian-overrides)"
	show "$out" 40
	[ "$e" -eq 0 ] && ok "no lintian errors" || bad "lintian reports $e error(s)"
}

# ---- install / purge (cleanup runs on any exit, including INT/TERM)
pkg_pidof_packaged() {
	local p
	for p in $(pidof sandwalld 2>/dev/null); do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = /usr/sbin/sandwalld ] && echo "$p"
	done
	return 0
}

pkg_install_cleanup() {
	local p
	for p in $(pkg_pidof_packaged); do
		echo "    FAIL a sandwalld from the package is running (pid $p): killing it." \
		     "Its table inet sandwall stays in this namespace; remove it with 'sandwall remove'."
		kill "$p" 2>/dev/null
	done
	if [ "$PKG_INSTALLED" = 1 ]; then
		dpkg --purge sandwall >/dev/null 2>&1 || echo "    FAIL cleanup: dpkg --purge sandwall failed"
		PKG_INSTALLED=0
	fi
	if [ "$PKG_POLICY_OURS" = 1 ]; then
		rm -f /usr/sbin/policy-rc.d
		[ -n "$PKG_POLICY_BACKUP" ] && mv -f "$PKG_POLICY_BACKUP" /usr/sbin/policy-rc.d
		PKG_POLICY_OURS=0; PKG_POLICY_BACKUP=""
	fi
	return 0
}

# the security score: "→ Overall exposure level for sandwalld.service: 1.4 OK"
pkg_exposure() { sed -n 's/.*Overall exposure level for [^:]*: *\([0-9.]*\).*/\1/p' "$1" | head -n1; }

pkg_04_deb_install() {
	local rc d log f dep missing="" pids exposure unit=/lib/systemd/system/sandwalld.service
	pkg_need_deb; rc=$?
	[ $rc -eq 0 ] || return $rc
	# Never touch an installation that is not ours.
	if dpkg-query -W -f='${Status}' sandwall 2>/dev/null | grep -q 'installed\|config-files\|unpacked'; then
		info "skip: a sandwall package is already on this machine ($(dpkg-query -W -f='${Version} ${Status}' sandwall)); not touching it"
		return "$SKIP"
	fi
	for f in /usr/sbin/sandwall /usr/sbin/sandwalld /etc/sandwall $unit; do
		if [ -e "$f" ]; then info "skip: $f exists (installed by hand?); not overwriting it"; return "$SKIP"; fi
	done
	for dep in $(dpkg-deb -f "$PKG_DEB" Depends | tr ',' '\n' | sed 's/(.*//; s/|.*//'); do
		dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q 'ok installed' || missing+=" $dep"
	done
	if [ -n "$missing" ]; then info "skip: dependencies not installed:$missing"; return "$SKIP"; fi
	if [ -n "$(pkg_pidof_packaged)" ]; then info "skip: a /usr/sbin/sandwalld already runs"; return "$SKIP"; fi

	# one install test per machine at a time (another checkout's run, say)
	exec {PKG_LOCK_FD}>/run/lock/sandwall-test-packaging.lock
	if ! flock -w 120 "$PKG_LOCK_FD"; then
		exec {PKG_LOCK_FD}>&-
		info "skip: another run holds /run/lock/sandwall-test-packaging.lock"; return "$SKIP"
	fi
	if dpkg-query -W -f='${Status}' sandwall 2>/dev/null | grep -q 'installed\|config-files\|unpacked'; then
		exec {PKG_LOCK_FD}>&-
		info "skip: a sandwall package appeared while waiting for the lock; not touching it"; return "$SKIP"
	fi
	trap 'pkg_install_cleanup; swt_cleanup' EXIT
	# policy-rc.d 101: deb-systemd-invoke (and invoke-rc.d) start nothing.
	if [ -e /usr/sbin/policy-rc.d ]; then
		PKG_POLICY_BACKUP="$(pkg_tmp)/policy-rc.d.saved"
		mv -f /usr/sbin/policy-rc.d "$PKG_POLICY_BACKUP"
	fi
	PKG_POLICY_OURS=1
	printf '#!/bin/sh\n# sandwall test_packaging: start nothing (removed after the test)\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 0755 /usr/sbin/policy-rc.d
	[ -d /run/systemd/system ] && info "systemd runs here: policy-rc.d (exit 101) keeps deb-systemd-invoke from starting sandwalld" ||
		info "systemd is not PID 1 here: the postinst must skip every systemctl call"

	log="$(pkg_tmp)/dpkg-i.log"
	PKG_INSTALLED=1
	if DEBIAN_FRONTEND=noninteractive timeout 120 dpkg -i "$PKG_DEB" >"$log" 2>&1; then
		ok "dpkg -i $(basename "$PKG_DEB")"
	else
		bad "dpkg -i failed"; show "$log" 30
	fi
	dpkg-query -W -f='${Status}' sandwall 2>/dev/null | grep -q 'install ok installed' &&
		ok "dpkg status: install ok installed" || bad "dpkg status: $(dpkg-query -W -f='${Status}' sandwall 2>&1)"
	for f in /usr/sbin/sandwall /usr/sbin/sandwalld $unit /etc/sandwall/sandwall.conf \
		/usr/share/bash-completion/completions/sandwall /usr/share/bash-completion/completions/sandwalld \
		/usr/share/man/man8/sandwall.8.gz /usr/share/man/man8/sandwalld.8.gz /usr/share/man/man5/sandwall.conf.5.gz; do
		if [ -e "$f" ]; then ok "installed $f"
		elif [[ $f == /usr/share/man/* ]] && grep -qs 'path-exclude.*/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
			info "$f: not installed, /etc/dpkg/dpkg.cfg.d excludes man pages on this machine"
		else bad "not installed: $f"; fi
	done
	[ -L /etc/systemd/system/sysinit.target.wants/sandwalld.service ] &&
		ok "unit enabled (sysinit.target.wants/sandwalld.service)" ||
		bad "unit not enabled: no /etc/systemd/system/sysinit.target.wants/sandwalld.service"
	/usr/sbin/sandwall --version 2>&1 | grep -qx "sandwall $PKG_VERSION" && ok "/usr/sbin/sandwall --version: sandwall $PKG_VERSION" ||
		bad "/usr/sbin/sandwall --version: $(/usr/sbin/sandwall --version 2>&1 | head -n1)"
	/usr/sbin/sandwalld --version 2>&1 | grep -qx "sandwalld $PKG_VERSION" && ok "/usr/sbin/sandwalld --version: sandwalld $PKG_VERSION" ||
		bad "/usr/sbin/sandwalld --version: $(/usr/sbin/sandwalld --version 2>&1 | head -n1)"
	sleep 0.5
	pids=$(pkg_pidof_packaged)
	[ -z "$pids" ] && ok "no sandwalld was started by the installation" || bad "the installation started sandwalld (pid $pids)"

	if command -v systemd-analyze >/dev/null 2>&1; then
		d="$(pkg_tmp)/verify.out"
		if systemd-analyze verify "$unit" >"$d" 2>&1 && [ ! -s "$d" ]; then
			ok "systemd-analyze verify $unit: clean"
		else bad "systemd-analyze verify $unit:"; show "$d"; fi
		d="$(pkg_tmp)/security.out"
		systemd-analyze security --offline=yes "$unit" >"$d" 2>&1
		exposure=$(pkg_exposure "$d")
		if [ -z "$exposure" ]; then bad "systemd-analyze security --offline=yes printed no exposure level"; show "$d"
		elif awk -v x="$exposure" 'BEGIN{exit !(x <= 2.0)}'; then ok "systemd-analyze security: exposure $exposure <= 2.0"
		else bad "systemd-analyze security: exposure $exposure > 2.0"; grep '✗' "$d" | show - 20; fi
	else
		info "skip: systemd-analyze not installed (unit verify and security score not checked)"
	fi

	# purge takes the table away: the package's sandwall applies the shipped
	# config in a namespace of ours, and dpkg --purge runs there (its prerm
	# acts on that namespace's tables, never the root namespace's)
	local pns="${SWT_PREFIX}pkg"
	_mk_ns "$pns" || bad "could not create namespace $pns"
	if nsx "$pns" /usr/sbin/sandwall apply >"$(pkg_tmp)/pkg-apply.log" 2>&1 && table_exists sandwall "$pns"; then
		ok "the package's sandwall applied /etc/sandwall/sandwall.conf in $pns"
	else bad "apply in $pns failed"; show "$(pkg_tmp)/pkg-apply.log"; fi
	log="$(pkg_tmp)/dpkg-purge.log"
	if timeout 120 ip netns exec "$pns" dpkg --purge sandwall >"$log" 2>&1; then ok "dpkg --purge sandwall"; PKG_INSTALLED=0
	else bad "dpkg --purge sandwall failed"; show "$log"; fi
	if table_exists sandwall "$pns" || nsx "$pns" nft list table netdev sandwall >/dev/null 2>&1; then
		bad "a sandwall table is still in the kernel after purge"; show "$log"
	else ok "purge removed the table"; fi
	grep -q 'removed its tables' "$log" && ok "purge says the boundary is gone with the package" ||
		{ bad "purge did not say it removed the table"; show "$log"; }
	ip netns del "$pns" 2>/dev/null
	for f in /usr/sbin/sandwall /usr/sbin/sandwalld $unit /etc/sandwall \
		/usr/share/bash-completion/completions/sandwall /usr/share/bash-completion/completions/sandwalld \
		/usr/share/man/man8/sandwall.8.gz /usr/share/man/man5/sandwall.conf.5.gz /usr/share/doc/sandwall \
		/etc/systemd/system/sysinit.target.wants/sandwalld.service /var/lib/systemd/deb-systemd-helper-enabled/sandwalld.service.dsh-also; do
		if [ -e "$f" ] || [ -L "$f" ]; then bad "still there after purge: $f"; else ok "gone after purge: $f"; fi
	done
	dpkg-query -W -f='${Status}' sandwall 2>/dev/null | grep -q 'installed\|config-files' &&
		bad "dpkg still knows sandwall: $(dpkg-query -W -f='${Status}' sandwall)" || ok "dpkg no longer knows sandwall"

	pkg_install_cleanup
	trap swt_cleanup EXIT
	exec {PKG_LOCK_FD}>&-
	[ -e /usr/sbin/policy-rc.d ] && [ -z "$PKG_POLICY_BACKUP" ] && grep -q 'sandwall test_packaging' /usr/sbin/policy-rc.d &&
		bad "our policy-rc.d was left behind"
	return 0
}

# ------------------------------------------------------------------ man pages
pkg_05_man_lint() {
	local m out n=0
	pkg_have mandoc || return "$SKIP"
	out="$(pkg_tmp)/mandoc.out"
	for m in "$SWT_ROOT"/man/*.[0-9]; do
		[ -e "$m" ] || continue
		n=$((n + 1))
		if mandoc -Tlint -W warning "$m" >"$out" 2>&1 && [ ! -s "$out" ]; then
			ok "mandoc -Tlint -W warning $(basename "$m"): clean"
		else bad "mandoc -Tlint $(basename "$m"):"; show "$out"; fi
		# a quote macro swallowing the next one renders ‘a‘b’’: none
		# (in a UTF-8 locale: in C, col -b and grep see bytes and miss them)
		LC_ALL=C.UTF-8 mandoc -Tutf8 "$m" 2>/dev/null | LC_ALL=C.UTF-8 col -b |
			LC_ALL=C.UTF-8 grep -n "’’\|‘[^’]*‘" >"$out"
		[ ! -s "$out" ] && ok "$(basename "$m"): no nested quotes when rendered" ||
			{ bad "$(basename "$m"): nested quotes when rendered"; show "$out"; }
	done
	[ $n -ge 3 ] && ok "$n man pages linted" || bad "expected sandwall.8, sandwalld.8, sandwall.conf.5; found $n"
	for m in sandwall.8 sandwalld.8 sandwall.conf.5; do
		[ -f "$SWT_ROOT/man/$m" ] || bad "man/$m is missing"
	done
	return 0
}

# ------------------------------------------------------------------ completion
# pkg_complete PATHDIR WORDS...: print the completions for WORDS (last = current)
pkg_complete() {
	local dir=$1; shift
	PATH="$dir:/usr/sbin:/usr/bin:/sbin:/bin" bash --norc --noprofile -c '
		. "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_sandwall_complete "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' "$SWT_ROOT/packaging/bash-completion/sandwall" "$@"
}

# pkg_comp_verb DIR VERB EXPECTED NOT_EXPECTED: "sandwall VERB --<TAB>" (with
# the binaries of DIR, or none) offers EXPECTED and not NOT_EXPECTED ("" none)
pkg_comp_verb() {
	local dir=$1 verb=$2 want=$3 notwant=$4 got
	got=$(pkg_complete "$dir" sandwall "$verb" --)
	if ! grep -qx -- "$want" <<<"$got"; then
		bad "sandwall $verb --<TAB> lacks $want (${dir##*/}): ${got//$'\n'/ }"; return 1
	fi
	if [ -n "$notwant" ] && grep -qx -- "$notwant" <<<"$got"; then
		bad "sandwall $verb --<TAB> offers $notwant, another command's (${dir##*/})"; return 1
	fi
	ok "sandwall $verb --<TAB> offers $want${notwant:+, not $notwant} (${dir##*/})"
}

pkg_06_completion() {
	local comp=$SWT_ROOT/packaging/bash-completion/sandwall bin=$SWT_ROOT/build w got c opts cmds
	[ -f "$comp" ] || { bad "no $comp"; return 1; }
	bash -n "$comp" && ok "bash -n $comp" || bad "bash -n $comp: syntax error"
	if [ -x "$bin/sandwall" ] && [ -x "$bin/sandwalld" ]; then
		# every command and option in --help is offered
		cmds=$("$bin/sandwall" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p')
		got=$(pkg_complete "$bin" sandwall "")
		for c in $cmds; do grep -qx -- "$c" <<<"$got" || bad "sandwall <TAB> lacks command $c"; done
		[ -n "$cmds" ] && ok "sandwall <TAB>: ${got//$'\n'/ }" || bad "no commands found in sandwall --help"
		for w in sandwall sandwalld; do
			opts=$("$bin/$w" --help | sed -n -E '/^ +-/{s/^ +//; s/  .*//; p}' | grep -oE -- '--?[A-Za-z][A-Za-z0-9-]*')
			got=$(pkg_complete "$bin" "$w" -)
			for c in $opts; do grep -qx -- "$c" <<<"$got" || bad "$w -<TAB> lacks option $c"; done
			ok "$w -<TAB>: ${got//$'\n'/ }"
		done
		pkg_complete "$bin" sandwall --js | grep -qx -- --json && ok "sandwall --js<TAB> -> --json" || bad "sandwall --js<TAB> does not give --json"
		pkg_complete "$bin" sandwalld --fore | grep -qx -- --foreground && ok "sandwalld --fore<TAB> -> --foreground" || bad "sandwalld --fore<TAB> does not give --foreground"
		got=$(pkg_complete "$bin" sandwall -c /x.conf ch)
		[ "$got" = check ] && ok "sandwall -c FILE ch<TAB> -> check" || bad "sandwall -c FILE ch<TAB> -> '$got'"
		got=$(pkg_complete "$bin" sandwall check "")
		[ -z "$got" ] && ok "no second command after check" || bad "sandwall check <TAB> offers: ${got//$'\n'/ }"
		got=$(pkg_complete "$bin" sandwalld "")
		[ -z "$got" ] && ok "sandwalld <TAB>: no commands (it has none)" || bad "sandwalld <TAB> offers: ${got//$'\n'/ }"
		# each command's options, from its --help: its own and the global ones
		pkg_comp_verb "$bin" run --label --verify
		pkg_comp_verb "$bin" run --timeout --since
		pkg_comp_verb "$bin" run --receipt --force
		pkg_comp_verb "$bin" run --json ""
		pkg_comp_verb "$bin" receipt --verify --label
		pkg_comp_verb "$bin" receipt --sign --no-attacks
		pkg_comp_verb "$bin" receipt --allowed-signers --strict
		pkg_comp_verb "$bin" key --allowed-signers --sign
		pkg_comp_verb "$bin" apply --force --receipt
		pkg_comp_verb "$bin" apply --config --preview
		pkg_comp_verb "$bin" check --preview --force
		pkg_comp_verb "$bin" lint --strict --timeout
		pkg_comp_verb "$bin" verify --no-attacks --output
		pkg_comp_verb "$bin" status --json --force
		got=$(pkg_complete "$bin" sandwall -c /x.conf receipt --o)
		[ "$got" = --output ] && ok "sandwall -c FILE receipt --o<TAB> -> --output" || bad "sandwall -c FILE receipt --o<TAB> -> '$got'"
		got=$(pkg_complete "$bin" sandwall run --label x --timeout 5m -- ech)
		grep -qx echo <<<"$got" && ! grep -qx -- --label <<<"$got" &&
			ok "sandwall run ... -- ech<TAB> completes commands" || bad "sandwall run ... -- ech<TAB> -> ${got//$'\n'/ }"
		got=$(pkg_complete "$bin" sandwall run "")
		grep -qx start <<<"$got" && grep -qx stop <<<"$got" && ok "sandwall run <TAB> -> start stop" || bad "sandwall run <TAB> -> ${got//$'\n'/ }"
	else
		info "build/sandwall or build/sandwalld not built: --help comparison skipped"
	fi
	# -c completes file names
	mkdir -p "$(pkg_tmp)/comp" && : >"$(pkg_tmp)/comp/alpha.conf"
	got=$(pkg_complete "$bin" sandwall -c "$(pkg_tmp)/comp/al")
	[ "$got" = "$(pkg_tmp)/comp/alpha.conf" ] && ok "sandwall -c <TAB> completes file names" || bad "sandwall -c <TAB> -> '$got'"
	got=$(pkg_complete "$bin" sandwall run --receipt "$(pkg_tmp)/comp/al")
	[ "$got" = "$(pkg_tmp)/comp/alpha.conf" ] && ok "sandwall run --receipt <TAB> completes file names" || bad "sandwall run --receipt <TAB> -> '$got'"
	got=$(pkg_complete "$bin" sandwall receipt --verify "$(pkg_tmp)/comp/al")
	[ "$got" = "$(pkg_tmp)/comp/alpha.conf" ] && ok "sandwall receipt --verify <TAB> completes file names" || bad "sandwall receipt --verify <TAB> -> '$got'"
	# without a runnable binary the built-in lists are used
	got=$(pkg_complete /nonexistent sandwall "")
	for c in apply check export remove status; do grep -qx "$c" <<<"$got" || bad "fallback list lacks $c"; done
	ok "fallback (no binary on PATH): ${got//$'\n'/ }"
	pkg_comp_verb /nonexistent run --label --verify
	pkg_comp_verb /nonexistent receipt --verify --label
	pkg_comp_verb /nonexistent verify --no-attacks --output
	got=$(pkg_complete /nonexistent sandwalld --fore)
	[ "$got" = --foreground ] && ok "fallback: sandwalld --fore<TAB> -> --foreground" || bad "fallback: sandwalld --fore<TAB> -> '$got'"
	return 0
}

# ------------------------------------------------------------------ make install
pkg_07_make_install() {
	local src stage log f
	pkg_have make cc pkg-config || return "$SKIP"
	src="$(pkg_tmp)/mi-src"; stage="$(pkg_tmp)/mi-stage"; log="$(pkg_tmp)/make-install.log"
	rm -rf "$src" "$stage"
	pkg_copy_tree "$src" || { bad "cannot copy the tree"; return 1; }
	if timeout 300 make -C "$src" -j"$(nproc)" install PREFIX=/usr DESTDIR="$stage" >"$log" 2>&1; then
		ok "make install PREFIX=/usr DESTDIR=..."
	else bad "make install failed"; tail -n 20 "$log" | show -; return 1; fi
	for f in /usr/sbin/sandwall /usr/sbin/sandwalld /etc/sandwall/sandwall.conf \
		/usr/lib/systemd/system/sandwalld.service /usr/share/man/man8/sandwall.8 \
		/usr/share/man/man8/sandwalld.8 /usr/share/man/man5/sandwall.conf.5 \
		/usr/share/bash-completion/completions/sandwall /usr/share/bash-completion/completions/sandwalld; do
		[ -e "$stage$f" ] && ok "installed $f" || bad "make install did not install $f"
	done
	[ "$(readlink "$stage/usr/share/bash-completion/completions/sandwalld")" = sandwall ] &&
		ok "completions/sandwalld -> sandwall" || bad "completions/sandwalld is not a symlink to sandwall"
	make -C "$src" uninstall PREFIX=/usr DESTDIR="$stage" >>"$log" 2>&1 || bad "make uninstall failed"
	f=$(cd "$stage" && find . ! -type d | sed 's|^\.||' | sort)
	[ "$f" = /etc/sandwall/sandwall.conf ] && ok "make uninstall leaves only the config" ||
		{ bad "after make uninstall:"; printf '%s\n' "$f" | show -; }
	rm -rf "$src" "$stage"
	return 0
}

# ------------------------------------------------------------------ YAML
pkg_08_yaml() {
	local files=() f out
	[ -x "$PY" ] || command -v "$PY" >/dev/null || { info "skip: no python3"; return "$SKIP"; }
	"$PY" -c 'import yaml' 2>/dev/null || { info "skip: python3-yaml not installed (make deps)"; return "$SKIP"; }
	while IFS= read -r -d '' f; do
		case $f in *.yml|*.yaml) files+=("$f") ;; esac
	done < <(pkg_tree_files)
	[ ${#files[@]} -gt 0 ] || { bad "no YAML files found"; return 1; }
	out="$(pkg_tmp)/yaml.out"
	for f in "${files[@]}"; do
		if (cd "$SWT_ROOT" && "$PY" -c 'import sys, yaml; list(yaml.safe_load_all(open(sys.argv[1])))' "$f") >"$out" 2>&1
		then ok "YAML parses: $f"; else bad "YAML does not parse: $f"; show "$out"; fi
	done
	# What the manifests must say (docs/fleet.md describes them).
	(cd "$SWT_ROOT" && "$PY" - <<-'EOF') >"$out" 2>&1
	import re, sys, yaml
	fails = 0
	def check(cond, what):
	    global fails
	    print(("ok   " if cond else "FAIL ") + what)
	    fails += 0 if cond else 1
	docs = [d for d in yaml.safe_load_all(open("packaging/kubernetes/daemonset.yaml")) if d]
	kinds = {d["kind"]: d for d in docs}
	check("DaemonSet" in kinds and "ConfigMap" in kinds, "daemonset.yaml has a DaemonSet and a ConfigMap")
	ds, cm = kinds.get("DaemonSet", {}), kinds.get("ConfigMap", {})
	pod = ds.get("spec", {}).get("template", {}).get("spec", {})
	check(pod.get("hostNetwork") is True, "hostNetwork: true")
	c = (pod.get("containers") or [{}])[0]
	sc = c.get("securityContext", {})
	caps = sc.get("capabilities", {})
	check(caps.get("add") == ["NET_ADMIN"], "capabilities add exactly NET_ADMIN")
	check(caps.get("drop") == ["ALL"], "capabilities drop ALL")
	check(sc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem: true")
	check(sc.get("allowPrivilegeEscalation") is False and not sc.get("privileged"), "not privileged, no privilege escalation")
	cmd = (c.get("command") or []) + (c.get("args") or [])
	check(len(cmd) >= 4 and cmd[0].endswith("sandwalld") and cmd[-3:] == ["-f", "-c", "/etc/sandwall/sandwall.conf"],
	      "runs sandwalld -f -c /etc/sandwall/sandwall.conf: %s" % " ".join(cmd))
	vols = {v["name"]: v for v in pod.get("volumes", [])}
	mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
	cfgm = mounts.get("/etc/sandwall", {})
	check(cfgm.get("readOnly") is True and vols.get(cfgm.get("name"), {}).get("configMap", {}).get("name") == cm.get("metadata", {}).get("name"),
	      "/etc/sandwall is the ConfigMap, read-only")
	check("/run/sandwall" in mounts, "/run/sandwall is writable (control socket, journal)")
	conf = cm.get("data", {}).get("sandwall.conf", "")
	m = re.search(r"^interfaces\s*=\s*(.*(?:\n[ \t]+\S.*)*)", conf, re.M)
	ifs = set(re.sub(r"[;#].*", "", m.group(1)).split()) if m else set()
	for want in ("cni0", "cali*", "lxc*", "flannel*"):
	    check(want in ifs, "ConfigMap guards %s" % want)
	check(all(re.fullmatch(r"[A-Za-z0-9_.@-]+\*?", i) for i in ifs), "interface patterns use * only at the end: %s" % " ".join(sorted(ifs)))
	rules = [r for g in yaml.safe_load(open("packaging/prometheus/alerts.yml"))["groups"] for r in g["rules"]]
	exprs = " ".join(r["expr"] for r in rules)
	check(all("alert" in r and "expr" in r and r.get("labels", {}).get("severity") for r in rules), "every rule has alert, expr, severity")
	for metric in ("sandwall_up", "sandwall_drift_events_total", "sandwall_repair_failures_total"):
	    check(metric in exprs, "an alert uses %s" % metric)
	check("absent" in exprs or "unless" in exprs, "an alert fires when sandwall_up is missing")
	check("node_textfile_mtime_seconds" in exprs, "an alert fires when the textfile goes stale")
	sys.exit(1 if fails else 0)
	EOF
	local rc=$?
	while IFS= read -r f; do
		case $f in "ok   "*) ok "${f#ok   }" ;; "FAIL "*) bad "${f#FAIL }" ;; *) bad "$f" ;; esac
	done <"$out"
	[ $rc -eq 0 ] || [ "$T_FAILS" -gt 0 ] || bad "manifest checks exited $rc"
	# the ConfigMap's sandwall.conf is a valid config (export: no root, no kernel change)
	if [ -x "$SANDWALL" ]; then
		"$PY" -c 'import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d.get("kind") == "ConfigMap": sys.stdout.write(d["data"]["sandwall.conf"])' \
			"$SWT_ROOT/packaging/kubernetes/daemonset.yaml" >"$(pkg_tmp)/k8s.conf"
		if "$SANDWALL" -c "$(pkg_tmp)/k8s.conf" export >/dev/null 2>"$out"; then
			ok "the ConfigMap's sandwall.conf is accepted (sandwall export)"
		else bad "the ConfigMap's sandwall.conf is refused:"; show "$out"; fi
	else info "build/sandwall not built: the ConfigMap's config is not validated"; fi
	if command -v promtool >/dev/null 2>&1; then
		promtool check rules "$SWT_ROOT/packaging/prometheus/alerts.yml" >"$out" 2>&1 &&
			ok "promtool check rules" || { bad "promtool check rules"; show "$out"; }
	else info "promtool not installed: PromQL not checked (YAML structure only)"; fi
	return 0
}

# ------------------------------------------------------------------ Containerfile
pkg_09_containerfile() {
	local cf=$SWT_ROOT/packaging/Containerfile dep
	[ -f "$cf" ] || { bad "no packaging/Containerfile"; return 1; }
	[ "$(grep -ciE '^FROM +(docker\.io/(library/)?)?debian:12' "$cf")" -ge 2 ] &&
		ok "two stages FROM debian:12" || bad "expected a multi-stage build FROM debian:12 (build and runtime)"
	grep -qiE '^COPY +--from=' "$cf" && ok "runtime stage copies from the build stage" || bad "no COPY --from= (not multi-stage)"
	# every Build-Depends of the package is installed in the build stage
	for dep in $(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$SWT_ROOT/packaging/debian/control" |
		sed 's/^Build-Depends://; /^[A-Z]/d' | tr ',' '\n' | sed 's/[(<].*//; s/|.*//' | tr -d ' '); do
		[ "$dep" = debhelper-compat ] && dep=debhelper
		grep -qw -- "$dep" "$cf" && ok "build stage installs $dep" || bad "Containerfile does not install build dependency $dep"
	done
	grep -q 'packaging/debian/build-deb.sh' "$cf" && ok "builds the .deb with packaging/debian/build-deb.sh" || bad "does not build the .deb"
	grep -qE '"/usr/sbin/sandwalld", *"-f", *"-c", *"/etc/sandwall/sandwall.conf"' "$cf" &&
		ok "entrypoint: sandwalld -f -c /etc/sandwall/sandwall.conf" || bad "entrypoint is not sandwalld -f -c /etc/sandwall/sandwall.conf"
	if command -v hadolint >/dev/null 2>&1; then
		hadolint "$cf" >"$(pkg_tmp)/hadolint.out" 2>&1 && ok "hadolint" || { bad "hadolint"; show "$(pkg_tmp)/hadolint.out"; }
	fi
	info "skip: the image itself is not built here (that needs a registry; this suite stays off the network)"
	return 0
}

# ------------------------------------------------------------------ RPM
pkg_10_rpm() {
	local top log spec=$SWT_ROOT/packaging/rpm/sandwall.spec rpm f specver
	[ -f "$spec" ] || { bad "no $spec"; return 1; }
	specver=$(sed -n 's/^Version: *//p' "$spec")
	[ "$specver" = "$PKG_VERSION" ] && ok "spec Version $specver = Makefile VERSION" || bad "spec Version $specver != Makefile VERSION $PKG_VERSION"
	if ! command -v rpmbuild >/dev/null 2>&1; then
		info "skip: rpmbuild not installed (Debian package 'rpm'; make deps installs it)"
		return "$SKIP"
	fi
	top="$(pkg_tmp)/rpm"; log="$(pkg_tmp)/rpmbuild.log"
	rm -rf "$top"; mkdir -p "$top/SOURCES"
	pkg_copy_tree "$top/sandwall-$PKG_VERSION" || { bad "cannot copy the tree"; return 1; }
	tar -C "$top" -czf "$top/SOURCES/sandwall-$PKG_VERSION.tar.gz" "sandwall-$PKG_VERSION"
	rm -rf "${top:?}/sandwall-$PKG_VERSION"
	# --nodeps: Debian's rpm database knows none of the BuildRequires; the
	# Debian build dependencies are the same libraries. No debuginfo
	# (find-debuginfo is not on Debian); unit tests are make unit's job.
	if timeout 300 rpmbuild -bb --nodeps --define "_topdir $top" --define 'debug_package %{nil}' \
		--without check "$spec" >"$log" 2>&1; then
		ok "rpmbuild -bb sandwall.spec"
	else bad "rpmbuild failed"; tail -n 20 "$log" | show - 20; return 1; fi
	rpm=$(ls "$top"/RPMS/*/sandwall-"$PKG_VERSION"-*.rpm 2>/dev/null | head -n1)
	[ -n "$rpm" ] || { bad "no sandwall-$PKG_VERSION-*.rpm"; return 1; }
	ok "built $(basename "$rpm")"
	for f in /usr/sbin/sandwall /usr/sbin/sandwalld /usr/lib/systemd/system/sandwalld.service \
		/etc/sandwall/sandwall.conf /usr/share/man/man8/sandwall.8 /usr/share/man/man8/sandwalld.8 \
		/usr/share/man/man5/sandwall.conf.5 /usr/share/bash-completion/completions/sandwall \
		/usr/share/bash-completion/completions/sandwalld; do
		rpm -qlp "$rpm" 2>/dev/null | grep -qx -- "$f.*" && ok "rpm contains $f" || bad "rpm lacks $f"
	done
	rpm -qcp "$rpm" 2>/dev/null | grep -qx /etc/sandwall/sandwall.conf && ok "%config: /etc/sandwall/sandwall.conf" ||
		bad "/etc/sandwall/sandwall.conf is not %config"
	pkg_rpm_preun "$rpm"
	rm -rf "$top"
	return 0
}

# pkg_rpm_in NS ROOT CMD...: run CMD in network namespace NS, in a private
# mount namespace where the package's files (ROOT, the extracted rpm) lie
# over /usr/sbin and /etc (read-only overlays), and /run, /var/lib and
# /var/log are empty tmpfs (no daemon's control socket of this machine is
# seen, the journal is written nowhere that lasts). Nothing on the host's
# filesystem changes; 125 if the mounts failed.
pkg_rpm_in() {
	local ns=$1 root=$2; shift 2
	# shellcheck disable=SC2016 # (the inner script's $1 and $@)
	timeout 60 ip netns exec "$ns" unshare -m --propagation private sh -c '
		r=$1; shift
		mount -t overlay sandwall-rpm -o "lowerdir=$r/usr/sbin:/usr/sbin" /usr/sbin &&
		mount -t overlay sandwall-rpm -o "lowerdir=$r/etc:/etc" /etc &&
		mount -t tmpfs sandwall-rpm /run && mount -t tmpfs sandwall-rpm /var/lib &&
		mount -t tmpfs sandwall-rpm /var/log || { echo "pkg_rpm_in: mounts failed" >&2; exit 125; }
		exec "$@"' sh "$root" "$@"
}

pkg_rpm_preun_cleanup() {
	[ -n "$PKG_RPM_NS" ] && ip netns del "$PKG_RPM_NS" 2>/dev/null
	[ -n "$PKG_RPM_ROOT" ] && rm -rf "$PKG_RPM_ROOT"
	PKG_RPM_NS=""; PKG_RPM_ROOT=""
	return 0
}

# The rpm's %preun (issue 27): on erase ($1 = 0) the table goes, on upgrade
# ($1 = 1) it stays, and without a table it still exits 0. The scriptlet runs
# as rpm would run it (/bin/sh, $1), with the package's own /usr/sbin/sandwall
# and /etc/sandwall/sandwall.conf, inside a namespace of ours.
PKG_RPM_NS="" PKG_RPM_ROOT=""
pkg_rpm_preun() {
	local rpm=$1 d preun log rc
	pkg_have unshare rpm2cpio || return 0
	d=$(pkg_tmp); preun="$d/rpm-preun.sh"; log="$d/rpm-preun.log"
	rpm -qp --queryformat '%{PREUN}' "$rpm" >"$preun" 2>"$log" && [ -s "$preun" ] ||
		{ bad "rpm -qp --queryformat %{PREUN}: no %preun scriptlet"; show "$log"; return 1; }
	ok "%preun extracted ($(wc -l <"$preun") lines, $(rpm -qp --queryformat '%{PREUNPROG}' "$rpm"))"
	trap 'pkg_rpm_preun_cleanup; swt_cleanup' EXIT
	PKG_RPM_ROOT=$(mktemp -d "$d/rpm-root.XXXXXX")
	# rpm2archive (part of rpm) where cpio is not installed
	if command -v cpio >/dev/null 2>&1; then
		(cd "$PKG_RPM_ROOT" && rpm2cpio "$rpm" | cpio -idm --quiet) 2>"$log"
	else
		rpm2archive -n - <"$rpm" 2>"$log" | tar -xf - -C "$PKG_RPM_ROOT" 2>>"$log"
	fi
	if [ -x "$PKG_RPM_ROOT/usr/sbin/sandwall" ] && [ -f "$PKG_RPM_ROOT/etc/sandwall/sandwall.conf" ]; then
		ok "extracted the rpm (usr/sbin/sandwall, etc/sandwall/sandwall.conf)"
	else bad "could not extract the rpm"; show "$log"; pkg_rpm_preun_cleanup; trap swt_cleanup EXIT; return 1; fi
	PKG_RPM_NS="${SWT_PREFIX}rpm"
	_mk_ns "$PKG_RPM_NS" || bad "could not create namespace $PKG_RPM_NS"
	pkg_rpm_in "$PKG_RPM_NS" "$PKG_RPM_ROOT" sh -c '/usr/sbin/sandwall --version && /usr/sbin/sandwall apply' >"$log" 2>&1
	if table_exists sandwall "$PKG_RPM_NS"; then
		ok "the rpm's /usr/sbin/sandwall applied its /etc/sandwall/sandwall.conf in $(_nsname "$PKG_RPM_NS") ($(head -n1 "$log"))"
	else bad "apply with the rpm's binary and config in $(_nsname "$PKG_RPM_NS") failed"; show "$log"; fi

	pkg_rpm_in "$PKG_RPM_NS" "$PKG_RPM_ROOT" sh -s 1 <"$preun" >"$log" 2>&1; rc=$?
	[ $rc -eq 0 ] && ok "%preun 1 (upgrade) exits 0" || { bad "%preun 1 (upgrade) exited $rc"; show "$log"; }
	table_exists sandwall "$PKG_RPM_NS" && ok "after %preun 1 (upgrade) the table is still there" ||
		{ bad "%preun 1 (upgrade) removed the table"; show "$log"; }

	pkg_rpm_in "$PKG_RPM_NS" "$PKG_RPM_ROOT" sh -s 0 <"$preun" >"$log" 2>&1; rc=$?
	[ $rc -eq 0 ] && ok "%preun 0 (erase) exits 0" || { bad "%preun 0 (erase) exited $rc"; show "$log"; }
	if table_exists sandwall "$PKG_RPM_NS" || nsx "$PKG_RPM_NS" nft list table netdev sandwall >/dev/null 2>&1; then
		bad "a sandwall table is still there after %preun 0 (erase)"; show "$log"
	else ok "after %preun 0 (erase) the table is gone"; fi
	grep -q 'removed its tables' "$log" && ok "%preun 0 says the boundary is gone with the package" ||
		{ bad "%preun 0 did not say it removed the table"; show "$log"; }

	pkg_rpm_in "$PKG_RPM_NS" "$PKG_RPM_ROOT" sh -s 0 <"$preun" >"$log" 2>&1; rc=$?
	[ $rc -eq 0 ] && ok "%preun 0 without a table exits 0" || { bad "%preun 0 without a table exited $rc"; show "$log"; }

	pkg_rpm_preun_cleanup
	trap swt_cleanup EXIT
	return 0
}
