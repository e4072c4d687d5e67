// SPDX-License-Identifier: GPL-2.0-or-later
/* rtapi_curl: GET over a runtime's unix socket with libcurl, bounded in
 * time and size (see include/host/rtapi.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <curl/curl.h>

#include "host/rtapi.h"

struct body {
	char *buf;
	size_t len;
	bool too_big;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *data)
{
	struct body *b = data;
	size_t n = size * nmemb;
	char *nb;

	if (!size || nmemb > SW_RTAPI_MAX_BODY / size || b->len + n > SW_RTAPI_MAX_BODY) {
		b->too_big = true;
		return 0;       /* ends the transfer */
	}
	if (!(nb = realloc(b->buf, b->len + n + 1)))
		return 0;
	memcpy(nb + b->len, p, n);
	b->buf = nb;
	b->len += n;
	b->buf[b->len] = '\0';
	return n;
}

static int curl_errno(CURLcode c, const struct body *b)
{
	switch (c) {
	case CURLE_OK:
		return 0;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_WRITE_ERROR:
		return b->too_big ? -EFBIG : -ENOMEM;
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

int sw_rtapi_get(const char *sock, const char *path, long timeout_ms, char **body, size_t *len)
{
	static bool inited;
	struct body b = { 0 };
	char url[512];
	struct stat st;
	long status = 0;
	CURL *c;
	int rc;

	*body = NULL;
	*len = 0;
	/* no socket: no connect attempt at all */
	if (!sock || !sock[0] || stat(sock, &st) || !S_ISSOCK(st.st_mode))
		return -ENOENT;
	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_NOTHING))
			return -ENOMEM;
		inited = true;
	}
	if (!(c = curl_easy_init()))
		return -ENOMEM;
	snprintf(url, sizeof(url), "http://localhost%s", path);
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, sock);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);          /* a worker thread */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)SW_RTAPI_MAX_BODY);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	rc = curl_errno(curl_easy_perform(c), &b);
	if (!rc && (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) || status != 200))
		rc = -EIO;
	curl_easy_cleanup(c);
	if (!rc && !b.buf && !(b.buf = calloc(1, 1)))
		rc = -ENOMEM;
	if (rc) {
		free(b.buf);
		return rc;
	}
	*body = b.buf;
	*len = b.len;
	return 0;
}

int sw_rtapi_list(const char *sock, const char *runtime, long timeout_ms,
		  struct sw_identity *out, size_t max, size_t *n)
{
	char *body;
	size_t len;
	int rc;

	*n = 0;
	if ((rc = sw_rtapi_get(sock, "/containers/json", timeout_ms, &body, &len)))
		return rc;
	rc = sw_rtapi_parse_list(body, len, runtime, out, max, n);
	free(body);
	return rc;
}
