/* A tensor's bytes as the runs they occupy in host memory, handed out in
 * place: the .npy reader fills them straight from a file and the writer
 * drains them straight into one, with no dense copy in between. */
#ifndef TRNSIM_HOST_SPANS_H
#define TRNSIM_HOST_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "memory/ap.h"

/* One run of bytes, in the AP's element order. NULL bytes: the run lives
 * in another process's memory (a distributed run); skip len bytes. */
typedef int (*trn_span_fn)(void *ctx, uint8_t *bytes, size_t len, trn_error *e);

/* For an AP whose free dims are row-major contiguous (a tensor's own AP):
 * fn once per run of adjacent partitions, in element order. writing: the
 * bytes are marked written once fn returned 0 for them (fn then filled
 * every byte). Bounds as trn_ap_check; another AP shape is refused. */
int trn_ap_spans(const trn_ap_env *env, const trn_ap *ap, bool writing, trn_span_fn fn, void *ctx, trn_error *e);

/* The AP's bytes on core `from` copied to the same place on ap->core, and
 * marked written there: one tensor's data on every core, read once. */
int trn_ap_spans_copy(const trn_ap_env *env, const trn_ap *ap, uint32_t from, trn_error *e);

/* Huge pages for a tensor that its own AP covers densely: the bytes from
 * its first to its last partition, when the tensor holds at least half of
 * them (a tensor narrower than half a partition stays on small pages, so a
 * sparse SBUF tensor does not fault in whole 2 MiB pages it barely uses). */
void trn_ap_advise_dense(const trn_ap_env *env, const trn_ap *ap);

#endif
