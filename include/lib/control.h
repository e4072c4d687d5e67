/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CONTROL_H
#define SANDWALL_CONTROL_H
/* control: the daemon's root-only UNIX control socket (SOCK_SEQPACKET).
 * One request per connection:
 *   request  "reload" | "remove" | "status" | ... (daemon/request.c's verbs[]),
 *            then "\nkey=value" lines: deadline=MS, accept_loss=yes (reload),
 *            target=ADDRESS|LINK (release, verify-link)     (at most 128 bytes)
 *   reply    "accepted\n" first for a request that changes something,
 *            then "ok\n" or "error\n" and key=value lines (at most 4096 bytes)
 * While the daemon owns the table, the CLI's writes go through here.
 *
 * A request whose client gave up is never executed. The client says until
 * when it waits: deadline= is CLOCK_REALTIME in milliseconds (the clock
 * both ends read alike, also from different time namespaces, which offset
 * only the monotonic clocks). Right before it executes a request the
 * daemon checks that the deadline has not passed (less SW_CONTROL_MARGIN_MS
 * for the way back) and that the client has not hung up (which needs no
 * clock at all: a client that gives up closes its end). A clock stepped
 * forward makes a request expire early (refused, nothing done, the
 * client is told); one stepped back is still caught by the hang-up.
 * A request that changes something is answered "accepted" when it starts
 * and "ok"/"error" when it is done, so the client waits briefly for the
 * daemon (SW_CONTROL_ANSWER_MS) and long only for work that runs. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SW_CONTROL_PATH   "/run/sandwall/control"
#define SW_CONTROL_REQMAX 128
#define SW_CONTROL_REPMAX 4096
#define SW_CONTROL_ANSWER_MS 2000   /* the daemon answers (or accepts) within this */
#define SW_CONTROL_DONE_MS   60000  /* an accepted request is done within this */
#define SW_CONTROL_MARGIN_MS 200    /* expired this long before the deadline */

/* A request as the daemon read it. */
struct sw_control_req {
	char verb[SW_CONTROL_REQMAX];   /* "reload", "remove", "status", ... */
	int64_t deadline_ms;            /* CLOCK_REALTIME ms; 0: the client gave none */
	bool accept_loss;               /* reload: "accept_loss=yes", apply a config that
					 * drops what the running one gave (config.h) */
	char target[SW_CONTROL_REQMAX]; /* release: "target=ADDRESS|LINK", verify-link:
					 * "target=LINK" ("" none) */
};

/* Server: bind and listen (directory 0700, socket 0600). Returns fd or -errno. */
int sw_control_listen(const char *path);
/* Accept one client, check it is root (SO_PEERCRED), read its request.
 * Returns the client fd (>= 0) with req filled, or -errno (-EMFILE and
 * -ENFILE as accept4 gives them: the caller frees a descriptor). */
int sw_control_accept(int lfd, struct sw_control_req *req);
/* Parse "VERB[\nkey=value...]" (NUL-terminated) into req. 0 or -EINVAL. */
int sw_control_parse(const char *text, struct sw_control_req *req);
/* Is the client still waiting for this request at now_ms (CLOCK_REALTIME
 * ms)? 0; -ETIME: its deadline (less the margin) has passed; -ECONNRESET:
 * it hung up. */
int sw_control_live(int cfd, const struct sw_control_req *req, int64_t now_ms);
/* Tell the client its request runs now (only when it gave a deadline: an
 * older client takes the first message as the answer). */
int sw_control_accepted(int cfd, const struct sw_control_req *req);
/* Send the reply and close the client. */
int sw_control_reply(int cfd, const char *reply);
/* CLOCK_REALTIME in milliseconds. */
int64_t sw_control_now_ms(void);
/* Client: one round trip (req: the verb, then optional "\nkey=value" lines),
 * waiting answer_ms for the daemon's first answer
 * and done_ms more for an accepted request to finish. Returns 0 with reply
 * filled, or -errno: -ENOENT/-ECONNREFUSED: no daemon listening;
 * -ETIMEDOUT: no answer within answer_ms (the request expires unexecuted);
 * -EINPROGRESS: accepted but not done within done_ms (it may still be). */
int sw_control_call_ms(const char *path, const char *req, char *reply, size_t replylen,
		       int answer_ms, int done_ms);
/* The same with SW_CONTROL_ANSWER_MS and SW_CONTROL_DONE_MS. */
int sw_control_call(const char *path, const char *req, char *reply, size_t replylen);

#endif
