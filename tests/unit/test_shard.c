/*
 * test_shard.c - the shard of a site (src/scan/shard.c) and keyed tallies as
 * JSON (src/report/stats_json.c): pinned hash values (stable across versions),
 * an origin's URLs all in one shard whatever their spelling, the list order.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "robotscan.h"

Test(shard, pinned_values)
{
    /* XXH3_64bits(origin, seed 0) mod n: changing these breaks existing shard directories */
    cr_expect_eq(rs_shard_of_origin("https://www.example.com", 23, 7), 4);
    cr_expect_eq(rs_shard_of_url("https://www.example.com/a", 25, 7), 4);
    cr_expect_eq(rs_shard_of_origin("https://www.example.com", 23, 1), 0);
    cr_expect_eq(rs_shard_of_origin("https://www.example.com", 23, 0), 0);
}

Test(shard, one_origin_one_shard)
{
    static const char *const same[] = {
        "https://www.Example.COM/a", "https://www.example.com:443/b?q", "HTTPS://www.example.com",
        "https://www.example.com/c#f",
    };
    for (uint32_t n = 2; n < 300; n += 37) {
        const uint32_t k = rs_shard_of_origin("https://www.example.com", 23, n);
        for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
            cr_expect_eq(rs_shard_of_url(same[i], strlen(same[i]), n), k, "%s n=%u", same[i], n);
        static const char idn[] = "https://m\xc3\xbcller.eu/", puny[] = "https://xn--mller-kva.eu/";
        cr_expect_eq(rs_shard_of_url(idn, strlen(idn), n), rs_shard_of_url(puny, strlen(puny), n), "IDN n=%u", n);
        cr_expect_eq(rs_shard_of_url("not a url", 9, n), 0);
    }
}

Test(shard, spread)
{
    unsigned count[8] = { 0 };
    char url[64];
    for (int i = 0; i < 8000; i++) {
        snprintf(url, sizeof url, "https://site%d.example.net/x", i);
        count[rs_shard_of_url(url, strlen(url), 8)]++;
    }
    for (int k = 0; k < 8; k++) cr_expect(count[k] > 800 && count[k] < 1200, "shard %d: %u", k, count[k]);
}

Test(stats_json, keyed_list_order_and_fields)
{
    rs_tally *t = NULL;
    cr_assert_eq(rs_tally_create(2, &t), RS_OK);
    static const char *const keys[] = { "https://b\t9\tdisallow: /x", "https://a\t10\tallow: /\"q",
                                        "https://c\t3\tdisallow: /", "bad" };
    static const uint64_t v[][2] = { { 1, 2 }, { 3, 0 }, { 2, 1 }, { 9, 9 } };
    for (int i = 0; i < 4; i++) {
        uint32_t ix;
        cr_assert_eq(rs_tally_find(t, keys[i], strlen(keys[i]), &ix), RS_OK);
        rs_tally_counters(t, ix)[0] = v[i][0];
        rs_tally_counters(t, ix)[1] = v[i][1];
    }
    static const char *const names[] = { "origin", "#line", "rule" }, *const counters[] = { "a", "b" };
    rs_outbuf b = { 0 };
    cr_assert_eq(rs_tally_json_list(&b, t, names, 3, counters, 2), RS_OK);
    cr_assert_eq(rs_outbuf_append(&b, "", 1), RS_OK);
    cr_expect_str_eq(b.ptr, "[{\"origin\":\"https://a\",\"line\":10,\"rule\":\"allow: /\\\"q\",\"a\":3,\"b\":0},"
                            "{\"origin\":\"https://b\",\"line\":9,\"rule\":\"disallow: /x\",\"a\":1,\"b\":2},"
                            "{\"origin\":\"https://c\",\"line\":3,\"rule\":\"disallow: /\",\"a\":2,\"b\":1}]");
    rs_outbuf_free(&b);
    rs_tally_free(t);
}
