/* The config as a distributed run compares it across processes
 * (dist_config.c): one canonical text, its hash, and the first difference. */
#ifndef TRNSIM_HOST_DIST_CONFIG_H
#define TRNSIM_HOST_DIST_CONFIG_H

#include <stddef.h>
#include <stdint.h>

struct trn_dist;

/* Bytes every process sends when the hashes differ (longer texts are cut
 * at a whole line). */
#define TRN_DIST_CONFIG_TEXT 65536

/* The canonical text into buf (NUL-terminated, whole lines); its length. */
size_t trn_dist_config_text(const struct trn_dist *d, char *buf, size_t cap);
uint64_t trn_dist_config_hash(const char *text);
/* Process r's text against process 0's (mine): "KEY is A on process r, B on
 * process 0", naming the first setting that differs. */
void trn_dist_config_diff(const char *mine, const char *theirs, uint32_t r, char *out, size_t len);

#endif
