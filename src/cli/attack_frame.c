// SPDX-License-Identifier: GPL-2.0-or-later
/* attack_frame: the forged frames of `sandwall verify`'s attacks
 * (include/cli/attack.h): Ethernet + IPv4/IPv6 + TCP SYN, UDP or an ICMPv6
 * neighbour solicitation, checksums filled in. Pure: unit-tested. */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include "cli/attack.h"

#define ETH_HLEN_      14
#define IP4_HLEN       20
#define IP6_HLEN       40
#define TCP_SYN_LEN    24       /* header + MSS option */
#define UDP_HLEN       8
#define NS_HLEN        24       /* type, code, csum, reserved, target */

/* ------------------------------------------------------------ frames */

static uint32_t sum16(const uint8_t *p, size_t len, uint32_t sum)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

uint16_t sw_inet_csum(const void *data, size_t len, uint32_t sum)
{
	sum = sum16(data, len, sum);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* the pseudo header's partial sum (RFC 793 / RFC 8200 8.1) */
static uint32_t pseudo(const struct sw_frame *f, uint8_t proto, size_t l4len)
{
	size_t alen = sw_family_addrlen(f->src.family);
	uint32_t sum = sum16(f->src.addr, alen, 0);

	sum = sum16(f->dst.addr, alen, sum);
	sum += proto;
	sum += (uint32_t)(l4len >> 16) + (uint32_t)(l4len & 0xffff);
	return sum;
}

int sw_frame_build(const struct sw_frame *f, uint8_t *buf, size_t size, size_t *len)
{
	bool v6 = f->src.family == AF_INET6;
	size_t iphl = v6 ? IP6_HLEN : IP4_HLEN, l4len, optlen = 0;
	uint8_t proto, *ip = buf + ETH_HLEN_, *l4;
	uint16_t c;

	if ((f->src.family != AF_INET && !v6) || f->dst.family != f->src.family ||
	    f->plen > 1400 || (f->plen && !f->payload))
		return -EINVAL;
	switch (f->kind) {
	case SW_FRAME_TCP_SYN:
		proto = IPPROTO_TCP;
		l4len = TCP_SYN_LEN;
		break;
	case SW_FRAME_UDP:
		proto = IPPROTO_UDP;
		l4len = UDP_HLEN + f->plen;
		break;
	case SW_FRAME_NS:
		if (!v6 || f->nd_target.family != AF_INET6)
			return -EINVAL;
		proto = IPPROTO_ICMPV6;
		/* option: type, length in units of 8 bytes, data padded */
		optlen = (f->plen + 2 + 7) / 8 * 8;
		l4len = NS_HLEN + optlen;
		break;
	default:
		return -EINVAL;
	}
	if (size < ETH_HLEN_ + iphl + l4len)
		return -EMSGSIZE;
	memset(buf, 0, ETH_HLEN_ + iphl + l4len);
	/* Ethernet */
	memcpy(buf, f->dmac, 6);
	memcpy(buf + 6, f->smac, 6);
	put16(buf + 12, v6 ? 0x86dd : 0x0800);
	/* IP */
	if (v6) {
		put32(ip, 6u << 28);
		put16(ip + 4, (uint16_t)l4len);
		ip[6] = proto;
		ip[7] = f->ttl;
		memcpy(ip + 8, f->src.addr, 16);
		memcpy(ip + 24, f->dst.addr, 16);
	} else {
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)(IP4_HLEN + l4len));
		put16(ip + 4, (uint16_t)f->seq);
		put16(ip + 6, 0x4000);          /* DF */
		ip[8] = f->ttl;
		ip[9] = proto;
		memcpy(ip + 12, f->src.addr, 4);
		memcpy(ip + 16, f->dst.addr, 4);
		put16(ip + 10, sw_inet_csum(ip, IP4_HLEN, 0));
	}
	l4 = ip + iphl;
	switch (f->kind) {
	case SW_FRAME_TCP_SYN:
		put16(l4, f->sport);
		put16(l4 + 2, f->dport);
		put32(l4 + 4, f->seq);
		l4[12] = (TCP_SYN_LEN / 4) << 4;
		l4[13] = 0x02;                  /* SYN */
		put16(l4 + 14, 64240);          /* window */
		l4[20] = 2;                     /* MSS 1400 */
		l4[21] = 4;
		put16(l4 + 22, 1400);
		c = sw_inet_csum(l4, l4len, pseudo(f, proto, l4len));
		put16(l4 + 16, c);
		break;
	case SW_FRAME_UDP:
		put16(l4, f->sport);
		put16(l4 + 2, f->dport);
		put16(l4 + 4, (uint16_t)l4len);
		if (f->plen)
			memcpy(l4 + UDP_HLEN, f->payload, f->plen);
		c = sw_inet_csum(l4, l4len, pseudo(f, proto, l4len));
		put16(l4 + 6, c ? c : 0xffff);  /* 0 means "no checksum" */
		break;
	default:
		l4[0] = 135;                    /* neighbour solicitation */
		memcpy(l4 + 8, f->nd_target.addr, 16);
		l4[NS_HLEN] = 253;              /* RFC 4727 experimental option */
		l4[NS_HLEN + 1] = (uint8_t)(optlen / 8);
		if (f->plen)
			memcpy(l4 + NS_HLEN + 2, f->payload, f->plen);
		c = sw_inet_csum(l4, l4len, pseudo(f, proto, l4len));
		put16(l4 + 2, c);
		break;
	}
	*len = ETH_HLEN_ + iphl + l4len;
	return 0;
}
