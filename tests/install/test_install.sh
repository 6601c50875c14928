#!/usr/bin/env bash
# test_install.sh - `make install` into a temporary DESTDIR with PREFIX=/usr, then:
# a C program built with `pkg-config --cflags --libs robotscan` against that tree
# checks URLs (shared and static linking), examples/bulk_urls.c builds and gives the
# records of `robotscan urls --only disallowed`, the .so exports exactly the stable API
# (every rs_job_* function included),
# every man page renders, the completion and the Python package load, and
# `make uninstall` leaves no file behind.
# Usage (from the repository root, after make): bash tests/install/test_install.sh
# Env: MAKE (default make), BUILD (default build) as in the Makefile.
cd "$(dirname "$0")/../.." || exit 2
. tests/cli/lib/helpers.sh

MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
D=$T/destdir
VERSION=$(sed -n 's/^#define RS_VERSION_STRING "\(.*\)"/\1/p' src/robotscan.h)
[ -n "$VERSION" ] || { echo "FAIL: no RS_VERSION_STRING in src/robotscan.h"; exit 1; }

expect_run "make install" 0 $MAKE --no-print-directory install DESTDIR="$D" PREFIX=/usr BUILD="$BUILD"

for f in usr/bin/robotscan usr/bin/robotscan-dask usr/lib/librobotscan.a usr/lib/librobotscan.so.$VERSION usr/include/robotscan.h \
         usr/lib/pkgconfig/robotscan.pc usr/share/man/man1/robotscan.1 usr/share/man/man1/robotscan-check.1 \
         usr/share/man/man1/robotscan-urls.1 usr/share/man/man1/robotscan-logs.1 \
         usr/share/man/man1/robotscan-lint.1 usr/share/bash-completion/completions/robotscan \
         usr/share/man/man1/robotscan-shard.1 usr/share/man/man1/robotscan-merge.1 \
         usr/share/man/man1/robotscan-survey.1 usr/share/man/man1/robotscan-sitemaps.1 \
         usr/share/man/man1/robotscan-diff.1 usr/share/man/man1/robotscan-report.1 \
         usr/lib/python3/dist-packages/robotscan/__init__.py \
         usr/lib/python3/dist-packages/robotscan/scrapy.py \
         usr/lib/python3/dist-packages/robotscan/compat.py; do
    [ -f "$D/$f" ] || fail "not installed: /$f"
done
for l in librobotscan.so librobotscan.so.${VERSION%%.*}; do
    [ -L "$D/usr/lib/$l" ] && [ -e "$D/usr/lib/$l" ] || fail "not a working symlink: /usr/lib/$l"
done

# --version of the installed binary
expect_run "--version" 0 "$D/usr/bin/robotscan" --version
expect_out "--version" "robotscan $VERSION
"

# A ten-line C program, compiled through pkg-config against the DESTDIR tree.
cat > "$T/prog.c" <<'C'
#include <robotscan.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    const char *body = "User-agent: *\nDisallow: /private\n", *url = argc > 1 ? argv[1] : "/";
    rs_check_result r;
    char rule[64];
    if (rs_check(body, strlen(body), "Googlebot", 9, url, strlen(url), 0, &r, rule, sizeof rule) != RS_OK) return 2;
    printf("%s %s line %u %s\n", rs_version_string(), r.disallowed ? "disallow" : "allow", r.line, rule);
    return r.disallowed;
}
C
export PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_PATH=$D/usr/lib/pkgconfig
flags=$(pkg-config --cflags --libs robotscan) || fail "pkg-config --cflags --libs robotscan failed"
case $flags in *"-I$D/usr/include"*) ;; *) fail "pkg-config cflags do not point into DESTDIR: $flags" ;; esac
expect_run "compile (shared)" 0 cc -std=c99 -Wall -Wextra -Werror -o "$T/prog" "$T/prog.c" $flags
readelf -d "$T/prog" 2>/dev/null | grep -q 'NEEDED.*librobotscan.so.'"${VERSION%%.*}" \
    || fail "prog does not need librobotscan.so.${VERSION%%.*}"
expect_run "run (shared)" 1 env LD_LIBRARY_PATH="$D/usr/lib" "$T/prog" "https://example.com/private/x"
expect_out "run (shared)" "$VERSION disallow line 2 /private
"
expect_run "run (shared), allowed" 0 env LD_LIBRARY_PATH="$D/usr/lib" "$T/prog" "https://example.com/public"
expect_out "run (shared), allowed" "$VERSION allow line 0 
"
# Static: librobotscan.a plus Libs.private must be enough.
private=$(pkg-config --static --libs-only-l robotscan | sed 's/-lrobotscan//')
expect_run "compile (static)" 0 cc -std=c99 -o "$T/prog_static" "$T/prog.c" $(pkg-config --cflags robotscan) \
    "$D/usr/lib/librobotscan.a" $private
expect_run "run (static)" 1 "$T/prog_static" "/private"
readelf -d "$T/prog_static" | grep -q 'NEEDED.*librobotscan' && fail "prog_static needs the shared library"

# examples/bulk_urls.c: a 2-worker, 64 MiB urls job on the stable API only (no
# RS_STATIC_LINKING_ONLY), built through pkg-config against the installed header and
# shared library; its disallowed records are those of `robotscan urls --only disallowed`.
grep -q '^#define RS_STATIC_LINKING_ONLY' examples/bulk_urls.c && fail "examples/bulk_urls.c asks for the static-linking-only API"
expect_run "compile examples/bulk_urls.c (shared)" 0 cc -std=c99 -pedantic -Wall -Wextra -Werror -o "$T/bulk_urls" \
    examples/bulk_urls.c $flags
readelf -d "$T/bulk_urls" 2>/dev/null | grep -q 'NEEDED.*librobotscan.so.'"${VERSION%%.*}" \
    || fail "bulk_urls does not need librobotscan.so.${VERSION%%.*}"
# the bundled data, then 9,000 sites: past what 64 MiB holds (SPILL_GATE_HOSTS, 8,192), partitioned
mkdir -p "$T/many/robots"
/usr/bin/python3 - "$T/many" <<'PY'
import sys
d = sys.argv[1]
for i in range(9000):
    with open(f"{d}/robots/s{i}.example.com.txt", "w") as f:
        f.write(f"User-agent: *\nDisallow: /p{i % 7}\nAllow: /p{i % 7}/ok\n")
with open(f"{d}/urls.txt", "w") as f:
    for i in range(40000):
        f.write(f"https://s{(i * 7919) % 9100}.example.com/p{i % 9}/{'ok' if i % 5 == 0 else 'x'}?i={i}\n")
PY
for run in "data/robots data/frontier.txt" "data/robots data/example-urls.txt" "$T/many/robots $T/many/urls.txt"; do
    set -- $run
    expect_run "bulk_urls $2" 0 env LD_LIBRARY_PATH="$D/usr/lib" "$T/bulk_urls" "$1" "$2"
    mv "$T/out" "$T/bulk.out"
    mv "$T/err" "$T/bulk.err"
    expect_run "robotscan urls --only disallowed $2" 0 "$D/usr/bin/robotscan" urls --robots "$1" --agent Googlebot \
        --only disallowed --format tsv -j 2 --memory-limit 64M "$2"
    diff -u "$T/out" "$T/bulk.out" > "$T/bulkdiff" || fail "bulk_urls $2 differs from robotscan urls: $(head -c 600 "$T/bulkdiff")"
    grep -q "$(printf '\tdisallow\t')" "$T/bulk.out" || fail "bulk_urls $2: no disallowed record"
    records=$(($(wc -l < "$T/bulk.out") - 1))
    grep -Eq "^lines [0-9]+, URLs [0-9]+: allowed [0-9]+, disallowed $records; malformed [0-9]+; partitions [0-9]+" \
        "$T/bulk.err" || fail "bulk_urls $2: no totals with $records disallowed: $(head -c 300 "$T/bulk.err")"
done
grep -q "partitions [1-9]" "$T/bulk.err" || fail "bulk_urls over 9,000 sites did not partition: $(cat "$T/bulk.err")"
expect_run "bulk_urls usage" 2 env LD_LIBRARY_PATH="$D/usr/lib" "$T/bulk_urls"
expect_run "bulk_urls, a missing robots path" 1 env LD_LIBRARY_PATH="$D/usr/lib" "$T/bulk_urls" "$T/nowhere" data/frontier.txt
expect_err "bulk_urls, a missing robots path" "$T/nowhere"

# Every rs_job_* function of the header (and rs_parse_size) is exported by the built shared library.
grep -o '^RS_API [^(]*\b\(rs_job_[a-z_]*\|rs_parse_size\)(' src/robotscan.h | sed 's/($//; s/.*[ *]//' | sort -u > "$T/jobapi"
[ "$(wc -l < "$T/jobapi")" -ge 20 ] || fail "expected at least 20 rs_job_* functions in the header: $(cat "$T/jobapi")"
nm -D --defined-only "$BUILD/librobotscan.so" | awk '$2 == "T" {print $3}' | sort -u > "$T/so_exports"
missing=$(comm -23 "$T/jobapi" "$T/so_exports")
[ -z "$missing" ] || fail "not exported by $BUILD/librobotscan.so: $missing"

# The shared library exports exactly the stable API: the RS_API functions declared
# before the "Static-linking-only API" banner of the header (robotscan.h's own
# definition; blocks with their own guards may sit after the main one), and nothing else.
sed -n '1,/===== Static-linking-only API =====/p' src/robotscan.h | grep '^RS_API ' \
    | sed 's/(.*//; s/.*[ *]//' | sort -u > "$T/api"
nm -D --defined-only "$D/usr/lib/librobotscan.so.$VERSION" | awk '$2 ~ /^[TtWw]$/ {print $3}' | sort -u > "$T/exported"
[ -s "$T/api" ] || fail "no RS_API declarations found in the header"
diff -u "$T/api" "$T/exported" > "$T/apidiff" || fail "exported symbols != stable API: $(cat "$T/apidiff")"
grep -q '^rs_map_\|^rs_read_body$' "$T/exported" && fail "internal symbols exported"
nm -D --defined-only "$D/usr/lib/librobotscan.so.$VERSION" | awk '$2 !~ /^[TtWw]$/ {print}' | grep . \
    && fail "non-function symbols exported"
readelf -d "$D/usr/lib/librobotscan.so.$VERSION" | grep -q "SONAME.*\[librobotscan.so.${VERSION%%.*}\]" \
    || fail "soname is not librobotscan.so.${VERSION%%.*}"

# The stable header alone compiles as C and C++ (no static-only type leaks into it).
printf '#include <robotscan.h>\nint main(void) { return rs_version_number() != RS_VERSION_NUMBER; }\n' > "$T/h.c"
expect_run "header: C99 -pedantic" 0 cc -std=c99 -pedantic -Wall -Wextra -Werror -I"$D/usr/include" -c "$T/h.c" -o "$T/h.o"
if command -v c++ >/dev/null; then
    cp "$T/h.c" "$T/h.cc"
    expect_run "header: C++" 0 c++ -Wall -Wextra -Werror -I"$D/usr/include" -c "$T/h.cc" -o "$T/hh.o"
else
    skip "C++ header check" "no c++ compiler"
fi

# Man pages render without warnings and say what they are.
for m in "$D"/usr/share/man/man1/*.1; do
    name=$(basename "$m" .1)
    MANWIDTH=80 man --warnings -l "$m" > "$T/man.out" 2> "$T/man.err" || fail "man -l $name failed"
    [ -s "$T/man.err" ] && fail "man -l $name warns: $(head -c 300 "$T/man.err")"
    grep -q "^NAME" "$T/man.out" && grep -q "$name" "$T/man.out" || fail "man -l $name: no NAME section"
    grep -q '@VERSION@' "$m" && fail "$name: @VERSION@ not filled in"
done
# every page of man/ is installed (robotscan, check, urls, logs, lint, shard, merge, survey, sitemaps, diff, report)
[ "$(ls "$D"/usr/share/man/man1/*.1 | wc -l)" = "$(ls man/*.1 | wc -l)" ] || fail "not every man page of man/ is installed"
[ "$(ls man/*.1 | wc -l)" -ge 11 ] || fail "expected at least 11 man pages"

# Bash completion loads and completes commands and option values.
out=$(PATH="$D/usr/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(robotscan ur); COMP_CWORD=1; _robotscan; echo "${COMPREPLY[*]}";
               COMP_WORDS=(robotscan check --format ""); COMP_CWORD=3; _robotscan; echo "${COMPREPLY[*]}"' \
      _ "$D/usr/share/bash-completion/completions/robotscan")
[ "$out" = "urls
text tsv csv jsonl" ] || fail "completion: got '$out'"

# The installed Python package imports and checks (library given by ROBOTSCAN_LIB).
expect_run "python import" 0 env -u PYTHONPATH PYTHONPATH="$D/usr/lib/python3/dist-packages" \
    ROBOTSCAN_LIB="$D/usr/lib/librobotscan.so.${VERSION%%.*}" /usr/bin/python3 -c '
import robotscan, sys
assert robotscan.__file__.startswith(sys.argv[1]), robotscan.__file__
r = robotscan.Robots(b"User-agent: *\nDisallow: /x\n")
print(r.allowed("https://a.com/x", "bot"), r.allowed("https://a.com/y", "bot"))' "$D"
expect_out "python import" "False True
"
grep -q "LIBDIR = \"/usr/lib\"" "$D/usr/lib/python3/dist-packages/robotscan/_config.py" \
    || fail "_config.py does not record LIBDIR /usr/lib"

# make uninstall leaves no file or link behind.
expect_run "make uninstall" 0 $MAKE --no-print-directory uninstall DESTDIR="$D" PREFIX=/usr BUILD="$BUILD"
left=$(find "$D" ! -type d)
[ -z "$left" ] || fail "left behind after uninstall: $left"
[ -d "$D/usr/lib" ] || fail "uninstall test proves nothing: $D/usr/lib is gone"

finish
