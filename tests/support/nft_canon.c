/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nft_canon: what nft_canon.h declares, compiled once into build/libswtest.a. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "nft_canon.h"

/* ---- the kernel's canonical form ----------------------------------------------- */

/* libnftnl 1.2.4 builds two things its own parser refuses, while the
 * kernel accepts them and dumps them in canonical form: set elements
 * nested with types 1, 2, 3... (kernel: NFTA_LIST_ELEM), likewise rule
 * expressions, and the objref name without its NUL. The fake keeps and
 * dumps what the kernel would. */
void fn_copy_attr(struct nlmsghdr *out, const struct nlattr *a)
{
	mnl_attr_put(out, a->nla_type, mnl_attr_get_payload_len(a), mnl_attr_get_payload(a));
}

void fn_fix_elems(struct nlmsghdr *nlh)
{
	struct nlattr *a, *el;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		if (mnl_attr_get_type(a) == NFTA_SET_ELEM_LIST_ELEMENTS)
			mnl_attr_for_each_nested(el, a)
				el->nla_type = NLA_F_NESTED | NFTA_LIST_ELEM;
	}
}

/* The canonical copy of in, into out (at least 2 * len + 256 bytes). */
void fn_canon(const struct nlmsghdr *in, struct nlmsghdr *out)
{
	uint16_t type = in->nlmsg_type & 0xff;
	const struct nlattr *a, *el, *x, *d;

	if (type == NFT_MSG_NEWSETELEM || type == NFT_MSG_DELSETELEM) {
		memcpy(out, in, in->nlmsg_len);
		fn_fix_elems(out);
		return;
	}
	if (type != NFT_MSG_NEWRULE) {
		memcpy(out, in, in->nlmsg_len);
		return;
	}
	*out = *in;
	out->nlmsg_len = MNL_NLMSG_HDRLEN;
	memcpy(mnl_nlmsg_put_extra_header(out, sizeof(struct nfgenmsg)),
	       mnl_nlmsg_get_payload(in), sizeof(struct nfgenmsg));
	mnl_attr_for_each(a, in, sizeof(struct nfgenmsg)) {
		struct nlattr *n1;

		if (mnl_attr_get_type(a) != NFTA_RULE_EXPRESSIONS) {
			fn_copy_attr(out, a);
			continue;
		}
		n1 = mnl_attr_nest_start(out, NFTA_RULE_EXPRESSIONS);
		mnl_attr_for_each_nested(el, a) {
			struct nlattr *n2 = mnl_attr_nest_start(out, NFTA_LIST_ELEM);
			const char *name = "";

			mnl_attr_for_each_nested(x, el) {
				struct nlattr *n3;

				if (mnl_attr_get_type(x) == NFTA_EXPR_NAME)
					name = mnl_attr_get_str(x);
				if (mnl_attr_get_type(x) != NFTA_EXPR_DATA) {
					fn_copy_attr(out, x);
					continue;
				}
				n3 = mnl_attr_nest_start(out, NFTA_EXPR_DATA);
				mnl_attr_for_each_nested(d, x) {
					if (!strcmp(name, "objref") &&
					    mnl_attr_get_type(d) == NFTA_OBJREF_IMM_NAME) {
						char v[256] = "";

						memcpy(v, mnl_attr_get_payload(d),
						       mnl_attr_get_payload_len(d) < 255 ?
						       mnl_attr_get_payload_len(d) : 255);
						mnl_attr_put_strz(out, NFTA_OBJREF_IMM_NAME, v);
					} else {
						fn_copy_attr(out, d);
					}
				}
				mnl_attr_nest_end(out, n3);
			}
			mnl_attr_nest_end(out, n2);
		}
		mnl_attr_nest_end(out, n1);
	}
}
