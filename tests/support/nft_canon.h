/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NFT_CANON_H
#define SANDWALL_NFT_CANON_H
/* nft_canon: a batch message as the kernel would dump it back (the fake
 * kernels of test_encode.c and fake_nft.c both need it). Defined in
 * nft_canon.c, compiled once into build/libswtest.a. */
#include <stdint.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>

/* ---- the kernel's canonical form ----------------------------------------------- */

/* libnftnl 1.2.4 builds two things its own parser refuses, while the
 * kernel accepts them and dumps them in canonical form: set elements
 * nested with types 1, 2, 3... (kernel: NFTA_LIST_ELEM), likewise rule
 * expressions, and the objref name without its NUL. The fake keeps and
 * dumps what the kernel would. */
void fn_copy_attr(struct nlmsghdr *out, const struct nlattr *a);

void fn_fix_elems(struct nlmsghdr *nlh);

/* The canonical copy of in, into out (at least 2 * len + 256 bytes). */
void fn_canon(const struct nlmsghdr *in, struct nlmsghdr *out);

#endif
