/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_RTNLPARSE_H
#define SANDWALL_RTNLPARSE_H
/* rtnlparse: the parsers of one rtnetlink message into the host model
 * (core/host.h), shared by the dump (hoststate.c) and the event tracking
 * (hosttrack.c) so that both read a message the same way. */
#include <stdbool.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "core/host.h"

/* mnl_attr_parse's callback: tb[type] = the attribute, for type <= max. */
struct sw_rtnl_attrs {
	const struct nlattr **tb;
	unsigned int max;
};
int sw_rtnl_attr_cb(const struct nlattr *a, void *data);
/* Copy an address attribute of the family's exact size into a prefix of
 * length len: false when a is missing or of another size. */
bool sw_rtnl_prefix(const struct nlattr *a, int family, uint8_t len, struct sw_prefix *p);
/* Same family, length and address bytes. */
bool sw_rtnl_same_addr(const struct sw_prefix *a, const struct sw_prefix *b);
/* One RTM_NEWLINK (dump reply or event) into *l: 0, or -EPROTO. */
int sw_rtnl_link(struct sw_link *l, const struct nlmsghdr *nlh);
/* One RTM_NEWADDR/DELADDR into *a: 1 when it is a usable v4/v6 address,
 * 0 when it is to be ignored, -EPROTO when malformed. */
int sw_rtnl_addr(struct sw_addr *a, const struct nlmsghdr *nlh);
/* A main-table route the model keeps (through oif, no gateway): *r. */
bool sw_rtnl_route(const struct nlattr *const *tb, const struct rtmsg *rtm, int oif,
		   struct sw_route *r);

#endif
