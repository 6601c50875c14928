/*
 * test_simd.c - every kernel implementation the CPU can run, compared with
 * the scalar twin (and with a naive check) on a shared case table, each case
 * re-run at several offsets with poison bytes on both sides, on every
 * newline position of 64/128-byte windows, and on random buffers.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robotscan.h"
#include "simd/simd.h"

#define MAX_PAD 40

/* The sets under test other than scalar; the scalar set is the reference. */
static const rs_simd_kernels *impl(size_t i) { return rs_simd_get(rs_simd_impl_at(i)); }

static size_t naive_find(const char *p, size_t n, int (*in)(unsigned char))
{
    for (size_t i = 0; i < n; i++) if (in((unsigned char)p[i])) return i;
    return n;
}
static int is_nl(unsigned char c) { return c == '\n'; }
static int is_url_stop(unsigned char c) { return c == '/' || c == '?' || c == ';' || c == '#' || c == 0; }

static rs_byteset url_stops(void)
{
    rs_byteset set;
    cr_assert_eq(rs_byteset_init(&set, "/?;#\0", 5), RS_OK);
    return set;
}

/*
 * Runs every kernel of every implementation on data[0..n) placed at each
 * offset 0..MAX_PAD of a heap buffer whose surrounding bytes are @poison (a
 * newline and a set member, so an over-read changes the answer), and on an
 * exact-size heap copy (ASan sees any over-read).
 */
static void check_all(const char *data, size_t n, char poison)
{
    const rs_byteset set = url_stops();
    size_t want_nl = naive_find(data, n, is_nl);
    size_t want_any = naive_find(data, n, is_url_stop);
    size_t want_count = 0;
    for (size_t i = 0; i < n; i++) want_count += data[i] == '\n';

    char *buf = malloc(n + 2 * MAX_PAD + 1);
    char *exact = malloc(n ? n : 1);
    cr_assert(buf && exact);
    memcpy(exact, data, n);
    for (size_t i = 0; rs_simd_impl_at(i); i++) {
        const rs_simd_kernels *k = impl(i);
        if (k == NULL) {
            cr_log_warn("kernel set %s not supported by this CPU: not tested", rs_simd_impl_at(i));
            fprintf(stderr, "SKIP: simd: kernel set %s: not supported by this CPU\n", rs_simd_impl_at(i));
            continue;
        }
        for (size_t off = 0; off <= MAX_PAD; off++) {
            memset(buf, poison, n + 2 * MAX_PAD + 1);
            memcpy(buf + off, data, n);
            const char *p = buf + off;
            cr_assert_eq(k->find_newline(p, n), want_nl, "%s find_newline n=%zu off=%zu", k->name, n, off);
            cr_assert_eq(k->count_newlines(p, n), want_count, "%s count_newlines n=%zu off=%zu", k->name, n, off);
            cr_assert_eq(k->find_any(p, n, &set), want_any, "%s find_any n=%zu off=%zu", k->name, n, off);
        }
        cr_assert_eq(k->find_newline(exact, n), want_nl);
        cr_assert_eq(k->count_newlines(exact, n), want_count);
        cr_assert_eq(k->find_any(exact, n, &set), want_any);
    }
    free(buf);
    free(exact);
}

Test(simd, scalar_is_always_available)
{
    cr_assert_str_eq(rs_simd_impl_at(0), "scalar");
    cr_assert_not_null(rs_simd_get("scalar"));
    cr_assert_null(rs_simd_get("neon-on-x86-or-nonsense"));
    cr_assert_eq(rs_simd_get(NULL), rs_simd_active());
}

Test(simd, dispatch_honours_env_override)
{
    const char *env = getenv("RS_SIMD");
    const char *name = rs_simd_impl_name();
    int known = 0;
    for (size_t i = 0; rs_simd_impl_at(i); i++) known |= strcmp(rs_simd_impl_at(i), name) == 0;
    cr_assert(known, "active set %s is not a compiled-in set", name);
#ifdef RS_SIMD_FORCE                         /* the tests are built with the library's flags */
#  define STR2(x) #x
#  define STR(x) STR2(x)
    (void)env;
    cr_assert_str_eq(name, STR(RS_SIMD_FORCE), "-DRS_SIMD_FORCE=%s ignored", STR(RS_SIMD_FORCE));
#else
    if (env && rs_simd_get(env)) cr_assert_str_eq(name, env, "RS_SIMD=%s ignored", env);
#endif
    cr_log_info("active kernel set: %s", name);
}

Test(simd, case_table)
{
    static const struct { const char *s; size_t n; } cases[] = {
#define C(lit) { lit, sizeof(lit) - 1 }
        C(""), C("\n"), C("a"), C("a\n"), C("\na"), C("\n\n\n"), C("abc\ndef\n"),
        C("/"), C("?"), C("#"), C(";"), C("\0"), C("abc\0def"), C("no newline at all here"),
        C("http://example.com/path?q=1#frag\nnext"),
        C("exactly sixteen!"), C("exactly sixteen!\n"), C("\nexactly sixteen!"),
        C("thirty-one bytes without any nl"), C("thirty-two bytes, without any nl"),
        C("thirty-three bytes, without any n"),
        C("\x8a\x0a\xff\x80\x7f\x0b\x09\x0d"),       /* near misses and high bytes */
        C("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
          "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\n"),
        C("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"),
        C("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"),
        C("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0\n"),
        C("\r\n\r\n\r\n"),
#undef C
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        check_all(cases[c].s, cases[c].n, '\n');
        check_all(cases[c].s, cases[c].n, '/');
        check_all(cases[c].s, cases[c].n, 'x');
    }
}

/* Every single and double newline (or stop byte) position in windows up to 130 bytes. */
Test(simd, every_position_in_window)
{
    char buf[130];
    for (size_t n = 0; n <= sizeof buf; n++) {
        for (size_t pos = 0; pos < n; pos++) {
            memset(buf, 'x', n);
            buf[pos] = '\n';
            check_all(buf, n, '\n');
            memset(buf, 'x', n);
            buf[pos] = '?';
            check_all(buf, n, '\n');
        }
        if (n == 64 || n == 128 || n == 130) {
            for (size_t a = 0; a < n; a++)
                for (size_t b = a + 1; b < n; b += 7) {
                    memset(buf, 'y', n);
                    buf[a] = '\n';
                    buf[b] = '\n';
                    check_all(buf, n, 'z');
                }
        }
    }
}

Test(simd, random_buffers)
{
    unsigned seed = 12345;
    char *buf = malloc(20000);
    cr_assert_not_null(buf);
    for (int round = 0; round < 300; round++) {
        const size_t n = (size_t)(rand_r(&seed) % 20000);
        const int density = 1 + rand_r(&seed) % 200;           /* 1 in density bytes is special */
        for (size_t i = 0; i < n; i++) {
            const int r = rand_r(&seed);
            if (r % density == 0) buf[i] = "\n/?;#\0\r"[(r >> 8) % 7];
            else buf[i] = (char)(33 + (r >> 8) % 223);        /* 33..255: no \n, \r, NUL */
            if (buf[i] == '/' || buf[i] == '?' || buf[i] == ';' || buf[i] == '#') buf[i] = 'q';
        }
        const rs_byteset set = url_stops();
        const rs_simd_kernels *s = rs_simd_get("scalar");
        for (size_t i = 0; rs_simd_impl_at(i); i++) {
            const rs_simd_kernels *k = impl(i);
            if (k == NULL) continue;
            /* walk the buffer like a line splitter would */
            size_t at = 0;
            while (at <= n) {
                const size_t a = k->find_newline(buf + at, n - at);
                cr_assert_eq(a, s->find_newline(buf + at, n - at), "%s at %zu", k->name, at);
                at += a + 1;
            }
            cr_assert_eq(k->count_newlines(buf, n), s->count_newlines(buf, n), "%s n=%zu", k->name, n);
            cr_assert_eq(k->find_any(buf, n, &set), s->find_any(buf, n, &set), "%s n=%zu", k->name, n);
        }
    }
    free(buf);
}

/* The byte counters of the vector count kernels are flushed before they overflow. */
Test(simd, count_many_newlines)
{
    const size_t n = 1000003;
    char *buf = malloc(n);
    cr_assert_not_null(buf);
    memset(buf, '\n', n);
    for (size_t i = 0; rs_simd_impl_at(i); i++) {
        const rs_simd_kernels *k = impl(i);
        if (k == NULL) continue;
        cr_assert_eq(k->count_newlines(buf, n), n, "%s", k->name);
        cr_assert_eq(k->count_newlines(buf + 1, n - 1), n - 1, "%s", k->name);
        cr_assert_eq(k->find_newline(buf + 5, n - 5), 0, "%s", k->name);
    }
    memset(buf, 'a', n);
    buf[n - 1] = '\n';
    for (size_t i = 0; rs_simd_impl_at(i); i++) {
        const rs_simd_kernels *k = impl(i);
        if (k == NULL) continue;
        cr_assert_eq(k->count_newlines(buf, n), 1, "%s", k->name);
        cr_assert_eq(k->find_newline(buf, n), n - 1, "%s", k->name);
    }
    free(buf);
}

Test(simd, dispatching_entry_points_agree)
{
    const char s[] = "line one\nline two?x\n#three";
    const rs_byteset set = url_stops();
    cr_assert_eq(rs_simd_find_newline(s, sizeof s - 1), 8);
    cr_assert_eq(rs_simd_count_newlines(s, sizeof s - 1), 2);
    cr_assert_eq(rs_simd_find_any(s, sizeof s - 1, &set), 17);
    cr_assert_eq(rs_simd_find_newline(NULL, 0), 0);
    cr_assert_eq(rs_simd_count_newlines(NULL, 0), 0);
}

Test(simd, byteset_init)
{
    rs_byteset set;
    cr_assert_eq(rs_byteset_init(&set, "aab", 3), RS_OK);
    cr_assert_eq(set.count, 2);
    cr_assert_eq(rs_byteset_init(&set, "0123456789abcdef", 16), RS_OK);
    cr_assert_eq(set.count, 16);
    cr_assert_eq(rs_byteset_init(&set, "0123456789abcdefg", 17), RS_ERR_LIMIT);
    cr_assert_eq(rs_byteset_init(&set, "", 0), RS_OK);
    cr_assert_eq(rs_simd_find_any("abc", 3, &set), 3, "the empty set matches nothing");
    cr_assert_eq(rs_byteset_init(NULL, "a", 1), RS_ERR_USAGE);
    /* a 16-member set with high bytes, on every implementation */
    cr_assert_eq(rs_byteset_init(&set, "\xff\x80\x01 \t\r\n\"'<>\\^`{}", 16), RS_OK);
    char buf[100];
    for (size_t pos = 0; pos < sizeof buf; pos++) {
        memset(buf, 'm', sizeof buf);
        buf[pos] = (char)0x80;
        for (size_t i = 0; rs_simd_impl_at(i); i++) {
            const rs_simd_kernels *k = impl(i);
            if (k) cr_assert_eq(k->find_any(buf, sizeof buf, &set), pos, "%s", k->name);
        }
    }
}

/* ===== find_any on short ranges: every length, every hit position ===== */

static size_t naive_any(const char *p, size_t n, const rs_byteset *set)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < set->count; k++)
            if ((unsigned char)p[i] == set->bytes[k]) return i;
    return n;
}

/*
 * data[0..n) at offsets 0..MAX_PAD of a buffer filled with @poison (a set
 * member, so an over-read changes the answer), and in an exact-size heap copy
 * (ASan sees an over-read); every implementation must give @want.
 */
static void check_any(const char *data, size_t n, const rs_byteset *set, char poison, size_t want)
{
    char *buf = malloc(n + 2 * MAX_PAD + 1);
    char *exact = malloc(n ? n : 1);
    cr_assert(buf && exact);
    memcpy(exact, data, n);
    for (size_t i = 0; rs_simd_impl_at(i); i++) {
        const rs_simd_kernels *k = impl(i);
        if (k == NULL) continue;
        for (size_t off = 0; off <= MAX_PAD; off += off < 8 ? 1 : 9) {
            memset(buf, poison, n + 2 * MAX_PAD + 1);
            memcpy(buf + off, data, n);
            cr_assert_eq(k->find_any(buf + off, n, set), want, "%s find_any n=%zu off=%zu want=%zu",
                         k->name, n, off, want);
        }
        cr_assert_eq(k->find_any(exact, n, set), want, "%s find_any exact n=%zu", k->name, n);
    }
    free(buf);
    free(exact);
}

Test(simd, find_any_every_length_and_hit_position)
{
    rs_byteset sets[4];
    cr_assert_eq(rs_byteset_init(&sets[0], "/", 1), RS_OK);
    cr_assert_eq(rs_byteset_init(&sets[1], "/?;#\0", 5), RS_OK);     /* NUL is a member */
    cr_assert_eq(rs_byteset_init(&sets[2], "\xff\x80\x01 \t\r\n\"'<>\\^`{}", 16), RS_OK);
    cr_assert_eq(rs_byteset_init(&sets[3], "#\0", 2), RS_OK);
    char buf[81];
    for (size_t s = 0; s < 4; s++) {
        const rs_byteset *set = &sets[s];
        const char member = (char)set->bytes[set->count - 1];
        const char poison = (char)set->bytes[0];
        /* filler: a byte near the members but not one ('x' or 0x7f or 0x81) */
        const char fill = s == 2 ? (char)0x81 : (s == 1 ? '.' : 'x');
        for (size_t n = 0; n <= 80; n++) {
            memset(buf, fill, n);
            check_any(buf, n, set, poison, naive_any(buf, n, set));
            cr_assert_eq(naive_any(buf, n, set), n);
            for (size_t pos = 0; pos < n; pos++) {
                memset(buf, fill, n);
                buf[pos] = member;
                check_any(buf, n, set, poison, pos);
                /* a second member later must not win */
                for (size_t later = pos + 1; later < n; later += 5) {
                    buf[later] = poison;
                    check_any(buf, n, set, poison, pos);
                }
            }
        }
    }
}

/* ===== find_substr ===== */

static size_t naive_substr(const char *h, size_t n, const char *s, size_t m)
{
    for (size_t i = 0; i + m <= n; i++) {
        size_t j = 0;
        while (j < m && h[i + j] == s[j]) j++;
        if (j == m) return i;
    }
    return m == 0 ? 0 : n;
}

/*
 * Every implementation on (h, s): at offsets 0..MAX_PAD of buffers whose
 * surrounding bytes are @poison, and on exact-size heap copies of both.
 */
static void check_substr(const char *h, size_t n, const char *s, size_t m, char poison)
{
    const size_t want = naive_substr(h, n, s, m);
    const rs_simd_kernels *scalar = rs_simd_get("scalar");
    cr_assert_eq(scalar->find_substr(h, n, s, m), want, "scalar n=%zu m=%zu", n, m);
    char *hb = malloc(n + 2 * MAX_PAD + 1), *sb = malloc(m + 2 * MAX_PAD + 1);
    char *he = malloc(n ? n : 1), *se = malloc(m ? m : 1);
    cr_assert(hb && sb && he && se);
    memcpy(he, h, n);
    memcpy(se, s, m);
    for (size_t i = 0; rs_simd_impl_at(i); i++) {
        const rs_simd_kernels *k = impl(i);
        if (k == NULL) continue;
        for (size_t off = 0; off <= MAX_PAD; off += off < 4 ? 1 : 13) {
            memset(hb, poison, n + 2 * MAX_PAD + 1);
            memset(sb, poison, m + 2 * MAX_PAD + 1);
            memcpy(hb + off, h, n);
            memcpy(sb + MAX_PAD - off, s, m);
            cr_assert_eq(k->find_substr(hb + off, n, sb + MAX_PAD - off, m), want,
                         "%s find_substr n=%zu m=%zu off=%zu", k->name, n, m, off);
        }
        cr_assert_eq(k->find_substr(he, n, se, m), want, "%s find_substr exact n=%zu m=%zu", k->name, n, m);
    }
    free(hb);
    free(sb);
    free(he);
    free(se);
}

Test(simd, find_substr_case_table)
{
    static const struct { const char *h, *s; } cases[] = {
        { "", "" }, { "", "a" }, { "a", "" }, { "a", "a" }, { "a", "b" }, { "ab", "abc" },
        { "/fish.php", ".php" }, { "/fish.php5", ".php" }, { "/a/b/c/d/e/f/g/h/i/j/k", "/k" },
        { "/print/page/print/x", "print/x" }, { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "aaab" },
        { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaab" },
        { "abababababababababababababababababababababababababababc", "ababc" },
        { "xyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyzxyz", "zx" },
        { "?sort=asc&sort=desc&page=1", "&page=" }, { "no match anywhere in this path at all", "?" },
        { "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz", "xyz0123456789abcdefghij" },
        { "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz",
          "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz" },
        { "\xff\x80\xff\x80\xff\x80\xff\x80\xff\x80\xff\x80\xff\x80\xff\x81", "\x80\xff\x81" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const size_t n = strlen(cases[c].h), m = strlen(cases[c].s);
        check_substr(cases[c].h, n, cases[c].s, m, 'a');
        check_substr(cases[c].h, n, cases[c].s, m, '\0');
        check_substr(cases[c].h, n, cases[c].s, m, cases[c].s[0] ? cases[c].s[0] : 'x');
    }
    check_substr("a\0b\0c", 5, "\0c", 2, 'c');                 /* NUL is an ordinary byte */
    check_substr("a\0b\0c", 5, "b\0", 2, '\0');
}

/* Every needle length 1..20 placed at every position of haystacks 0..80, with near misses around. */
Test(simd, find_substr_every_length_and_position)
{
    char h[81], s[21];
    for (size_t m = 1; m <= 20; m++) {
        for (size_t j = 0; j < m; j++) s[j] = (char)('a' + (j % 3));
        s[m - 1] = 'z';
        for (size_t n = 0; n <= 80; n++) {
            memset(h, 'a', n);
            check_substr(h, n, s, m, 'z');                      /* no occurrence */
            for (size_t pos = 0; pos + m <= n; pos++) {
                memset(h, 'a', n);
                memcpy(h + pos, s, m);
                if (pos >= 2) { memcpy(h, s, m - 1 < pos - 1 ? m - 1 : pos - 1); } /* a near miss first */
                check_substr(h, n, s, m, 'z');
            }
        }
    }
}

/* Random haystacks over a two-letter alphabet: many partial matches, first/last-byte hits. */
Test(simd, find_substr_random)
{
    unsigned seed = 777;
    char h[300], s[40];
    for (int round = 0; round < 20000; round++) {
        const size_t n = (size_t)(rand_r(&seed) % (round < 10000 ? 80 : 300));
        const size_t m = (size_t)(rand_r(&seed) % 12) + (round % 5 == 0 ? (size_t)(rand_r(&seed) % 28) : 0);
        const int alpha = 2 + rand_r(&seed) % 3;
        for (size_t i = 0; i < n; i++) h[i] = (char)("ab\x80"[rand_r(&seed) % alpha]);
        if (n >= m && m && rand_r(&seed) % 2) {
            memcpy(s, h + (size_t)rand_r(&seed) % (n - m + 1), m);   /* an actual substring */
        } else {
            for (size_t i = 0; i < m; i++) s[i] = (char)("ab\x80"[rand_r(&seed) % alpha]);
        }
        check_substr(h, n, s, m, (char)("ab\x80"[round % 3]));
    }
}

Test(simd, find_substr_dispatch)
{
    cr_assert_eq(rs_simd_find_substr("/a/b.php?x", 10, ".php", 4), 4);
    cr_assert_eq(rs_simd_find_substr("/a/b.php?x", 10, ".phx", 4), 10);
    cr_assert_eq(rs_simd_find_substr(NULL, 0, NULL, 0), 0);
    cr_assert_eq(rs_simd_find_substr(NULL, 0, "a", 1), 0);
}

/* ===== mask_any: every length, sets of 1..6 members, against the definition ===== */

Test(simd, mask_any_every_length_against_definition)
{
    unsigned seed = 777;
    static const char members[] = "\"\\\t []x";
    for (unsigned count = 1; count <= 6; count++) {
        rs_byteset set;
        cr_assert_eq(rs_byteset_init(&set, members, count), RS_OK);
        for (size_t n = 0; n <= 300; n++) {
            /* exact-size copy: a read past n shows under ASan */
            char *buf = malloc(n ? n : 1);
            cr_assert_not_null(buf);
            const int density = 1 + rand_r(&seed) % 20;
            for (size_t i = 0; i < n; i++) {
                const int r = rand_r(&seed);
                buf[i] = r % density == 0 ? members[(r >> 8) % 7] : (char)('a' + (r >> 8) % 26);
            }
            uint64_t want[8] = { 0 };
            size_t want_n = 0;
            for (size_t i = 0; i < n; i++)
                if (memchr(members, buf[i], count)) { want[i / 64] |= (uint64_t)1 << (i % 64); want_n++; }
            for (size_t i = 0; rs_simd_impl_at(i); i++) {
                const rs_simd_kernels *k = impl(i);
                if (k == NULL) continue;
                uint64_t got[8];
                memset(got, 0xA5, sizeof got);
                cr_assert_eq(k->mask_any(buf, n, &set, got), want_n, "%s n=%zu count=%u", k->name, n, count);
                for (size_t w = 0; w < (n + 63) / 64; w++)
                    cr_assert_eq(got[w], want[w], "%s n=%zu count=%u word %zu", k->name, n, count, w);
                cr_assert_eq(got[(n + 63) / 64], 0xA5A5A5A5A5A5A5A5ull, "%s n=%zu: wrote past its words",
                             k->name, n);
            }
            free(buf);
        }
    }
    rs_byteset empty;
    cr_assert_eq(rs_byteset_init(&empty, "", 0), RS_OK);
    uint64_t w[2] = { 1, 1 };
    cr_assert_eq(rs_simd_mask_any("abc\"def", 7, &empty, w), 0);
    cr_assert_eq(w[0], 0);
}

/* ===== mask_url (internal): every length, every set, against the definition ===== */

Test(simd, mask_url_every_length_against_definition)
{
    unsigned seed = 4242;
    static const char special[] = "\n/?;#\0/\n\r+3O.";     /* members, and near misses ('+' '3' 'O' '.') */
    for (size_t n = 0; n <= 400; n++) {
        for (int round = 0; round < 4; round++) {
            char *buf = malloc(n ? n : 1);          /* exact size: a read past n shows under ASan */
            cr_assert_not_null(buf);
            const int density = 1 + rand_r(&seed) % 12;
            for (size_t i = 0; i < n; i++) {
                const int r = rand_r(&seed);
                buf[i] = r % density == 0 ? special[(r >> 8) % (sizeof special - 1)]
                       : round == 3 ? (char)(r >> 8)                      /* any byte */
                       : (char)('a' + (r >> 8) % 26);
            }
            uint64_t want[3][8] = { { 0 } };
            for (size_t i = 0; i < n; i++) {
                const char c = buf[i];
                const uint64_t bit = (uint64_t)1 << (i % 64);
                if (c == '\n') want[0][i / 64] |= bit;
                if (c == '/' || c == '?' || c == ';' || c == '#') want[1][i / 64] |= bit;
                if (c == '#' || c == '\0') want[2][i / 64] |= bit;
            }
            for (size_t i = 0; rs_simd_impl_at(i); i++) {
                const rs_simd_kernels *k = impl(i);
                if (k == NULL) continue;
                uint64_t got[3][9];
                memset(got, 0xA5, sizeof got);
                rs_simd_mask_url_of(k)(buf, n, got[0], got[1], got[2]);
                for (int b = 0; b < 3; b++) {
                    for (size_t w = 0; w < (n + 63) / 64; w++)
                        cr_assert_eq(got[b][w], want[b][w], "%s n=%zu bitmap %d word %zu", k->name, n, b, w);
                    cr_assert_eq(got[b][(n + 63) / 64], 0xA5A5A5A5A5A5A5A5ull, "%s n=%zu bitmap %d: wrote past its words",
                                 k->name, n, b);
                }
            }
            /* the dispatching entry point is the active set's */
            uint64_t act[3][9];
            rs_simd_mask_url(buf, n, act[0], act[1], act[2]);
            for (int b = 0; b < 3; b++)
                for (size_t w = 0; w < (n + 63) / 64; w++) cr_assert_eq(act[b][w], want[b][w]);
            free(buf);
        }
    }
}
