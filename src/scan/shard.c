/*
 * shard.c - which of N shards a site belongs to (robotscan shard, SPEC 12).
 *
 * The shard of an origin is XXH3_64bits(canonical origin, seed 0) mod N.
 * XXH3's output is specified by xxHash (>= 0.8.0) to be the same on every
 * platform and in every later version, and the canonical origin
 * (rs_origin_parse) does not depend on the machine either, so a given
 * origin lands in the same shard whatever machine or robotscan version
 * computes it. Changing this function breaks shard directories written by
 * earlier versions: do not.
 */
#include "robotscan.h"

#include <xxhash.h>

uint32_t rs_shard_of_origin(const char *origin, size_t len, uint32_t n)
{
    if (n <= 1 || origin == NULL) return 0;
    return (uint32_t)(XXH3_64bits(origin, len) % n);
}

uint32_t rs_shard_of_url(const char *url, size_t len, uint32_t n)
{
    char buf[RS_ORIGIN_MAX];
    rs_origin o;
    if (n <= 1) return 0;
    if (rs_origin_parse(url, len, buf, sizeof buf, &o) != RS_OK || o.error != RS_ORIGIN_OK) return 0;
    return rs_shard_of_origin(o.origin.ptr, o.origin.len, n);
}
