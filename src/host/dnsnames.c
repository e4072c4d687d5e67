// SPDX-License-Identifier: GPL-2.0-or-later
/* dnsnames: the network log's names table and the packet parser (see
 * include/host/dnsnames.h), DNS over UDP and over TCP. Every length in a packet is the sandbox's to
 * write: each header is checked against the bytes given and against the
 * lengths of the headers around it before anything past it is read. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "host/dnsnames.h"

void sw_dnsnames_init(struct sw_dnsnames *t, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->seed = seed;
}

static size_t alen(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

/* FNV-1a over the seed and the key */
static size_t set_of(const struct sw_dnsnames *t, int family, const uint8_t *client,
		     const uint8_t *addr)
{
	uint64_t h = 1469598103934665603ull;
	size_t n = alen(family);

	for (int i = 0; i < 8; i++)
		h = (h ^ (uint8_t)(t->seed >> (8 * i))) * 1099511628211ull;
	h = (h ^ (uint8_t)family) * 1099511628211ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ client[i]) * 1099511628211ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ addr[i]) * 1099511628211ull;
	h ^= h >> 29;
	return (size_t)h & (SW_DNSNAMES_SETS - 1);
}

static bool is(const struct sw_dnsname *e, int family, const uint8_t *client, const uint8_t *addr)
{
	size_t n = alen(family);

	return e->family == family && !memcmp(e->client, client, n) && !memcmp(e->addr, addr, n);
}

int sw_dnsnames_put(struct sw_dnsnames *t, int family, const uint8_t *client,
		    const uint8_t *addr, const char *name, uint32_t ttl, int64_t now)
{
	size_t n = alen(family), l = name ? strnlen(name, SW_DNS_NAMELEN) : 0;
	struct sw_dnsname *set, *e = NULL;

	if (!n || !l || l >= SW_DNS_NAMELEN)
		return -EINVAL;
	set = t->e[set_of(t, family, client, addr)];
	for (int w = 0; w < SW_DNSNAMES_WAYS && !e; w++)
		if (is(&set[w], family, client, addr))
			e = &set[w];
	for (int w = 0; w < SW_DNSNAMES_WAYS && !e; w++)
		if (!set[w].family || set[w].expires <= now)
			e = &set[w];
	if (!e) {
		e = &set[0];
		for (int w = 1; w < SW_DNSNAMES_WAYS; w++)
			if (set[w].stamp < e->stamp)
				e = &set[w];
		t->evicted++;
	}
	if (ttl < SW_DNSNAMES_TTL_MIN)
		ttl = SW_DNSNAMES_TTL_MIN;
	if (ttl > SW_DNSNAMES_TTL_MAX)
		ttl = SW_DNSNAMES_TTL_MAX;
	memset(e, 0, sizeof(*e));
	e->family = (uint8_t)family;
	memcpy(e->client, client, n);
	memcpy(e->addr, addr, n);
	memcpy(e->name, name, l + 1);
	e->expires = now + (int64_t)ttl;
	e->stamp = ++t->stamp;
	t->stored++;
	return 0;
}

int sw_dnsnames_get(const struct sw_dnsnames *t, int family, const uint8_t *client,
		    const uint8_t *addr, int64_t now, char *out)
{
	const struct sw_dnsname *set;

	out[0] = '\0';
	if (!alen(family))
		return -ENOENT;
	set = t->e[set_of(t, family, client, addr)];
	for (int w = 0; w < SW_DNSNAMES_WAYS; w++)
		if (is(&set[w], family, client, addr) && set[w].expires > now) {
			memcpy(out, set[w].name, SW_DNS_NAMELEN);
			out[SW_DNS_NAMELEN - 1] = '\0';
			return 0;
		}
	return -ENOENT;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The UDP datagram at pkt + off, the IP payload ending at end (<= len). */
static int udp(const uint8_t *pkt, size_t off, size_t end, struct sw_dns_packet *out)
{
	size_t ulen;

	if (off + 8 > end)
		return -EBADMSG;
	if (get16(pkt + off) != 53)
		return -EPROTONOSUPPORT;
	ulen = get16(pkt + off + 4);
	if (ulen < 8 || off + ulen > end)
		return -EBADMSG;
	out->msg = pkt + off + 8;
	out->len = ulen - 8;
	return 0;
}

int sw_dns_packet_next(struct sw_dns_packet *p)
{
	const uint8_t *at = p->msg + p->len;
	size_t mlen;

	if (!p->rest)
		return -ENODATA;
	if (p->rest < 2)
		return -EBADMSG;        /* the length prefix split over segments */
	mlen = get16(at);
	if (mlen > p->rest - 2)
		return -EBADMSG;        /* the message split over segments */
	p->msg = at + 2;
	p->len = mlen;
	p->rest -= 2 + mlen;
	return 0;
}

/* The TCP segment at pkt + off, the IP payload ending at end (<= len):
 * its data (past the data offset) holds whole DNS messages, each behind
 * its 2-byte length (RFC 1035 4.2.2), or nothing (SYN, ACK, FIN). */
static int tcp(const uint8_t *pkt, size_t off, size_t end, struct sw_dns_packet *out)
{
	size_t doff;

	if (off + 20 > end)
		return -EBADMSG;
	if (get16(pkt + off) != 53)
		return -EPROTONOSUPPORT;
	doff = (size_t)(pkt[off + 12] >> 4) * 4;
	if (doff < 20 || doff > end - off)
		return -EBADMSG;
	out->msg = pkt + off + doff;
	out->len = 0;
	out->rest = end - off - doff;
	return sw_dns_packet_next(out);
}

/* The transport header at pkt + off: UDP or TCP, else not a DNS reply */
static int transport(uint8_t proto, const uint8_t *pkt, size_t off, size_t end,
		     struct sw_dns_packet *out)
{
	if (proto == IPPROTO_UDP)
		return udp(pkt, off, end, out);
	if (proto == IPPROTO_TCP)
		return tcp(pkt, off, end, out);
	return -EPROTONOSUPPORT;
}

int sw_dns_packet_parse(const uint8_t *pkt, size_t len, struct sw_dns_packet *out)
{
	memset(out, 0, sizeof(*out));
	if (!pkt || len < 1)
		return -EBADMSG;
	if (pkt[0] >> 4 == 4) {
		size_t ihl = (size_t)(pkt[0] & 0xf) * 4, tot;

		if (ihl < 20 || len < ihl)
			return -EBADMSG;
		tot = get16(pkt + 2);
		if (tot < ihl || tot > len)
			return -EBADMSG;        /* truncated (or a length that lies) */
		if (get16(pkt + 6) & 0x3fff)
			return -EBADMSG;        /* MF or a fragment offset: a fragment */
		out->family = AF_INET;
		memcpy(out->server, pkt + 12, 4);
		memcpy(out->client, pkt + 16, 4);
		return transport(pkt[9], pkt, ihl, tot, out);
	}
	if (pkt[0] >> 4 == 6) {
		size_t tot;

		if (len < 40)
			return -EBADMSG;
		tot = 40 + (size_t)get16(pkt + 4);
		if (tot > len)
			return -EBADMSG;
		if (pkt[6] == IPPROTO_FRAGMENT)
			return -EBADMSG;
		out->family = AF_INET6;
		memcpy(out->server, pkt + 8, 16);
		memcpy(out->client, pkt + 24, 16);
		return transport(pkt[6], pkt, 40, tot, out);
	}
	return -EBADMSG;
}

/* One message's answers into the table: how many were recorded, or -errno */
static int learn_msg(struct sw_dnsnames *t, const struct sw_dns_packet *p, int64_t now)
{
	struct sw_dns_reply r;
	int rc, n = 0;

	if ((rc = sw_dns_parse_reply(p->msg, p->len, &r)))
		return rc;
	if (r.ans.qtype != (p->family == AF_INET ? SW_DNS_A : SW_DNS_AAAA))
		return 0;       /* the other family's addresses: no flow of this client's family */
	for (size_t i = 0; i < r.ans.n && i < SW_DNS_MAXADDRS; i++)
		if (!sw_dnsnames_put(t, p->family, p->client, r.ans.a[i].addr, r.qname,
				     r.ans.a[i].ttl, now))
			n++;
	return n;
}

int sw_dnsnames_learn(struct sw_dnsnames *t, const uint8_t *pkt, size_t len, int64_t now)
{
	struct sw_dns_packet p;
	int rc, n = 0;

	/* a segment without data (SYN, ACK, FIN): nothing to learn, no refusal */
	if ((rc = sw_dns_packet_parse(pkt, len, &p)))
		return rc == -ENODATA ? 0 : rc;
	/* each message of the packet in turn (one over UDP; over TCP as many
	 * whole ones as the segment holds), each at least its 2-byte prefix
	 * long: bounded by the packet */
	do {
		if ((rc = learn_msg(t, &p, now)) < 0)
			return rc;
		n += rc;
	} while (!(rc = sw_dns_packet_next(&p)));
	return rc == -ENODATA ? n : rc;
}
