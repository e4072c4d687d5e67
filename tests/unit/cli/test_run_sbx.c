/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for a run's sandboxes (run_sbx.c): the attempts of the
 * window collected per source, attributed by the sandwall.run label or
 * by the window, another run's left out, and the text receipt's line
 * naming each: a container by name, image and id, a micro-VM (no name,
 * no image, no id) by its process's name and pid. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run_sbx.h"

#define ATTEMPTS "{\"attempts\":[" \
	"{\"category\":\"metadata\",\"src\":\"10.88.0.3\",\"iif\":\"cni-podman0\"," \
	"\"dst\":\"169.254.169.254\",\"proto\":\"tcp\",\"dport\":80,\"count\":1," \
	"\"first\":1005,\"last\":1005,\"identity\":{\"runtime\":\"podman\"," \
	"\"id\":\"b8807e2946f9aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"," \
	"\"name\":\"agent-p2\",\"image\":\"localhost/swt-pm:1\"," \
	"\"labels\":{\"sandwall.run\":\"R1\"}}}," \
	"{\"category\":\"metadata\",\"src\":\"10.77.0.2\",\"iif\":\"swtvm0\"," \
	"\"dst\":\"169.254.169.254\",\"proto\":\"tcp\",\"dport\":80,\"count\":15," \
	"\"first\":1006,\"last\":1008,\"identity\":{\"runtime\":\"microvm\"," \
	"\"iif\":\"swtvm0\",\"pid\":28639,\"comm\":\"python3\"}}," \
	"{\"category\":\"metadata\",\"src\":\"10.88.0.4\",\"iif\":\"cni-podman0\"," \
	"\"dst\":\"169.254.169.254\",\"proto\":\"tcp\",\"dport\":80,\"count\":1," \
	"\"first\":1006,\"last\":1006,\"identity\":{\"runtime\":\"podman\"," \
	"\"id\":\"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\"," \
	"\"name\":\"other\",\"image\":\"localhost/swt-pm:1\"," \
	"\"labels\":{\"sandwall.run\":\"R2\"}}}," \
	"{\"category\":\"metadata\",\"src\":\"10.77.0.9\",\"iif\":\"swtvm1\"," \
	"\"dst\":\"169.254.169.254\",\"proto\":\"tcp\",\"dport\":80,\"count\":1," \
	"\"first\":900,\"last\":901}" \
	"]}"

struct fx {
	struct sw_jv att;
	struct sw_run_sbx_in in;
	struct sw_run_sbxs s;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(sw_jv_parse(ATTEMPTS, strlen(ATTEMPTS), &f->att, NULL), 0);
	f->in = (struct sw_run_sbx_in){ .attempts = &f->att, .since = 1000, .until = 1010, .run_id = "R1" };
	assert_int_equal(sw_run_sbx_collect(&f->in, &f->s), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sw_run_sbxs_free(&f->s);
	sw_jv_free(&f->att);
	free(f);
	return 0;
}

/* the window's two sources of this run; R2's container and an attempt
 * before the window are not this run's */
static void test_collect(void **state)
{
	struct fx *f = *state;

	assert_int_equal(f->s.n, 2);
	assert_string_equal(f->s.v[0].src, "10.88.0.3");
	assert_true(f->s.v[0].labelled);
	assert_string_equal(f->s.v[1].src, "10.77.0.2");
	assert_string_equal(f->s.v[1].iif, "swtvm0");
	assert_false(f->s.v[1].labelled);
}

static char *text_of(struct fx *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	sw_run_sbx_text(m, &f->in, &f->s, 100);
	fclose(m);
	return buf;
}

/* a container: runtime, name, image, short id (the form identity_06 and
 * identity_07 read); a micro-VM: its process's name and pid, as the
 * blocked line names it (sandbox_name=python3), not an empty name */
static void test_text_names(void **state)
{
	char *t = text_of(*state);

	assert_non_null(strstr(t, "\n  10.88.0.3 via cni-podman0 = podman agent-p2 (localhost/swt-pm:1) "
				  "b8807e2946f9\n"));
	assert_non_null(strstr(t, "\n  10.77.0.2 via swtvm0 = microvm python3 pid 28639\n"));
	assert_non_null(strstr(t, "    BLOCKED  169.254.169.254:80/tcp (metadata), 15 packet(s)\n"));
	assert_null(strstr(t, "other"));
	free(t);
}

/* the JSON: attribution by label for the labelled one, by window else */
static void test_json_attribution(void **state)
{
	struct fx *f = *state;
	struct sw_jw w;
	const char *out;

	sw_jw_init(&w);
	sw_jw_obj(&w, NULL);
	sw_run_sbx_json(&w, &f->in, &f->s);
	sw_jw_end(&w);
	out = sw_jw_text(&w);
	assert_non_null(out);
	assert_non_null(strstr(out, "\"src\":\"10.88.0.3\",\"iif\":\"cni-podman0\",\"identity\":{"));
	assert_non_null(strstr(out, "\"sandwall.run\":\"R1\"}},\"attribution\":\"label\""));
	assert_non_null(strstr(out, "\"pid\":28639,\"comm\":\"python3\"},\"attribution\":\"window\""));
	sw_jw_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_collect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_attribution, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
