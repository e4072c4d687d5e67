// SPDX-License-Identifier: GPL-2.0-or-later
/* atomicfile: write to PATH.tmp.PID, fsync, rename over PATH. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/atomicfile.h"

int sw_atomic_write(const char *path, const void *data, size_t len, mode_t mode)
{
	char tmp[4096];
	const char *p = data;
	int fd, err = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (!err && fchmod(fd, mode) < 0)
		err = -errno;
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
