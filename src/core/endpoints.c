// SPDX-License-Identifier: GPL-2.0-or-later
/* endpoints: parse the compiled-in endpoint lists. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "core/endpoints.h"

int sw_endpoints_parse(const char *text, struct sw_prefix *out, size_t max,
		       size_t *n, unsigned *bad_line)
{
	unsigned line = 0;

	*n = 0;
	while (*text) {
		const char *eol = strchr(text, '\n');
		size_t len = eol ? (size_t)(eol - text) : strlen(text);
		char buf[128];
		char *p, *e;

		line++;
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, text, len);
		buf[len] = '\0';
		text = eol ? eol + 1 : text + strlen(text);
		if ((p = strchr(buf, '#')))
			*p = '\0';
		for (p = buf; isspace((unsigned char)*p); p++)
			;
		for (e = p + strlen(p); e > p && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		if (!*p)
			continue;
		if (*n >= max)
			return -ENOSPC;
		if (sw_prefix_parse(p, &out[*n], NULL) < 0) {
			if (bad_line)
				*bad_line = line;
			return -EINVAL;
		}
		(*n)++;
	}
	return 0;
}

int sw_endpoints_metadata(struct sw_prefix *out, size_t max, size_t *n)
{
	return sw_endpoints_parse(sw_metadata_list, out, max, n, NULL);
}
