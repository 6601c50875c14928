/* test_tally.c - string-keyed counters: insert, grow, stable indexes, merge. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "robotscan.h"

Test(tally, counts_and_stable_indexes)
{
    rs_tally *t;
    cr_assert_eq(rs_tally_create(3, &t), RS_OK);
    uint32_t first;
    cr_assert_eq(rs_tally_find(t, "https://a.com", 13, &first), RS_OK);
    rs_tally_counters(t, first)[1] += 5;
    char key[32];
    for (int i = 0; i < 10000; i++) { /* forces several rehashes */
        uint32_t ix;
        const int n = snprintf(key, sizeof key, "host%d", i % 5000);
        cr_assert_eq(rs_tally_find(t, key, (size_t)n, &ix), RS_OK);
        rs_tally_counters(t, ix)[0]++;
    }
    cr_expect_eq(rs_tally_size(t), 5001);
    uint32_t again;
    cr_assert_eq(rs_tally_find(t, "https://a.com", 13, &again), RS_OK);
    cr_expect_eq(again, first);
    cr_expect_eq(rs_tally_counters(t, again)[1], 5);
    uint32_t h7;
    cr_assert_eq(rs_tally_find(t, "host7", 5, &h7), RS_OK);
    cr_expect_eq(rs_tally_counters(t, h7)[0], 2);
    const rs_str k = rs_tally_key(t, h7);
    cr_expect(k.len == 5 && memcmp(k.ptr, "host7", 5) == 0);
    rs_tally_free(t);
    rs_tally_free(NULL);
}

Test(tally, merge_adds_counters)
{
    rs_tally *a, *b;
    cr_assert_eq(rs_tally_create(2, &a), RS_OK);
    cr_assert_eq(rs_tally_create(2, &b), RS_OK);
    uint32_t i;
    rs_tally_find(a, "x", 1, &i); rs_tally_counters(a, i)[0] = 1;
    rs_tally_find(b, "x", 1, &i); rs_tally_counters(b, i)[0] = 2; rs_tally_counters(b, i)[1] = 7;
    rs_tally_find(b, "", 0, &i); rs_tally_counters(b, i)[1] = 3;  /* the empty key is a key */
    cr_assert_eq(rs_tally_merge(a, b), RS_OK);
    cr_expect_eq(rs_tally_size(a), 2);
    rs_tally_find(a, "x", 1, &i);
    cr_expect_eq(rs_tally_counters(a, i)[0], 3);
    cr_expect_eq(rs_tally_counters(a, i)[1], 7);
    rs_tally_find(a, "", 0, &i);
    cr_expect_eq(rs_tally_counters(a, i)[1], 3);
    rs_tally *c;
    cr_assert_eq(rs_tally_create(3, &c), RS_OK);
    cr_expect_eq(rs_tally_merge(a, c), RS_ERR_USAGE);
    rs_tally_free(a);
    rs_tally_free(b);
    rs_tally_free(c);
}
