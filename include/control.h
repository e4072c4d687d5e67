/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_CONTROL_H
#define SANDWALL_CONTROL_H
/* control: the daemon's root-only UNIX control socket (SOCK_SEQPACKET).
 * One request per connection, one reply:
 *   request  "reload" | "remove" | "status"         (at most 64 bytes)
 *   reply    "ok\n" or "error\n", then key=value lines  (at most 4096 bytes)
 * While the daemon owns the table, the CLI's writes go through here. */
#include <stddef.h>

#define SW_CONTROL_PATH   "/run/sandwall/control"
#define SW_CONTROL_REQMAX 64
#define SW_CONTROL_REPMAX 4096

/* Server: bind and listen (directory 0700, socket 0600). Returns fd or -errno. */
int sw_control_listen(const char *path);
/* Accept one client, check it is root (SO_PEERCRED), read its request.
 * Returns the client fd (>= 0) with req filled, or -errno. */
int sw_control_accept(int lfd, char *req, size_t reqlen);
/* Send the reply and close the client. */
int sw_control_reply(int cfd, const char *reply);
/* Client: one round trip. Returns 0 with reply filled, or -errno
 * (-ENOENT/-ECONNREFUSED: no daemon listening). */
int sw_control_call(const char *path, const char *req, char *reply, size_t replylen);

#endif
