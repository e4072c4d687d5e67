/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_LOCK_H
#define SANDWALL_LOCK_H
/* lock: one sandwalld per table and network namespace, and one per
 * control socket, taken before the daemon touches anything.
 *
 * The table's lock is a listening abstract UNIX socket named
 * "sandwalld/inet/<table>": the abstract namespace belongs to the network
 * namespace, so the name is per table and per namespace, the kernel
 * releases it when the holder dies (no stale file, nothing on disk), and
 * a second daemon learns the holder's pid from SO_PEERCRED when it
 * connects (the holder accepts and closes such connections).
 *
 * The control socket's lock is flock(2) on "<control path>.lock" with the
 * holder's pid in it: the socket's path is a file system name, so is its
 * lock. Only the holder unlinks and binds the socket. */
#include <sys/types.h>

#define SW_LOCK_PREFIX "sandwalld/inet/"

/* The table's lock. Returns the listening fd (>= 0); -EEXIST when another
 * process holds it, *holder its pid (0: unknown) and *uid its user (-1:
 * unknown); or -errno. Any user may bind an abstract name: a holder that
 * is not root is not a sandwalld (the caller goes on without the lock
 * rather than let a squatter keep the daemon from starting). */
int sw_lock_table(const char *table, pid_t *holder, uid_t *uid);
/* The control socket's lock: the open lock file (>= 0, keep it open);
 * -EEXIST with *holder (0: unknown); or -errno. */
int sw_lock_control(const char *control_path, pid_t *holder);

#endif
