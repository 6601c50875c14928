/*
 * bots.h - internal interface between the generated crawler table
 * (crawlers_table.c, written by scripts/gen-crawlers.py) and bots.c.
 */
#ifndef RS_LOG_BOTS_H
#define RS_LOG_BOTS_H

#include "robotscan.h"

/* The built-in rows, sorted by lower-cased token. */
extern const rs_crawler_info rs_crawlers_builtin[];
extern const size_t rs_crawlers_builtin_count;

/* Generic words (lower case, sorted by strcmp) that never identify a crawler. */
extern const char *const rs_crawlers_generic[];
extern const size_t rs_crawlers_generic_count;

#endif /* RS_LOG_BOTS_H */
