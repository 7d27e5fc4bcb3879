/* The rendezvous registry: the reference's NeuronCoresManager, which lines
 * up each core's k-th collective with every other core's k-th.
 *
 * This is the only interface the handlers use to meet other cores. The
 * implementation here keeps every core's records in one process (the
 * single-process multi-core regime); a transport that carries ranks over a
 * real distributed channel would implement the same five calls, publishing
 * each posted record to the other workers and answering `get` from what
 * they published. Records are owned by the registry from `post` on. */
#ifndef COLL_REGISTRY_H
#define COLL_REGISTRY_H

#include <stdint.h>

#include "coll_record.h"

typedef struct coll_registry coll_registry;

/* Point-to-point sides of a channel src -> dst. */
typedef enum coll_side { COLL_SEND = 0, COLL_RECV = 1 } coll_side;

coll_registry *coll_registry_new(uint32_t cores);
void coll_registry_free(coll_registry *r);

/* Append rec as core's next collective; rec->seq gets its number k
 * (0, 1, ...). -1 when out of memory (rec is then not taken). */
int coll_registry_post(coll_registry *r, uint32_t core, coll_record *rec);
/* core's k-th collective, NULL when core has not arrived there yet. */
coll_record *coll_registry_get(const coll_registry *r, uint32_t core, uint64_t k);

/* The same for the channel src -> dst: the j-th send from src to dst
 * meets the j-th receive at dst from src. */
int coll_registry_p2p_post(coll_registry *r, uint32_t src, uint32_t dst, coll_side side,
                           coll_record *rec);
coll_record *coll_registry_p2p_get(const coll_registry *r, uint32_t src, uint32_t dst,
                                   coll_side side, uint64_t j);

/* Dumps (coll_snapshot.c). The lists: COLL_LIST_SEQ (key: the core),
 * COLL_LIST_SEND / COLL_LIST_RECV (key: src * cores + dst). each() visits
 * every record, list by list, in posting order, until fn returns non-zero;
 * restore_post appends to a list as the original posting did. */
enum { COLL_LIST_SEQ = 0, COLL_LIST_SEND = 1, COLL_LIST_RECV = 2 };
typedef int (*coll_registry_visit)(void *arg, int list, uint64_t key, const coll_record *rec);
int coll_registry_each(const coll_registry *r, coll_registry_visit fn, void *arg);
int coll_registry_restore_post(coll_registry *r, int list, uint64_t key, uint64_t seq,
                               coll_record *rec);
/* Where a list starts (the records before `base` were dropped): visited
 * for each list that does not start at 0, and set on an empty list before
 * its records are restored. -1: no such list, or not empty. */
typedef int (*coll_registry_base_visit)(void *arg, int list, uint64_t key, uint64_t base);
int coll_registry_each_base(const coll_registry *r, coll_registry_base_visit fn, void *arg);
int coll_registry_restore_base(coll_registry *r, int list, uint64_t key, uint64_t base);

/* Drop the records nobody can need again: done, waited on by no core (held:
 * the records the cores wait on), and (CollectiveCompute) every core has
 * posted its own of that number. dropped (optional) sees each before it is
 * freed. Returns how many went. The _channel form does the same for the
 * send / receive pairs of src -> dst. */
size_t coll_registry_trim(coll_registry *r, const coll_record *const *held, size_t n_held,
                          void (*dropped)(void *arg, const coll_record *rec), void *arg);
size_t coll_registry_trim_channel(coll_registry *r, uint32_t src, uint32_t dst,
                                  const coll_record *const *held, size_t n_held,
                                  void (*dropped)(void *arg, const coll_record *rec), void *arg);
/* The record at position seq of a list, NULL if none. */
coll_record *coll_registry_find(const coll_registry *r, int list, uint64_t key, uint64_t seq);

#endif
