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

/* What kind of agent a row is (scripts/gen-crawlers.py, from the sources'
 * categories). Crawlers, which robots.txt governs, come first; then agents
 * that fetch on a user's request and HTTP libraries, which do not read it. */
enum {
    RS_KIND_SEARCH, RS_KIND_AI, RS_KIND_SEO, RS_KIND_ARCHIVE, RS_KIND_ADS, RS_KIND_ACADEMIC,
    RS_KIND_SCANNER, RS_KIND_OTHER,     /* crawlers */
    RS_KIND_FETCHER,                    /* user-triggered fetchers */
    RS_KIND_LIBRARY,                    /* HTTP libraries, browser automation */
    RS_KIND_COUNT
};
#define RS_KIND_IS_CRAWLER(k) ((k) < RS_KIND_FETCHER)

/* The kind of each row of rs_crawlers_builtin, same order. */
extern const unsigned char rs_crawlers_builtin_kind[];

/* The RS_KIND_* of the built-in token spelled @tok (any case), or -1 when the
 * table does not have it (an --agent, a token named only in robots.txt). */
int rs_crawler_kind_of(const char *tok, size_t len);

/* Generic words (lower case, sorted by strcmp) that never identify a crawler. */
extern const char *const rs_crawlers_generic[];
extern const size_t rs_crawlers_generic_count;

#endif /* RS_LOG_BOTS_H */
