/*
 * log_internal.h - what logline.c shares with logparse.c inside src/log.
 */
#ifndef RS_LOG_INTERNAL_H
#define RS_LOG_INTERNAL_H

#include "robotscan.h"

/* Splits r->request (`METHOD SP TARGET [SP PROTOCOL]`) into method, target
 * and protocol; flags RS_LOGREC_BAD_REQUEST when it is not such a line. */
void rs_logline_split_request(rs_logrec *r);

/* The last `dd/Mon/yyyy:` date and ` +hhmm` zone a combined-format time had,
 * with the epoch of its midnight in that zone: lines of one second, minute or
 * day share them, so only hh:mm:ss is read. valid = 0: empty. */
typedef struct {
    char    date[12];
    char    zone[6];
    int     valid;
    int64_t base;
    /* The same for ALB's `YYYY-MM-DDThh:mm:ss[.frac]Z` (UTC): the last date
     * and the epoch of its midnight. iso_valid = 0: empty. */
    char    iso_date[10];
    int     iso_valid;
    int64_t iso_base;
} rs_logtime_cache;

/* rs_logline_parse with a time cache (NULL: none), for parsers that read
 * many lines in turn (rs_logparser). Same results. */
rs_logline_status rs_logline_parse_cached(const rs_logformat *fmt, rs_logtime_cache *tc, const char *line,
                                          size_t len, rs_logrec *out);

/* The item walk alone (no one-pass path): what the one-pass path must equal. */
rs_logline_status rs_logline_parse_walk(const rs_logformat *fmt, const char *line, size_t len, rs_logrec *out);

/* Tests: @walk nonzero makes the JSON/W3C readers of @p take their plain
 * paths (every JSON value offered to every wanted path, no subtree pruned,
 * no vector field split): what the fast paths must equal. */
void rs_logparser_set_walk(rs_logparser *p, int walk);

#endif /* RS_LOG_INTERNAL_H */
