/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_NFTVAL_H
#define SANDWALL_NFTVAL_H
/* nftval: check an nf_tables message before libnftnl parses it.
 *
 * libnftnl 1.2.4 trusts what it parses: an attribute of an unexpected size
 * makes it exit(1) ("nf_tables kernel ABI is broken"), an expression
 * without a name is a NULL dereference, a set-element attribute type above
 * NFTA_SET_ELEM_MAX is written past a stack array, strings are strdup()ed
 * without a NUL inside the attribute, a verdict without a code reads an
 * uninitialised pointer, and a concatenation of more than 16 fields
 * overflows an array. A message is handed to libnftnl only after
 * sw_nft_validate() walked every attribute it will read -- sizes, NUL
 * terminated strings, nests, lists and each expression's own attributes
 * (the tables mirror libnftnl 1.2.4's parsers) -- within bounded depth. */
#include <stdint.h>

struct nlmsghdr;

enum sw_nft_obj {
	SW_NFT_TABLE,
	SW_NFT_CHAIN,
	SW_NFT_SET,
	SW_NFT_ELEMS,
	SW_NFT_OBJ,
	SW_NFT_RULE,
};

/* 0 when nlh is an nf_tables message of the object kind (NEW or DEL) that
 * libnftnl can parse without harm, otherwise -EBADMSG. */
int sw_nft_validate(const struct nlmsghdr *nlh, enum sw_nft_obj kind);

#endif
