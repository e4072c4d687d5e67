/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SANDWALL_GATEFILL_H
#define SANDWALL_GATEFILL_H
/* gatefill: the gate's first phase (include/core/gate.h) as a commit. */
#include "core/model.h"
#include "kernel/nl.h"

/* Settle want's gate against have; when the buffer to select does not
 * hold the gate yet, fill it in a commit of its own first (stamped with
 * have's generation: ERESTART when anything moved; by element deltas, or
 * flushed and refilled when the kernel refuses one), and make have say so
 * (its elements, its generation), so that the batch that follows flips
 * the selector and changes nothing the packet path reads meanwhile. */
int sw_gate_fill(struct sw_nl *nl, struct sw_model *want, struct sw_model *have);

#endif
