/* The recipes of trnsim-collective's opcodes (collective_conform.c). */
#ifndef TRNSIM_COLLECTIVE_CONFORM_H
#define TRNSIM_COLLECTIVE_CONFORM_H

extern const char coll_conform_compute[];
extern const char coll_conform_send[];
extern const char coll_conform_recv[];
extern const char coll_conform_global_rank[];
extern const char coll_conform_cur_rank[];

#endif
