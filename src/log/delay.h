/*
 * delay.h - the crawl-delay pass of the logs job (internal; delay.c): which
 * bot hits came sooner than their site's Crawl-delay after the same bot's
 * previous hit on the same site. It needs every hit of a (bot, origin) in
 * time order, which merged logs do not give, so hits are collected as they
 * come and decided once the whole input is read. Past a memory budget the
 * entries go, as sorted runs, to temporary zstd files (src/scan/spill.c),
 * merged back by the pass.
 */
#ifndef RS_LOG_DELAY_H
#define RS_LOG_DELAY_H

#include "common/common.h"

typedef struct rs_delay rs_delay;

/* A pass whose spill files go to @spill_dir (NULL: /tmp). @return RS_OK or RS_ERR_NOMEM. */
rs_status rs_delay_create(const char *spill_dir, rs_delay **out);
void rs_delay_free(rs_delay *d);

/*
 * Hit number @rec (0-based, among every hit of the job) of key @key
 * ("bot\torigin") at @epoch, bound by a delay of @delay seconds. A /robots.txt
 * fetch (@robots) counts in the spacing and is never a violation; a
 * @disallowed hit is counted apart by rs_delay_run. @return RS_OK or RS_ERR_NOMEM.
 */
rs_status rs_delay_add(rs_delay *d, const char *key, size_t key_len, double delay, uint32_t rec, int64_t epoch,
                       int robots, int disallowed);
/* Bytes the entries in memory take. */
uint64_t rs_delay_memory(const rs_delay *d);
/* Sorts the entries in memory and writes them to a spill file as one run; @err (>= 256
 * bytes) says why it failed. @return RS_OK, RS_ERR_IO or RS_ERR_NOMEM. */
rs_status rs_delay_spill(rs_delay *d, char *err, size_t err_cap);

/*
 * The pass, once every hit is in: sets @v[rec] = 1 for each hit that came sooner than
 * its delay (@v: one zeroed byte per hit, @n_records of them), counts them per key
 * (rs_delay_key_violations) and the ones that were not disallowed in *@allowed_violations.
 * @return RS_OK, RS_ERR_NOMEM, or RS_ERR_IO / RS_ERR_CORRUPT (a spill file could not be read).
 */
rs_status rs_delay_run(rs_delay *d, uint8_t *v, size_t n_records, uint64_t *allowed_violations);

/* The keys ("bot\torigin") in the order they came, and their violations after rs_delay_run. */
uint32_t rs_delay_keys(const rs_delay *d);
rs_str rs_delay_key(const rs_delay *d, uint32_t i);
uint64_t rs_delay_key_violations(const rs_delay *d, uint32_t i);

#endif /* RS_LOG_DELAY_H */
