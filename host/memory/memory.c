#include "memory/memory.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "trnsim/plugin/abi.h"
#include "trnsim/plugin/ap.h"

const char *const trn_mem_names[3] = {"sbuf", "psum", "hbm"};

/* Zeroed pages reserved but not backed (MAP_NORESERVE): a page costs memory
 * only once touched, so a declared-but-unused HBM, and the written-byte map
 * that mirrors it, are free. Both start all-zero, which is what "never
 * written" means. */
static void *lazy_zeroed(uint64_t bytes) {
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void lazy_free(void *p, uint64_t bytes) {
    if (p) munmap(p, bytes ? bytes : 1);
}

static uint64_t map_bytes(const trn_memory *m) {
    return ((uint64_t)m->partitions * m->partition_bytes / 64 + 1) * sizeof(uint64_t);
}

uint64_t trn_mem_map_bytes(const trn_memory *m) { return map_bytes(m); }

static uint64_t summary_bytes(const trn_memory *m) {
    return ((uint64_t)m->partitions * m->partition_bytes / TRN_MEM_CHUNK / 64 + 1) *
           sizeof(uint64_t);
}

int trn_mem_enable_remote_map(trn_memory *m, trn_error *e) {
    if (m->remote_written) return 0;
    m->remote_written = lazy_zeroed(map_bytes(m));
    return m->remote_written ? 0 : trn_errorf(e, "out of memory for the remote written-byte map");
}

static int memory_init(trn_memory *m, uint32_t partitions, uint64_t partition_bytes,
                       const char *name, trn_error *e) {
    uint64_t total = (uint64_t)partitions * partition_bytes;
    m->partitions = partitions;
    m->partition_bytes = partition_bytes;
    m->bytes = lazy_zeroed(total);
    m->written = lazy_zeroed(map_bytes(m));
    m->full = lazy_zeroed(summary_bytes(m));
    if (!m->bytes || !m->written || !m->full)
        return trn_errorf(e, "out of memory allocating %s (%llu bytes)", name,
                          (unsigned long long)total);
    return 0;
}

int trn_core_state_init(trn_core_state *c, const trn_machine *m, trn_error *e) {
    memset(c, 0, sizeof *c);
    if (memory_init(&c->mem[TRN_MEM_SBUF], m->partitions, m->sbuf_partition_bytes, "sbuf", e) ||
        memory_init(&c->mem[TRN_MEM_PSUM], m->partitions, m->psum_partition_bytes, "psum", e) ||
        memory_init(&c->mem[TRN_MEM_HBM], 1, m->hbm_bytes, "hbm", e)) {
        trn_core_state_free(c);
        return -1;
    }
    c->nregs = m->registers;
    c->regs = calloc(m->registers ? m->registers : 1, sizeof(int64_t));
    if (!c->regs) {
        trn_core_state_free(c);
        return trn_errorf(e, "out of memory allocating registers");
    }
    return 0;
}

void trn_core_state_free(trn_core_state *c) {
    for (int i = 0; i < 3; ++i) {
        trn_memory *m = &c->mem[i];
        lazy_free(m->bytes, (uint64_t)m->partitions * m->partition_bytes);
        lazy_free(m->written, map_bytes(m));
        lazy_free(m->full, summary_bytes(m));
        if (m->remote_written) lazy_free(m->remote_written, map_bytes(m));
        trn_mem_free_bindings(m);
    }
    free(c->regs);
    memset(c, 0, sizeof *c);
}

#define HUGE_PAGE ((uintptr_t)2 << 20)

/* MADV_HUGEPAGE over the huge pages wholly inside [p, p+len). */
static void advise_huge(void *p, uint64_t len) {
#ifdef MADV_HUGEPAGE
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + len) & ~(HUGE_PAGE - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: failure changes nothing but speed */
#else
    (void)p, (void)len;
#endif
}

void trn_mem_advise_dense(trn_memory *m, uint64_t addr, uint64_t len) {
    advise_huge(m->bytes + addr, len);
    advise_huge((uint8_t *)m->written + addr / 8, len / 8);
}

/* Bits [lo, hi) of one 64-bit word, 0 <= lo < hi <= 64. */
static inline uint64_t bit_mask(unsigned lo, unsigned hi) {
    uint64_t upper = hi == 64 ? ~0ull : (1ull << hi) - 1;
    return upper & ~((1ull << lo) - 1);
}

#define CHUNK_WORDS (TRN_MEM_CHUNK / 64) /* map words per summary bit */

static inline bool chunk_full(const trn_memory *m, uint64_t chunk) {
    return m->full[chunk >> 6] >> (chunk & 63) & 1;
}
static inline void set_full(const trn_memory *m, uint64_t chunk) {
    m->full[chunk >> 6] |= 1ull << (chunk & 63);
}

/* Whole words [w, end) to all ones: chunks covered whole are skipped when
 * already full, else filled and marked full. */
static void mark_words(trn_memory *m, uint64_t w, uint64_t end) {
    while (w < end) {
        uint64_t chunk = w / CHUNK_WORDS, chunk_end = (chunk + 1) * CHUNK_WORDS;
        if (w % CHUNK_WORDS == 0 && chunk_end <= end) {
            if (!chunk_full(m, chunk)) {
                memset(&m->written[w], 0xff, CHUNK_WORDS * sizeof(uint64_t));
                set_full(m, chunk);
            }
            w = chunk_end;
            continue;
        }
        uint64_t stop = chunk_end < end ? chunk_end : end;
        if (!chunk_full(m, chunk)) memset(&m->written[w], 0xff, (stop - w) * sizeof(uint64_t));
        w = stop;
    }
}

void trn_mem_mark_written(trn_memory *m, uint64_t addr, uint64_t len) {
    uint64_t end = addr + len;
    if ((addr & 63) && addr < end) { /* head: part of one word */
        uint64_t word_end = (addr | 63) + 1;
        unsigned hi = end < word_end ? (unsigned)(end & 63 ? end & 63 : 64) : 64;
        m->written[addr >> 6] |= bit_mask((unsigned)(addr & 63), hi);
        addr = word_end;
    }
    if (addr + 64 <= end) { /* whole words */
        uint64_t words = (end - addr) >> 6;
        mark_words(m, addr >> 6, (addr >> 6) + words);
        addr += words << 6;
    }
    if (addr < end) m->written[addr >> 6] |= bit_mask(0, (unsigned)(end - addr));
}

/* Summary bits of the chunks that [addr, addr+len) touches, cleared. */
static void clear_full(trn_memory *m, uint64_t addr, uint64_t len) {
    for (uint64_t c = addr / TRN_MEM_CHUNK; c <= (addr + len - 1) / TRN_MEM_CHUNK; ++c)
        m->full[c >> 6] &= ~(1ull << (c & 63));
}

void trn_mem_clear_written(trn_memory *m, uint64_t addr, uint64_t len) {
    if (len == 0) return;
    clear_full(m, addr, len);
    uint64_t end = addr + len;
    while (addr < end) {
        uint64_t word_end = (addr | 63) + 1, stop = end < word_end ? end : word_end;
        m->written[addr >> 6] &=
            ~bit_mask((unsigned)(addr & 63), stop == word_end ? 64 : (unsigned)(stop & 63));
        addr = stop;
    }
}

void trn_mem_map_overwritten(trn_memory *m, uint64_t map_off, uint64_t map_len) {
    if (map_len) clear_full(m, map_off * 8, map_len * 8);
}

static inline uint64_t have_word(const trn_memory *m, uint64_t word) {
    return m->written[word] | (m->remote_written ? m->remote_written[word] : 0);
}

static bool first_missing(const trn_memory *m, uint64_t word, uint64_t mask, uint64_t *first) {
    uint64_t missing = mask & ~have_word(m, word);
    if (missing && first) *first = (word << 6) + (uint64_t)__builtin_ctzll(missing);
    return missing != 0;
}

/* Whole words [w, end) all written? A chunk scanned whole and found full
 * gets its summary bit (a cache: the map's words are the truth). */
static bool words_written(const trn_memory *m, uint64_t w, uint64_t end, uint64_t *first) {
    while (w < end) {
        uint64_t chunk = w / CHUNK_WORDS, chunk_end = (chunk + 1) * CHUNK_WORDS;
        uint64_t stop = chunk_end < end ? chunk_end : end;
        if (chunk_full(m, chunk)) {
            w = stop;
            continue;
        }
        uint64_t all = ~0ull;
        for (uint64_t i = w; i < stop; ++i) all &= m->written[i]; /* branch-free scan, vectorises */
        if (all == ~0ull) {
            if (w % CHUNK_WORDS == 0 && stop == chunk_end) set_full(m, chunk);
        } else {
            for (uint64_t i = w; i < stop; ++i)
                if (first_missing(m, i, ~0ull, first)) return false;
        }
        w = stop;
    }
    return true;
}

bool trn_mem_is_written(const trn_memory *m, uint64_t addr, uint64_t len,
                        uint64_t *first_unwritten) {
    uint64_t end = addr + len;
    if ((addr & 63) && addr < end) {
        uint64_t word_end = (addr | 63) + 1;
        unsigned hi = end < word_end ? (unsigned)(end & 63 ? end & 63 : 64) : 64;
        if (first_missing(m, addr >> 6, bit_mask((unsigned)(addr & 63), hi), first_unwritten))
            return false;
        addr = word_end;
    }
    if (addr + 64 <= end) {
        uint64_t words = (end - addr) >> 6;
        if (!words_written(m, addr >> 6, (addr >> 6) + words, first_unwritten)) return false;
        addr += words << 6;
    }
    if (addr < end &&
        first_missing(m, addr >> 6, bit_mask(0, (unsigned)(end - addr)), first_unwritten))
        return false;
    return true;
}

void trn_mem_copy_written(const trn_memory *m, uint64_t addr, uint64_t len, uint8_t *out) {
    memset(out, 0, (size_t)((len + 7) / 8));
    for (uint64_t i = 0; i < len;) {
        uint64_t a = addr + i;
        unsigned bit = (unsigned)(a & 63), take = 64 - bit;
        if (take > len - i) take = (unsigned)(len - i);
        uint64_t bits = have_word(m, a >> 6) >> bit;
        if (take < 64) bits &= (1ull << take) - 1;
        /* out bits [i, i + take) */
        for (unsigned k = 0; k < take;) {
            uint64_t o = i + k;
            unsigned room = 8 - (unsigned)(o & 7), n = take - k < room ? take - k : room;
            out[o >> 3] |= (uint8_t)((bits >> k) & ((1u << n) - 1)) << (o & 7);
            k += n;
        }
        i += take;
    }
}
