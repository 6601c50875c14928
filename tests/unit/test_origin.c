/*
 * test_origin.c - rs_origin_parse / rs_host_canon: the specification's table
 * of robots.txt scopes, IDN, ports, IP literals, malformed lines.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "robotscan.h"

/* Canonical origin of a URL as a static string; "!<error>" when malformed. */
static const char *origin_of(const char *url)
{
    static char out[RS_ORIGIN_MAX + 32];
    char dst[RS_ORIGIN_MAX];
    rs_origin o;
    cr_assert_eq(rs_origin_parse(url, strlen(url), dst, sizeof dst, &o), RS_OK, "%s", url);
    if (o.error != RS_ORIGIN_OK) {
        snprintf(out, sizeof out, "!%s", rs_origin_error_str(o.error));
        cr_assert_null(o.origin.ptr);
        return out;
    }
    cr_assert(o.origin.len > 0 && o.origin.len <= RS_ORIGIN_MAX);
    cr_assert_eq(o.scheme.ptr, dst);
    cr_assert(o.host.ptr == dst + o.scheme.len + 3);
    memcpy(out, o.origin.ptr, o.origin.len);
    out[o.origin.len] = '\0';
    return out;
}

#define ORIGIN_IS(url, want) cr_expect_str_eq(origin_of(url), want, "url %s", url)
#define MALFORMED(url, err) \
    cr_expect_str_eq(origin_of(url), "!" err, "url %s should be malformed (" err ")", url)

/*
 * A robots.txt at @robots_url governs @url: the robots.txt URL's path is
 * /robots.txt at the root and both have the same origin (SPEC 3, the
 * specification's "Examples of valid robots.txt URLs").
 */
static int governs(const char *robots_url, const char *url)
{
    char d1[RS_ORIGIN_MAX], d2[RS_ORIGIN_MAX];
    rs_origin a, b;
    cr_assert_eq(rs_origin_parse(robots_url, strlen(robots_url), d1, sizeof d1, &a), RS_OK);
    cr_assert_eq(rs_origin_parse(url, strlen(url), d2, sizeof d2, &b), RS_OK);
    cr_assert_eq(a.error, RS_ORIGIN_OK, "%s", robots_url);
    cr_assert_eq(b.error, RS_ORIGIN_OK, "%s", url);
    const char *path = strchr(strstr(robots_url, "://") + 3, '/');
    if (path == NULL || strcmp(path, "/robots.txt") != 0) return 0;
    return a.origin.len == b.origin.len && memcmp(a.origin.ptr, b.origin.ptr, a.origin.len) == 0;
}

/* The table in seeds/002 (and 001, 003): each robots.txt URL, valid for / not valid for. */
Test(origin, rfc9309_scope_table)
{
    cr_expect(governs("http://example.com/robots.txt", "http://example.com/"));
    cr_expect(governs("http://example.com/robots.txt", "http://example.com/folder/file"));
    cr_expect(!governs("http://example.com/robots.txt", "http://other.example.com/"));
    cr_expect(!governs("http://example.com/robots.txt", "https://example.com/"));
    cr_expect(!governs("http://example.com/robots.txt", "http://example.com:8181/"));

    cr_expect(governs("http://www.example.com/robots.txt", "http://www.example.com/"));
    cr_expect(!governs("http://www.example.com/robots.txt", "http://example.com/"));
    cr_expect(!governs("http://www.example.com/robots.txt", "http://shop.www.example.com/"));
    cr_expect(!governs("http://www.example.com/robots.txt", "http://www.shop.example.com/"));

    /* Not a valid robots.txt URL: crawlers do not look in subdirectories. */
    cr_expect(!governs("http://example.com/folder/robots.txt", "http://example.com/"));
    cr_expect(!governs("http://example.com/folder/robots.txt", "http://example.com/folder/x"));

    cr_expect(governs("http://www.müller.eu/robots.txt", "http://www.müller.eu/"));
    cr_expect(governs("http://www.müller.eu/robots.txt", "http://www.xn--mller-kva.eu/"));
    cr_expect(!governs("http://www.müller.eu/robots.txt", "http://www.muller.eu/"));

    cr_expect(governs("ftp://example.com/robots.txt", "ftp://example.com/"));
    cr_expect(!governs("ftp://example.com/robots.txt", "http://example.com/"));

    cr_expect(governs("http://212.96.82.21/robots.txt", "http://212.96.82.21/"));
    cr_expect(!governs("http://212.96.82.21/robots.txt", "http://example.com/"));

    cr_expect(governs("http://example.com:80/robots.txt", "http://example.com:80/"));
    cr_expect(governs("http://example.com:80/robots.txt", "http://example.com/"));
    cr_expect(!governs("http://example.com:80/robots.txt", "http://example.com:81/"));

    cr_expect(governs("http://example.com:8181/robots.txt", "http://example.com:8181/"));
    cr_expect(!governs("http://example.com:8181/robots.txt", "http://example.com/"));

    /* Standard ports (http 80, https 443, ftp 21) equal the bare host name. */
    cr_expect(governs("https://example.com:443/robots.txt", "https://example.com/x"));
    cr_expect(governs("https://example.com/robots.txt", "https://example.com:443/x"));
    cr_expect(!governs("https://example.com/robots.txt", "https://example.com:80/x"));
    cr_expect(governs("ftp://example.com:21/robots.txt", "ftp://example.com/pub"));
}

Test(origin, canonical_strings)
{
    ORIGIN_IS("https://example.com", "https://example.com");
    ORIGIN_IS("https://example.com/a/b?c#d", "https://example.com");
    ORIGIN_IS("HTTPS://EXAMPLE.COM/X", "https://example.com");
    ORIGIN_IS("HtTp://Www.Example.Com:8080/", "http://www.example.com:8080");
    ORIGIN_IS("http://example.com:80/x", "http://example.com");
    ORIGIN_IS("http://example.com:0080/x", "http://example.com");
    ORIGIN_IS("https://example.com:443", "https://example.com");
    ORIGIN_IS("https://example.com:80", "https://example.com:80");
    ORIGIN_IS("http://example.com:443", "http://example.com:443");
    ORIGIN_IS("ftp://example.com:21/pub", "ftp://example.com");
    ORIGIN_IS("ftp://example.com:2121/pub", "ftp://example.com:2121");
    ORIGIN_IS("ws://example.com/x", "ws://example.com");
    ORIGIN_IS("ws://example.com:80/x", "ws://example.com:80");
    ORIGIN_IS("http://example.com:/x", "http://example.com");
    ORIGIN_IS("http://example.com?q", "http://example.com");
    ORIGIN_IS("http://example.com#f", "http://example.com");
    ORIGIN_IS("http://example.com;p", "http://example.com");
    ORIGIN_IS("http://a_b.example.com/", "http://a_b.example.com");
    ORIGIN_IS("http://example.com:65535/", "http://example.com:65535");
}

Test(origin, userinfo_dropped)
{
    ORIGIN_IS("http://user:pw@example.com/x", "http://example.com");
    ORIGIN_IS("https://u@EXAMPLE.com:8443/", "https://example.com:8443");
    ORIGIN_IS("http://a@b@example.com/", "http://example.com");
    ORIGIN_IS("http://user:pw@[::1]:81/", "http://[::1]:81");
}

Test(origin, schemeless_is_http)
{
    ORIGIN_IS("example.com/x", "http://example.com");
    ORIGIN_IS("example.com", "http://example.com");
    ORIGIN_IS("//example.com/x", "http://example.com");
    ORIGIN_IS("Example.COM:8080/x", "http://example.com:8080");
    ORIGIN_IS("example.com:80/x", "http://example.com");
    ORIGIN_IS("  http://example.com/x \r", "http://example.com");
    ORIGIN_IS("\xEF\xBB\xBFhttps://www.sec.gov/edgar.shtml", "https://www.sec.gov");
    /* "://" after the first '/' is not a scheme separator. */
    ORIGIN_IS("example.com/http://other.com/", "http://example.com");
    MALFORMED("mailto:someone@example.com", "bad host");
    ORIGIN_IS("//user@example.com:8080/x", "http://example.com:8080");
    ORIGIN_IS("//example.com:/x", "http://example.com");
    MALFORMED("http:/x", "bad port");
    MALFORMED("javascript:void(0)", "bad port");
}

Test(origin, trailing_dot)
{
    ORIGIN_IS("http://example.com./x", "http://example.com");
    ORIGIN_IS("http://EXAMPLE.com.:8080", "http://example.com:8080");
    MALFORMED("http://example.com../", "bad host");
    MALFORMED("http://./", "bad host");
}

Test(origin, idn)
{
    ORIGIN_IS("http://www.müller.eu/", "http://www.xn--mller-kva.eu");
    ORIGIN_IS("http://www.MÜLLER.eu/", "http://www.xn--mller-kva.eu");
    ORIGIN_IS("http://www.XN--MLLER-KVA.eu/", "http://www.xn--mller-kva.eu");
    ORIGIN_IS("http://www.m%C3%BCller.eu/", "http://www.xn--mller-kva.eu");
    ORIGIN_IS("https://bücher.example:8443/a", "https://xn--bcher-kva.example:8443");
    ORIGIN_IS("http://例え.テスト/", "http://xn--r8jz45g.xn--zckzah");
    ORIGIN_IS("http://münchen.de./", "http://xn--mnchen-3ya.de");
    /* Full-width dot (U+FF0E) is a label separator under UTS#46. */
    ORIGIN_IS("http://example\xef\xbc\x8e" "com/", "http://example.com");
    /* Non-transitional: sharp s is kept (xn--), not mapped to "ss". */
    ORIGIN_IS("http://faß.de/", "http://xn--fa-hia.de");
    MALFORMED("http://\xff\xfe.com/", "bad internationalized host");
    MALFORMED("http://exa\xc3mple.com/", "bad internationalized host");
}

Test(origin, percent_encoded_host)
{
    ORIGIN_IS("http://ex%61mple.com/", "http://example.com");
    ORIGIN_IS("http://EX%41MPLE.com/", "http://example.com");
    MALFORMED("http://ex%2fmple.com/", "bad host");   /* decodes to '/' */
    MALFORMED("http://ex%20mple.com/", "bad host");   /* decodes to ' ' */
    MALFORMED("http://ex%zzmple.com/", "bad host");
    MALFORMED("http://example.com%2/", "bad host");
    MALFORMED("http://ex%2561.com/", "bad host");     /* decoded once only */
}

Test(origin, ipv4)
{
    ORIGIN_IS("http://192.168.0.1/x", "http://192.168.0.1");
    ORIGIN_IS("http://192.168.0.1:8080/x", "http://192.168.0.1:8080");
    ORIGIN_IS("http://212.96.82.21/", "http://212.96.82.21");
    ORIGIN_IS("http://0x7f.1/", "http://127.0.0.1");
    ORIGIN_IS("http://0177.0.0.1/", "http://127.0.0.1");
    ORIGIN_IS("http://2130706433/", "http://127.0.0.1");
    ORIGIN_IS("http://127.0.0.1./", "http://127.0.0.1");
    ORIGIN_IS("http://%31%32%37.0.0.1/", "http://127.0.0.1");
    MALFORMED("http://256.0.0.1/", "bad host");
    MALFORMED("http://1.2.3.4.5/", "bad host");
    MALFORMED("http://1.2.3.09/", "bad host");
    MALFORMED("http://4294967296/", "bad host");
    /* Not ending in a number: a host name, not an address. */
    ORIGIN_IS("http://1.2.3.com/", "http://1.2.3.com");
}

Test(origin, ipv6)
{
    ORIGIN_IS("http://[2001:db8::1]/", "http://[2001:db8::1]");
    ORIGIN_IS("http://[2001:DB8:0:0:0:0:0:1]:8080/x", "http://[2001:db8::1]:8080");
    ORIGIN_IS("https://[2001:0db8:0000:0000:0001:0000:0000:0001]:443/", "https://[2001:db8::1:0:0:1]");
    ORIGIN_IS("http://[::]/", "http://[::]");
    ORIGIN_IS("http://[::1]/", "http://[::1]");
    ORIGIN_IS("http://[1::]/", "http://[1::]");
    ORIGIN_IS("http://[1:0:2:3:4:5:6:7]/", "http://[1:0:2:3:4:5:6:7]");
    ORIGIN_IS("http://[::ffff:1.2.3.4]/", "http://[::ffff:102:304]");
    MALFORMED("http://[2001:db8::1/", "bad host");
    MALFORMED("http://[2001:db8::g]/", "bad host");
    MALFORMED("http://[fe80::1%25eth0]/", "bad host");
    MALFORMED("http://[::1]x/", "bad host");
    MALFORMED("http://[]/", "bad host");
}

Test(origin, malformed_lines)
{
    MALFORMED("", "no host");
    MALFORMED("   ", "no host");
    MALFORMED("http:///x", "no host");
    MALFORMED("http://", "no host");
    MALFORMED("/just/a/path", "no host");
    MALFORMED("?q=1", "no host");
    MALFORMED("http://:80/", "no host");
    MALFORMED("http://user@/", "no host");
    MALFORMED("http://exa mple.com/", "bad host");
    MALFORMED("http://exa\tmple.com/", "bad host");
    MALFORMED("http://example.com\\x/", "bad host");
    MALFORMED("http://exa~mple.com/", "bad host");
    MALFORMED("http://example..com/", "bad host");
    MALFORMED("http://.example.com/", "bad host");
    MALFORMED("garbage here", "bad host");
    MALFORMED("http://example.com:8x/", "bad port");
    MALFORMED("http://example.com:65536/", "bad port");
    MALFORMED("http://example.com:0/", "bad port");
    MALFORMED("http://example.com:-1/", "bad port");
    MALFORMED("http://example.com:99999999999999999999/", "bad port");
    MALFORMED("1http://example.com/", "bad scheme");
    MALFORMED("ht tp://example.com/", "bad scheme");
    MALFORMED("://example.com/", "bad scheme");
    MALFORMED("abcdefghijabcdefghijabcdefghijabc://example.com/", "bad scheme");
}

Test(origin, length_limits)
{
    char url[2048];
    char label[70];
    memset(label, 'a', 63);
    label[63] = '\0';
    snprintf(url, sizeof url, "http://%s.com/", label);
    cr_expect_str_neq(origin_of(url), "!host too long");
    label[63] = 'a';
    label[64] = '\0';
    snprintf(url, sizeof url, "http://%s.com/", label);
    MALFORMED(url, "host too long");

    /* 4 labels of 63 + 3 dots = 255 > 253; 3 x 63 + 61 + dots = 253 fits. */
    memset(label, 'b', 63);
    label[63] = '\0';
    snprintf(url, sizeof url, "http://%s.%s.%s.%s/", label, label, label, label);
    MALFORMED(url, "host too long");
    snprintf(url, sizeof url, "http://%s.%s.%s.%.61s:8080/", label, label, label, label);
    const char *o = origin_of(url);
    cr_expect_eq(strlen(o), strlen("http://") + 253 + 5, "%s", o);

    /* A 1 MiB line is malformed, not a crash. */
    const size_t big = 1 << 20;
    char *huge = malloc(big);
    cr_assert_not_null(huge);
    memcpy(huge, "http://", 7);
    memset(huge + 7, 'x', big - 7);
    char dst[RS_ORIGIN_MAX];
    rs_origin or;
    cr_assert_eq(rs_origin_parse(huge, big, dst, sizeof dst, &or), RS_OK);
    cr_expect_eq(or.error, RS_ORIGIN_TOO_LONG);
    memcpy(huge + 7, "\xc3\xbc", 2); /* non-ASCII: the IDN path must refuse it too */
    cr_assert_eq(rs_origin_parse(huge, big, dst, sizeof dst, &or), RS_OK);
    cr_expect_eq(or.error, RS_ORIGIN_TOO_LONG);
    free(huge);
}

Test(origin, not_nul_terminated)
{
    /* Only len bytes are read: the bytes after them must not matter. */
    const char buf[] = "http://example.com:8080/xyz";
    char dst[RS_ORIGIN_MAX];
    rs_origin o;
    cr_assert_eq(rs_origin_parse(buf, 18, dst, sizeof dst, &o), RS_OK);
    cr_assert_eq(o.error, RS_ORIGIN_OK);
    cr_expect_eq(o.origin.len, 18);
    cr_expect(memcmp(o.origin.ptr, "http://example.com", 18) == 0);
    cr_expect_eq(o.port, 80);
    cr_assert_eq(rs_origin_parse(buf, 20, dst, sizeof dst, &o), RS_OK);
    cr_expect_eq(o.port, 8);
}

Test(origin, fields_and_usage)
{
    char dst[RS_ORIGIN_MAX];
    rs_origin o;
    const char *u = "HTTPS://Example.com:8443/x";
    cr_assert_eq(rs_origin_parse(u, strlen(u), dst, sizeof dst, &o), RS_OK);
    cr_expect_eq(o.scheme.len, 5);
    cr_expect(memcmp(o.scheme.ptr, "https", 5) == 0);
    cr_expect_eq(o.host.len, 11);
    cr_expect(memcmp(o.host.ptr, "example.com", 11) == 0);
    cr_expect_eq(o.port, 8443);
    u = "https://example.com/";
    cr_assert_eq(rs_origin_parse(u, strlen(u), dst, sizeof dst, &o), RS_OK);
    cr_expect_eq(o.port, 443);
    u = "gopher://example.com/";
    cr_assert_eq(rs_origin_parse(u, strlen(u), dst, sizeof dst, &o), RS_OK);
    cr_expect_eq(o.port, 0);
    cr_expect_eq(rs_origin_parse(u, strlen(u), dst, RS_ORIGIN_MAX - 1, &o), RS_ERR_USAGE);
    cr_expect_eq(rs_origin_parse(NULL, 0, dst, sizeof dst, &o), RS_OK);
    cr_expect_eq(o.error, RS_ORIGIN_NO_HOST);
}

Test(origin, host_canon)
{
    char dst[RS_ORIGIN_MAX];
    size_t n = 0;
    cr_assert_eq(rs_host_canon("WWW.Müller.EU", strlen("WWW.Müller.EU"), dst, sizeof dst, &n), RS_ORIGIN_OK);
    cr_expect_eq(n, strlen("www.xn--mller-kva.eu"));
    cr_expect(memcmp(dst, "www.xn--mller-kva.eu", n) == 0);
    cr_assert_eq(rs_host_canon("[::0:1]", 7, dst, sizeof dst, &n), RS_ORIGIN_OK);
    cr_expect_eq(n, 5);
    cr_expect(memcmp(dst, "[::1]", 5) == 0);
    cr_expect_eq(rs_host_canon("a b", 3, dst, sizeof dst, &n), RS_ORIGIN_BAD_HOST);
    cr_expect_eq(rs_host_canon("", 0, dst, sizeof dst, &n), RS_ORIGIN_NO_HOST);
    cr_expect_eq(rs_host_canon("a:1", 3, dst, sizeof dst, &n), RS_ORIGIN_BAD_HOST);
}

/* Every URL of the real list either has an origin or a named error; valid ones round-trip. */
Test(origin, real_url_list)
{
    FILE *f = fopen(RS_SHARED_DIR "/data/urls/ada-url-kasztp.txt", "rb");
    cr_assert_not_null(f);
    char line[1 << 16];
    size_t ok = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\r\n");
        char dst[RS_ORIGIN_MAX], dst2[RS_ORIGIN_MAX];
        rs_origin o, o2;
        cr_assert_eq(rs_origin_parse(line, len, dst, sizeof dst, &o), RS_OK);
        if (o.error != RS_ORIGIN_OK) { bad++; continue; }
        ok++;
        /* Canonical origins are fixed points. */
        cr_assert_eq(rs_origin_parse(o.origin.ptr, o.origin.len, dst2, sizeof dst2, &o2), RS_OK);
        cr_assert_eq(o2.error, RS_ORIGIN_OK, "%.*s", (int)o.origin.len, o.origin.ptr);
        cr_assert_eq(o2.origin.len, o.origin.len);
        cr_assert(memcmp(o2.origin.ptr, o.origin.ptr, o.origin.len) == 0);
        for (size_t i = 0; i < o.origin.len; i++)
            cr_assert((unsigned char)o.origin.ptr[i] < 0x80 && o.origin.ptr[i] != ' ');
    }
    fclose(f);
    cr_log_info("ada-url-kasztp: %zu with origin, %zu malformed", ok, bad);
    cr_expect_gt(ok, 45000);
}

/* Random URL-ish bytes: never a crash or overflow; every origin is a fixed point. */
Test(origin, random_inputs_are_safe)
{
    static const char alphabet[] = "htpsf:/[]@.%-_0123456789abcdefxnAZ?#;: \t\\~\x80\xc3\xbc\xe4\xef\xbc\x8e";
    uint64_t x = 0x9E3779B97F4A7C15ull;
    size_t ok = 0;
    for (int iter = 0; iter < 200000; iter++) {
        char url[96];
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        const size_t len = (size_t)(x % sizeof url);
        /* Half the cases start like a URL so that hosts and ports get exercised. */
        size_t i = 0;
        if (x & 0x100) { memcpy(url, "http://", 7); i = 7; }
        for (; i < len; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            url[i] = alphabet[x % (sizeof alphabet - 1)];
        }
        char dst[RS_ORIGIN_MAX], dst2[RS_ORIGIN_MAX];
        rs_origin o, o2;
        cr_assert_eq(rs_origin_parse(url, len, dst, sizeof dst, &o), RS_OK);
        if (o.error != RS_ORIGIN_OK) continue;
        ok++;
        cr_assert(o.origin.len <= RS_ORIGIN_MAX);
        cr_assert_eq(rs_origin_parse(o.origin.ptr, o.origin.len, dst2, sizeof dst2, &o2), RS_OK);
        cr_assert_eq(o2.error, RS_ORIGIN_OK, "%.*s -> %.*s", (int)len, url, (int)o.origin.len, o.origin.ptr);
        cr_assert(o2.origin.len == o.origin.len && memcmp(o2.origin.ptr, o.origin.ptr, o.origin.len) == 0,
                  "%.*s -> %.*s -> %.*s", (int)len, url, (int)o.origin.len, o.origin.ptr,
                  (int)o2.origin.len, o2.origin.ptr);
    }
    cr_log_info("random: %zu of 200000 had an origin", ok);
    cr_expect_gt(ok, 1000);
}

/* Origin and path come from one split (rs_url_split): where the matcher
 * reads the path, the origin's authority ends, even for odd inputs. */
Test(origin, same_split_as_the_path)
{
    ORIGIN_IS("//http://x/y", "http://x");      /* "//" then a scheme: as the path split reads it */
    ORIGIN_IS("//a://b/x", "a://b");
    ORIGIN_IS("//example.com/x", "http://example.com");
    static const char *const urls[] = {
        "//http://x/y", "//a://b/x", "http://a@b@c/x", "HTTP://Example.COM:80/x", "//h:/x",
        "http://example.com#frag/x", "http://example.com;p=1", "example.com?q", "x://y",
    };
    for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
        const char *u = urls[i];
        const rs_url_parts p = rs_url_split(u, strlen(u));
        char buf[RS_ORIGIN_MAX];
        rs_origin o;
        cr_assert_eq(rs_origin_parse(u, strlen(u), buf, sizeof buf, &o), RS_OK);
        if (o.error != RS_ORIGIN_OK) continue;
        /* the host's raw bytes sit inside [authority, authority_end) */
        const char *h = strchr(u + p.authority, '@') && strchr(u + p.authority, '@') < u + p.authority_end
                        ? strrchr(u, '@') + 1 : u + p.authority;
        cr_expect(h >= u + p.authority && h <= u + p.authority_end, "%s", u);
        cr_expect(strncasecmp(h, o.host.ptr, 1) == 0, "%s: host %.*s starts at %s", u,
                  (int)o.host.len, o.host.ptr, h);
    }
}
