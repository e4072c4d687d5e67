// SPDX-License-Identifier: GPL-2.0-or-later
/* dns: build one question, parse its answer strictly (see include/lib/dns.h).
 *
 * Everything in a reply comes from the network, and a resolver on the
 * path may be hostile: no length is trusted before it is checked against
 * the end of the message, a compression pointer must point before the
 * label that holds it (each jump moves strictly backwards, so no loop can
 * form, and the jumps are counted anyway), and a decoded name may not
 * exceed 253 characters. */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "lib/dns.h"

#define HDR            12
#define FLAG_QR        0x8000
#define FLAG_TC        0x0200
#define FLAG_RD        0x0100
#define OPCODE(f)      (((f) >> 11) & 0xf)
#define RCODE(f)       ((f) & 0xf)
#define CLASS_IN       1
#define MAX_JUMPS      32

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool sw_dns_name_valid(const char *name, const char **why)
{
	size_t n = strlen(name), label = 0, labels = 0;
	bool digits = true;     /* the current label is all digits */
	const char *w = NULL;

	if (n == 0 || n > SW_DNS_NAMELEN - 1)
		w = "a hostname has 1..253 characters";
	for (size_t i = 0; !w && i <= n; i++) {
		char ch = name[i];

		if (ch == '.' || ch == '\0') {
			if (!label)
				w = ch == '\0' && name[n - 1] == '.' ? "no trailing dot" : "an empty label";
			else if (name[i - 1] == '-')
				w = "a label ends with '-'";
			else if (ch == '\0' && digits)
				w = "the last label is all digits (an address is written as CIDR)";
			labels++;
			label = 0;
			digits = true;
			continue;
		}
		if (!isalnum((unsigned char)ch) && ch != '-')
			w = "only a-z, A-Z, 0-9, '-' and '.' (RFC 1123)";
		else if (ch == '-' && !label)
			w = "a label starts with '-'";
		else if (++label > 63)
			w = "a label has 1..63 characters";
		digits &= isdigit((unsigned char)ch) != 0;
	}
	if (!w && labels < 2)
		w = "give a fully qualified name (two labels at least)";
	if (why)
		*why = w;
	return !w;
}

int sw_dns_query(uint8_t *buf, size_t len, uint16_t id, const char *name, uint16_t qtype)
{
	size_t n = strlen(name), off = HDR;
	const char *s = name;

	if ((qtype != SW_DNS_A && qtype != SW_DNS_AAAA) || !sw_dns_name_valid(name, NULL))
		return -EINVAL;
	if (len < HDR + n + 2 + 4)
		return -ENOSPC;
	memset(buf, 0, HDR);
	buf[0] = (uint8_t)(id >> 8);
	buf[1] = (uint8_t)id;
	buf[2] = FLAG_RD >> 8;          /* a standard query, recursion desired */
	buf[5] = 1;                     /* QDCOUNT */
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);

		buf[off++] = (uint8_t)l;
		for (size_t i = 0; i < l; i++)
			buf[off++] = (uint8_t)tolower((unsigned char)s[i]);
		s += l + (dot ? 1 : 0);
	}
	buf[off++] = 0;
	buf[off++] = (uint8_t)(qtype >> 8);
	buf[off++] = (uint8_t)qtype;
	buf[off++] = 0;
	buf[off++] = CLASS_IN;
	return (int)off;
}

int sw_dns_name_read(const uint8_t *msg, size_t len, size_t *off, char out[SW_DNS_NAMELEN])
{
	size_t p = *off, o = 0, end = 0;
	bool jumped = false;
	unsigned jumps = 0;

	out[0] = '\0';
	for (;;) {
		uint8_t l;

		if (p >= len)
			return -EBADMSG;
		l = msg[p];
		if ((l & 0xc0) == 0xc0) {
			size_t to;

			if (p + 1 >= len)
				return -EBADMSG;
			to = (size_t)(l & 0x3f) << 8 | msg[p + 1];
			/* strictly backwards, into the body: no loop can form */
			if (to < HDR || to >= p || ++jumps > MAX_JUMPS)
				return -EBADMSG;
			if (!jumped)
				end = p + 2;
			jumped = true;
			p = to;
			continue;
		}
		if (l & 0xc0)                   /* 0x40, 0x80: extended label types */
			return -EBADMSG;
		if (l == 0) {
			if (!jumped)
				end = p + 1;
			break;
		}
		if (p + 1 + l > len)
			return -EBADMSG;
		/* "label." must fit in 253 characters plus the NUL */
		if (o + l + (o ? 1 : 0) > SW_DNS_NAMELEN - 1)
			return -EBADMSG;
		if (o)
			out[o++] = '.';
		for (size_t i = 0; i < l; i++) {
			uint8_t ch = msg[p + 1 + i];

			/* bytes a hostname never holds stand for themselves as '?':
			 * they can never equal a name we asked for */
			out[o++] = ch >= 0x21 && ch < 0x7f && ch != '.' ? (char)tolower(ch) : '?';
		}
		out[o] = '\0';
		p += 1 + l;
	}
	*off = end;
	return 0;
}

/* One answer record, as located in the message. */
struct rr {
	char owner[SW_DNS_NAMELEN];
	uint16_t type;
	uint32_t ttl;
	size_t rdata, rdlen;
};

/* RFC 2181 8: a TTL with the top bit set is read as 0 */
static uint32_t ttl_of(const uint8_t *p)
{
	uint32_t t = get32(p);

	return t & 0x80000000u ? 0 : t;
}

int sw_dns_parse(const uint8_t *msg, size_t len, uint16_t id, const char *name,
		 uint16_t qtype, struct sw_dns_answer *ans)
{
	struct rr rrs[SW_DNS_MAXRR];
	char qname[SW_DNS_NAMELEN], target[SW_DNS_NAMELEN];
	size_t off = HDR, nrr = 0, alen = qtype == SW_DNS_A ? 4 : 16;
	uint16_t flags, qd, an;
	uint32_t chain_ttl = UINT32_MAX;
	int rc;

	memset(ans, 0, sizeof(*ans));
	ans->qtype = qtype;
	if ((qtype != SW_DNS_A && qtype != SW_DNS_AAAA) || len < HDR || len > SW_DNS_MSGMAX)
		return -EBADMSG;
	flags = get16(msg + 2);
	qd = get16(msg + 4);
	an = get16(msg + 6);
	if (get16(msg) != id || !(flags & FLAG_QR) || OPCODE(flags) != 0)
		return -EBADMSG;
	if (flags & FLAG_TC)
		return -EMSGSIZE;
	ans->rcode = RCODE(flags);
	if (ans->rcode != SW_DNS_NOERROR && ans->rcode != SW_DNS_NXDOMAIN)
		return -EIO;
	/* the question: exactly ours */
	if (qd != 1)
		return -EBADMSG;
	if ((rc = sw_dns_name_read(msg, len, &off, qname)))
		return rc;
	if (off + 4 > len || strcasecmp(qname, name) || get16(msg + off) != qtype ||
	    get16(msg + off + 2) != CLASS_IN)
		return -EBADMSG;
	off += 4;
	if (ans->rcode == SW_DNS_NXDOMAIN)
		return 0;
	/* the answer section; authority and additional are not read */
	for (uint16_t i = 0; i < an; i++) {
		struct rr *r = &rrs[nrr];

		if (nrr == SW_DNS_MAXRR)
			return -EBADMSG;        /* more records than any real answer */
		if ((rc = sw_dns_name_read(msg, len, &off, r->owner)))
			return rc;
		if (off + 10 > len)
			return -EBADMSG;
		r->type = get16(msg + off);
		r->ttl = ttl_of(msg + off + 4);
		r->rdlen = get16(msg + off + 8);
		r->rdata = off + 10;
		if (r->rdata + r->rdlen > len)
			return -EBADMSG;
		if (get16(msg + off + 2) != CLASS_IN)
			return -EBADMSG;
		off = r->rdata + r->rdlen;
		nrr++;
	}
	/* follow the CNAME chain from the question's name */
	memcpy(target, qname, sizeof(target));
	for (;;) {
		size_t j;

		for (j = 0; j < nrr && !(rrs[j].type == SW_DNS_CNAME && !strcmp(rrs[j].owner, target)); j++)
			;
		if (j == nrr)
			break;
		if (++ans->chain > SW_DNS_MAXCHAIN)
			return -EBADMSG;
		{
			size_t p = rrs[j].rdata;

			if ((rc = sw_dns_name_read(msg, rrs[j].rdata + rrs[j].rdlen, &p, target)))
				return rc;
			if (p != rrs[j].rdata + rrs[j].rdlen)
				return -EBADMSG;        /* the name must fill its record */
		}
		if (rrs[j].ttl < chain_ttl)
			chain_ttl = rrs[j].ttl;
	}
	for (size_t j = 0; j < nrr; j++) {
		struct sw_dns_addr *a;
		bool dup = false;

		if (rrs[j].type != qtype || strcmp(rrs[j].owner, target))
			continue;
		if (rrs[j].rdlen != alen)
			return -EBADMSG;
		for (size_t k = 0; k < ans->n && !dup; k++)
			dup = !memcmp(ans->a[k].addr, msg + rrs[j].rdata, alen);
		if (dup || ans->n == SW_DNS_MAXADDRS)
			continue;
		a = &ans->a[ans->n++];
		memset(a->addr, 0, sizeof(a->addr));
		memcpy(a->addr, msg + rrs[j].rdata, alen);
		a->ttl = rrs[j].ttl < chain_ttl ? rrs[j].ttl : chain_ttl;
	}
	return 0;
}

int sw_dns_parse_reply(const uint8_t *msg, size_t len, struct sw_dns_reply *r)
{
	size_t off = HDR;
	uint16_t qtype;
	int rc;

	memset(r, 0, sizeof(*r));
	if (len < HDR || len > SW_DNS_MSGMAX || get16(msg + 4) != 1)
		return -EBADMSG;
	if ((rc = sw_dns_name_read(msg, len, &off, r->qname)))
		return rc;
	if (!r->qname[0] || off + 4 > len)
		return -EBADMSG;
	qtype = get16(msg + off);
	if (qtype != SW_DNS_A && qtype != SW_DNS_AAAA)
		return -EBADMSG;
	r->id = get16(msg);
	/* the question read, the rest is sw_dns_parse's: the same checks
	 * against the question the reply itself names */
	return sw_dns_parse(msg, len, r->id, r->qname, qtype, &r->ans);
}
