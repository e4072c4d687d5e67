# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Signed receipts, checked offline with a standard tool (issue 26): the
# receipt key is OpenSSH's (ssh-keygen -y reads it), `sandwall key
# --allowed-signers` is a line ssh-keygen -Y verify takes, a receipt
# written with --output FILE --sign verifies with ssh-keygen and with
# `sandwall receipt --verify`, and both refuse it after one changed byte,
# with another signer, or in another namespace.

register_test sign_01_receipt_sshkeygen "receipt --output FILE --sign: ssh-keygen -Y verify and check-novalidate accept FILE.sig, sandwall receipt --verify agrees; one changed byte: both refuse; another signer, another namespace: refused; ssh-keygen -y reads the key"
register_test sign_02_key_refusals      "sandwall key: made once (0600, dir 0700, KEY.pub), a 0644 key, a symlink and a damaged key refused (exit 2, named); receipt without the new options unchanged; the options' misuse refused"

S_DIR=""

# s_sshv ALLOWED FILE [NS]: ssh-keygen -Y verify of FILE.sig as this host's principal
s_sshv() {
	ssh-keygen -Y verify -f "$1" -I "sandwall@$(hostname)" -n "${3:-sandwall-receipt}" \
		-s "$2.sig" <"$2" >"$S_DIR/ssh.out" 2>&1
}

# s_flip FILE OFFSET: change the byte at OFFSET (xor 1)
s_flip() {
	"$PY" -c '
import sys
p, o = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read()); b[o] ^= 1
open(p, "wb").write(b)' "$1" "$2"
}

s_setup() {
	need_sandwall || return 1
	command -v ssh-keygen >/dev/null || { info "skip: no ssh-keygen (openssh-client)"; return 1; }
	S_DIR="$SWT_TMP/sign.$1"
	rm -rf "$S_DIR" && mkdir -p "$S_DIR"
}

sign_01_receipt_sshkeygen() {
	local conf key r fpr other
	s_setup 01 || return $SKIP
	key="$S_DIR/keys/receipt_ed25519"
	conf=$(mkconf sign01 "daemon.receipt_key=$key")
	expect_sw 0 "key: made on first use" -c "$conf" key || return 1
	[ "$(ssh-keygen -y -f "$key" | cut -d' ' -f1,2)" = "$(head -n1 "$SW_OUT" | cut -d' ' -f1,2)" ] &&
		ok "ssh-keygen -y -f KEY prints the key sandwall key prints" ||
		{ bad "ssh-keygen -y: $(ssh-keygen -y -f "$key" 2>&1)"; show "$SW_OUT"; }
	fpr=$(ssh-keygen -l -f "$key.pub" | cut -d' ' -f1,2)
	[ "$(sed -n 2p "$SW_OUT" | cut -d' ' -f1,2)" = "$fpr" ] && ok "fingerprint as ssh-keygen -l: $fpr" ||
		{ bad "fingerprint: ssh-keygen -l says $fpr"; show "$SW_OUT"; }
	expect_sw 0 "key --allowed-signers" -c "$conf" key --allowed-signers || return 1
	cp "$SW_OUT" "$S_DIR/allowed"
	grep -qx "sandwall@$(hostname) namespaces=\"sandwall-receipt\" ssh-ed25519 [A-Za-z0-9+/=]*" "$S_DIR/allowed" &&
		ok "allowed-signers line: $(cut -c1-60 "$S_DIR/allowed")..." || { bad "allowed-signers line"; show "$S_DIR/allowed"; }
	apply_ok "$conf" || return 1
	r="$S_DIR/receipt.txt"
	sw -c "$conf" receipt --output "$r" --sign
	if [ "$SW_RC" -le 1 ] && [ -s "$r" ] && [ -s "$r.sig" ] && [ ! -s "$SW_OUT" ]; then
		ok "receipt --output --sign -> exit $SW_RC: $(head -n1 "$r"); $(grep -c . "$r.sig")-line FILE.sig"
	else
		bad "receipt --output --sign -> exit $SW_RC"; show "$SW_ERR"; show "$SW_OUT"; return 1
	fi
	grep -q "signed $r: $r.sig (ED25519 $(echo "$fpr" | cut -d' ' -f2)" "$SW_ERR" && ok "stderr: $(head -n1 "$SW_ERR" | cut -c1-100)..." ||
		{ bad "no 'signed' line naming the fingerprint"; show "$SW_ERR"; }
	grep -qE '^verdict +(HELD|NOT HELD)$' "$r" && ok "the file holds the text receipt" || { bad "the file"; show "$r"; }
	# ssh-keygen, the standard tool, as an auditor would run it
	s_sshv "$S_DIR/allowed" "$r" && ok "ssh-keygen -Y verify: $(cat "$S_DIR/ssh.out")" ||
		{ bad "ssh-keygen -Y verify refused a fresh receipt"; show "$S_DIR/ssh.out"; }
	ssh-keygen -Y check-novalidate -n sandwall-receipt -s "$r.sig" <"$r" >"$S_DIR/ssh.out" 2>&1 &&
		ok "ssh-keygen -Y check-novalidate: $(cat "$S_DIR/ssh.out")" || { bad "check-novalidate"; show "$S_DIR/ssh.out"; }
	expect_sw 0 "receipt --verify (this host's key)" -c "$conf" receipt --verify "$r"
	grep -q "^good signature: $r by sandwall@$(hostname) (ED25519 SHA256:" "$SW_OUT" && ok "$(cat "$SW_OUT")" || show "$SW_OUT"
	expect_sw 0 "receipt --verify --allowed-signers, no config" receipt --verify "$r" --allowed-signers "$S_DIR/allowed"
	# one changed byte
	cp "$r" "$S_DIR/orig"
	s_flip "$r" 100
	if s_sshv "$S_DIR/allowed" "$r"; then bad "ssh-keygen -Y verify accepted a changed receipt"
	else ok "one byte changed: ssh-keygen -Y verify refuses ($(head -n1 "$S_DIR/ssh.out"))"; fi
	expect_sw 1 "receipt --verify after one changed byte" -c "$conf" receipt --verify "$r"
	grep -q "^BAD signature: $r does not match $r.sig" "$SW_OUT" && ok "$(cut -c1-110 "$SW_OUT")..." || show "$SW_OUT"
	expect_sw 1 "receipt --verify --allowed-signers after one changed byte" receipt --verify "$r" --allowed-signers "$S_DIR/allowed"
	cp "$S_DIR/orig" "$r"
	# another signer, another namespace
	ssh-keygen -q -t ed25519 -N '' -C other@x -f "$S_DIR/other" || return 1
	other="$S_DIR/other.allowed"
	echo "sandwall@$(hostname) namespaces=\"sandwall-receipt\" $(cut -d' ' -f1,2 "$S_DIR/other.pub")" >"$other"
	if s_sshv "$other" "$r"; then bad "ssh-keygen accepted another signer"; else ok "another signer: ssh-keygen refuses"; fi
	expect_sw 1 "receipt --verify with another signer's list" receipt --verify "$r" --allowed-signers "$other"
	grep -q "^BAD signer: ED25519 $(echo "$fpr" | cut -d' ' -f2) " "$SW_OUT" && ok "$(cut -c1-110 "$SW_OUT")..." || show "$SW_OUT"
	if s_sshv "$S_DIR/allowed" "$r" file; then bad "ssh-keygen accepted namespace file"; else ok "ssh-keygen -n file refuses"; fi
	rm -f "$r.sig"
	ssh-keygen -Y sign -f "$S_DIR/other" -n file "$r" </dev/null >/dev/null 2>&1 || bad "ssh-keygen -Y sign -n file"
	echo "sandwall@$(hostname) $(cut -d' ' -f1,2 "$S_DIR/other.pub")" >"$other"
	expect_sw 1 "receipt --verify of a signature for namespace file" receipt --verify "$r" --allowed-signers "$other"
	grep -q "another namespace" "$SW_OUT" && ok "$(cut -c1-100 "$SW_OUT")..." || show "$SW_OUT"
	# --json in the file, signed alike
	sw -c "$conf" receipt --json --output "$S_DIR/r.json" --sign
	[ "$SW_RC" -le 1 ] && "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$S_DIR/r.json" &&
		s_sshv "$S_DIR/allowed" "$S_DIR/r.json" && ok "receipt --json --output --sign: JSON, ssh-keygen accepts it" ||
		{ bad "receipt --json --output --sign -> $SW_RC"; show "$SW_ERR"; show "$S_DIR/ssh.out"; }
	return 0
}

sign_02_key_refusals() {
	local conf key mode
	s_setup 02 || return $SKIP
	key="$S_DIR/k/dir/receipt_ed25519"
	conf=$(mkconf sign02 "daemon.receipt_key=$key")
	expect_sw 0 "key" -c "$conf" key || return 1
	grep -q "made a new receipt key $key" "$SW_ERR" && ok "made: $(cat "$SW_ERR")" || { bad "no 'made' line"; show "$SW_ERR"; }
	mode="$(stat -c %a "$key") $(stat -c %a "$S_DIR/k/dir") $(stat -c %a "$key.pub") $(stat -c %u "$key")"
	[ "$mode" = "600 700 644 0" ] && ok "key 600, its directory 700, KEY.pub 644, owned by root" || bad "modes: $mode"
	[ "$(cut -d' ' -f1,2 "$key.pub") sandwall@$(hostname)" = "$(head -n1 "$SW_OUT")" ] && ok "KEY.pub: $(cut -c1-50 "$key.pub")..." ||
		{ bad "KEY.pub"; show "$key.pub"; show "$SW_OUT"; }
	cp "$SW_OUT" "$S_DIR/first"
	expect_sw 0 "key again" -c "$conf" key
	cmp -s "$SW_OUT" "$S_DIR/first" && [ ! -s "$SW_ERR" ] && ok "the same key, not made again" || { bad "another key"; show "$SW_ERR"; }
	chmod 644 "$key"
	expect_sw 2 "a 0644 key" -c "$conf" key
	grep -q "refused the receipt key $key" "$SW_ERR" && ok "$(cut -c1-100 "$SW_ERR")..." || show "$SW_ERR"
	chmod 600 "$key"
	mv "$key" "$key.real" && ln -s "$key.real" "$key"
	expect_sw 2 "a symlink for the key" -c "$conf" key
	rm -f "$key" && mv "$key.real" "$key"
	cp "$key" "$S_DIR/key.good"
	s_flip "$key" 200
	expect_sw 2 "a damaged key" -c "$conf" key
	grep -q "is no OpenSSH ed25519 private key" "$SW_ERR" && ok "$(cut -c1-90 "$SW_ERR")..." || show "$SW_ERR"
	cp "$S_DIR/key.good" "$key"
	# receipt as it was: on stdout, nothing signed
	apply_ok "$conf" || return 1
	sw -c "$conf" receipt
	[ "$SW_RC" -le 1 ] && head -n1 "$SW_OUT" | grep -q '^sandwall receipt ' && ok "receipt without the options: on stdout (exit $SW_RC)" ||
		{ bad "receipt -> $SW_RC"; show "$SW_OUT"; show "$SW_ERR"; }
	expect_sw 2 "receipt --sign without --output" -c "$conf" receipt --sign
	expect_sw 2 "--verify of a file without FILE.sig" -c "$conf" receipt --verify "$S_DIR/first"
	expect_sw 2 "--output with another command" -c "$conf" status --output "$S_DIR/x"
	expect_sw 2 "key --allowed-signers FILE" -c "$conf" key --allowed-signers "$S_DIR/first"
	expect_sw 2 "receipt key: a relative receipt_key" -c "$(mkconf sign02b daemon.receipt_key=keys/k)" key
	grep -q "receipt_key: not an absolute path" "$SW_ERR" && ok "$(cat "$SW_ERR")" || show "$SW_ERR"
	return 0
}
