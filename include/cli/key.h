/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CLI_KEY_H
#define SANDWALL_CLI_KEY_H
/* key: the host's receipt key ([daemon] receipt_key, lib/sign.h) on the
 * command line: `sandwall key` prints it (made on first use), signing a
 * file the CLI wrote, and `sandwall receipt --verify FILE`. */
#include "cli/cli.h"
#include "core/config.h"

/* sandwall key [--allowed-signers]: the public key and its fingerprint
 * (as ssh-keygen -l), or the allowed-signers line for ssh-keygen -Y
 * verify. 0, or EXIT_ERR (said on stderr). */
int sw_cli_key(struct sw_cli_run *x);

/* Sign an already-written file with the host's receipt key (made on first
 * use): FILE.sig beside it, one line on stderr naming the key. For every
 * command that writes a document to sign (receipt --output --sign, run).
 * 0, or EXIT_ERR with the reason on stderr. */
int sw_cli_sign(const struct sw_config *cfg, const char *file);

/* sandwall receipt --verify FILE [--allowed-signers F]: FILE against
 * FILE.sig, by a signer of F, or by this host's key without F. Exit code:
 * 0 good, 1 bad (changed, another key or namespace, a signer not
 * allowed), 2 error (a file missing or unreadable). */
int sw_cli_receipt_verify(struct sw_cli_run *x);

#endif
