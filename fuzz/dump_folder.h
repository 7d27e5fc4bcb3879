/* fuzz_dump's packed dump folders (fuzz/dump_folder.c): a byte that picks
 * the program, then records (u8 name length, name, u32 little-endian data
 * length, data) until the end; a name is a relative path of
 * [A-Za-z0-9_.-/] without "..", and a record that does not fit is cut
 * (its data) or ends the input (its header). */
#ifndef TRNSIM_FUZZ_DUMP_FOLDER_H
#define TRNSIM_FUZZ_DUMP_FOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Remove dir and everything under it (no symlink is followed). */
void folder_remove(const char *dir);

/* Pack the regular files under dir (but tensors/, which a restore never
 * reads) into file, after the program byte. */
void folder_pack(const char *dir, const char *file, uint8_t program);

/* Unpack the records into dir as into an empty folder: each record's
 * parent folders made (mkdir), then its file written (fopen "wb"), in
 * order; what the file system refuses is skipped. The reference meaning of
 * an input. */
void folder_unpack_fresh(const uint8_t *data, size_t size, const char *dir);

/* The same folder, made from the one the previous call left in dir: only
 * what differs is written or removed. Nothing else may change dir between
 * calls. */
void folder_unpack(const uint8_t *data, size_t size, const char *dir);

/* Whether folders a and b hold the same entries, of the same kinds and
 * bytes (differences on stderr). */
bool folder_same(const char *a, const char *b);

#endif
