/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_loss: does a new config lose what the one in force gave (a
 * reload that would fall back to defaults unasked)? */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/config_parse.h"

/* "FILE:LINE: what; refused" for a loss; line: where in the new file. */
__attribute__((format(printf, 5, 6)))
static int loss(const struct sw_config *new, unsigned line, char *err, size_t errlen,
		const char *fmt, ...)
{
	char what[SW_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return sw_cfg_set_err(err, errlen, -ENODATA, "%s:%u: %s; a reload would fall back to the "
			      "defaults there, so it is refused and the rules in force stay (to apply it "
			      "anyway: sandwall apply --accept-loss)", new->path, line ? line : 1, what);
}

/* Did old give a key of section sec whose drop loses protection? */
static bool section_protects(const struct sw_config *old, size_t sec)
{
	if (sec == 1 && old->given_cats)        /* [block] switches */
		return true;
	for (size_t i = 0; i < sw_cfg_n_keys; i++)
		if ((old->given_keys & ((uint64_t)1 << i)) && !sw_cfg_drop_tightens(&sw_cfg_keys[i]) &&
		    !strcmp(sw_cfg_keys[i].section, sw_cfg_sections[sec]))
			return true;
	return false;
}

int sw_config_loss(const struct sw_config *old, const struct sw_config *new, char *err,
		   size_t errlen)
{
	const size_t nsec = SW_CFG_N_SECTIONS;
	unsigned last = new->n_lines ? new->n_lines : 1;

	if (sw_config_is_empty(new) && !sw_config_is_empty(old))
		return loss(new, 1, err, errlen, "the file is empty (no section), the running "
			    "config is not");
	if (old->ends_in_newline && !new->ends_in_newline)
		return loss(new, last, err, errlen, "the last line has no newline: the file looks "
			    "cut short");
	for (size_t i = 0; i < nsec; i++)
		if (old->section_line[i] && !new->section_line[i] && section_protects(old, i))
			return loss(new, last, err, errlen, "section [%s] is missing (the running "
				    "config has it at line %u)", sw_cfg_sections[i], old->section_line[i]);
	for (size_t i = 0; i < sw_cfg_n_keys; i++) {
		size_t sec;

		if (!(old->given_keys & ((uint64_t)1 << i)) || (new->given_keys & ((uint64_t)1 << i)) ||
		    sw_cfg_drop_tightens(&sw_cfg_keys[i]))
			continue;
		for (sec = 0; sec < nsec && strcmp(sw_cfg_sections[sec], sw_cfg_keys[i].section); sec++)
			;
		return loss(new, sec < nsec && new->section_line[sec] ? new->section_line[sec] : last,
			    err, errlen, "[%s] %s is missing (the running config gives it)",
			    sw_cfg_keys[i].section, sw_cfg_keys[i].name);
	}
	for (int cat = 0; cat < SW_CAT_COUNT; cat++)
		if ((old->given_cats & (1u << cat)) && !(new->given_cats & (1u << cat)))
			return loss(new, new->section_line[1] ? new->section_line[1] : last, err,
				    errlen, "[block] %s is missing (the running config gives it)",
				    sw_category_name(cat));
	for (size_t i = 0; i < old->n_sandboxes; i++) {
		size_t j;

		for (j = 0; j < new->n_sandboxes; j++)
			if (!strcmp(old->sandboxes[i].name, new->sandboxes[j].name))
				break;
		if (j == new->n_sandboxes)
			return loss(new, last, err, errlen, "section [sandbox %s] is missing (the "
				    "running config has it at line %u)", old->sandboxes[i].name,
				    old->sandboxes[i].line);
		for (int k = 0; k < SBX_KEYS; k++)
			if (k != SBX_ALLOW && (old->sandboxes[i].seen & (1u << k)) &&
			    !(new->sandboxes[j].seen & (1u << k)))
				return loss(new, new->sandboxes[j].line, err, errlen, "[sandbox %s] %s "
					    "is missing (the running config gives it)",
					    old->sandboxes[i].name, sw_cfg_sbx_keys[k].name);
	}
	return 0;
}
