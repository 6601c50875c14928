// bench_match.cc - the matching layer's throughput on real robots.txt files:
// parse, compile (one file, and every file of ../shared/data/robots), match
// per URL, URL split, origin parse and site lookup, plus the two kernels the
// hot path uses on short fields (find_any, find_substr), scalar vs SIMD.
//
// Scalar vs SIMD: the kernel benchmarks call each kernel table directly
// (rs_simd_get). The matcher reaches its kernels through the per-process
// dispatch, so the end-to-end match benchmarks are run once per kernel set:
// main() re-executes this binary with RS_SIMD=<set> for them and prints the
// tables one after another (RS_BENCH_CHILD marks the child runs).
//
// Data: ../shared/data/robots/www.etsy.com.txt (1,055 lines, two groups) and
// paths made from its own patterns ('*' filled with words, suffixes added)
// mixed with plain paths, deterministic (seed 42), as scripts/gen-bench-data
// makes them; site lookups over the hosts of ../shared/data/robots.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <random>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern "C" {
#include "robotscan.h"
}

#ifndef RS_SHARED_DIR
#define RS_SHARED_DIR "../shared"
#endif

namespace {

const char *const AGENT = "Googlebot";
const std::string ROBOTS_DIR = RS_SHARED_DIR "/data/robots";

std::string read_file(const std::string &path, size_t limit = 512000)
{
    std::string s;
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) {
        std::fprintf(stderr, "bench_match: cannot open %s\n", path.c_str());
        std::exit(2);
    }
    char tmp[1 << 16];
    size_t k;
    while (s.size() < limit && (k = std::fread(tmp, 1, sizeof tmp, f)) > 0) s.append(tmp, k);
    std::fclose(f);
    if (s.size() > limit) s.resize(limit);
    return s;
}

// The allow/disallow values of a robots.txt that can match a path.
std::vector<std::string> patterns_of(const std::string &body)
{
    std::vector<std::string> out;
    size_t at = 0;
    while (at < body.size()) {
        size_t end = body.find('\n', at);
        if (end == std::string::npos) end = body.size();
        std::string line = body.substr(at, end - at);
        at = end + 1;
        std::string low = line;
        for (char &c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const size_t colon = low.find(':');
        if (colon == std::string::npos) continue;
        const std::string key = low.substr(low.find_first_not_of(" \t"), colon);
        if (key.rfind("allow", 0) != 0 && key.rfind("disallow", 0) != 0) continue;
        size_t v = line.find_first_not_of(" \t", colon + 1);
        if (v == std::string::npos) continue;
        size_t ve = line.find_first_of(" \t\r#", v);
        std::string val = line.substr(v, ve == std::string::npos ? std::string::npos : ve - v);
        if (!val.empty() && (val[0] == '/' || val[0] == '*')) out.push_back(val);
    }
    return out;
}

struct Etsy {
    std::string body;
    std::vector<std::string> paths;      // what the matcher sees
    std::vector<std::string> urls;       // https://www.etsy.com + path
    std::vector<std::string> segments;   // wildcard pattern segments (find_substr needles)
    rs_ruleset *rs = nullptr;
    rs_matcher *m = nullptr;
};

Etsy &etsy()
{
    static Etsy e;
    if (!e.body.empty()) return e;
    e.body = read_file(ROBOTS_DIR + "/www.etsy.com.txt");
    const std::vector<std::string> pats = patterns_of(e.body);
    static const char *const WORDS[] = { "index", "item", "p", "search", "cat", "a", "news", "2020",
                                         "img", "user", "shop", "help", "tag", "list", "page", "en" };
    std::mt19937 rnd(42);
    auto word = [&] { return std::string(WORDS[rnd() % 16]); };
    for (int i = 0; i < 20000; i++) {
        std::string p;
        if (rnd() % 10 < 7) {
            const std::string &pat = pats[rnd() % pats.size()];
            for (char c : pat) {
                if (c == '*') p += word();
                else if (c != '$') p += c;
            }
            if (rnd() % 2) p += std::string(rnd() % 2 ? "/" : "?id=") + word();
        } else {
            const int n = 1 + static_cast<int>(rnd() % 4);
            for (int k = 0; k < n; k++) p += "/" + word();
        }
        e.paths.push_back(p);
        e.urls.push_back("https://www.etsy.com" + p);
    }
    for (const std::string &pat : pats) {
        size_t star = pat.find('*');
        while (star != std::string::npos) {
            const size_t next = pat.find('*', star + 1);
            std::string seg = pat.substr(star + 1, next == std::string::npos ? std::string::npos : next - star - 1);
            if (!seg.empty() && seg.back() == '$') seg.pop_back();
            if (!seg.empty()) e.segments.push_back(seg);
            star = next;
        }
    }
    if (e.segments.empty()) e.segments.push_back("?");
    if (rs_ruleset_parse(e.body.data(), e.body.size(), &e.rs) != RS_OK
        || rs_matcher_create(e.rs, AGENT, std::strlen(AGENT), RS_SEMANTICS_GOOGLE, &e.m) != RS_OK) {
        std::fprintf(stderr, "bench_match: cannot compile the etsy file\n");
        std::exit(2);
    }
    return e;
}

struct AllFiles {
    std::vector<std::string> names;   // host names (file name without .txt)
    std::vector<std::string> bodies;
    size_t bytes = 0;
};

AllFiles &all_files()
{
    static AllFiles a;
    if (!a.bodies.empty()) return a;
    DIR *d = opendir(ROBOTS_DIR.c_str());
    if (!d) {
        std::fprintf(stderr, "bench_match: cannot open %s\n", ROBOTS_DIR.c_str());
        std::exit(2);
    }
    std::vector<std::string> files;
    while (dirent *de = readdir(d)) {
        const std::string n = de->d_name;
        if (n.size() > 4 && n.compare(n.size() - 4, 4, ".txt") == 0 && n[0] != '.') files.push_back(n);
    }
    closedir(d);
    std::sort(files.begin(), files.end());
    for (const std::string &n : files) {
        a.names.push_back(n.substr(0, n.size() - 4));
        a.bodies.push_back(read_file(ROBOTS_DIR + "/" + n));
        a.bytes += a.bodies.back().size();
    }
    return a;
}

void per_item(benchmark::State &st, size_t items, const char *name)
{
    st.counters[name] = benchmark::Counter(static_cast<double>(st.iterations() * items),
                                           benchmark::Counter::kIsRate);
}

// ===== Parse and compile =====

void bm_parse_etsy(benchmark::State &st)
{
    const std::string &b = etsy().body;
    for (auto _ : st) {
        rs_ruleset *rs = nullptr;
        if (rs_ruleset_parse(b.data(), b.size(), &rs) != RS_OK) st.SkipWithError("parse failed");
        rs_ruleset_free(rs);
    }
    st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * b.size()));
}

void bm_compile_etsy(benchmark::State &st)
{
    const Etsy &e = etsy();
    for (auto _ : st) {
        rs_matcher *m = nullptr;
        if (rs_matcher_create(e.rs, AGENT, std::strlen(AGENT), RS_SEMANTICS_GOOGLE, &m) != RS_OK)
            st.SkipWithError("compile failed");
        rs_matcher_free(m);
    }
}

// Every robots.txt of the shared data: parse + compile for Googlebot (SPEC 6: 10,000 files < 1 s).
void bm_parse_compile_all(benchmark::State &st)
{
    const AllFiles &a = all_files();
    for (auto _ : st) {
        for (const std::string &b : a.bodies) {
            rs_ruleset *rs = nullptr;
            rs_matcher *m = nullptr;
            if (rs_ruleset_parse(b.data(), b.size(), &rs) != RS_OK
                || rs_matcher_create(rs, AGENT, std::strlen(AGENT), RS_SEMANTICS_GOOGLE, &m) != RS_OK)
                st.SkipWithError("parse/compile failed");
            rs_matcher_free(m);
            rs_ruleset_free(rs);
        }
    }
    st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * a.bytes));
    per_item(st, a.bodies.size(), "files/s");
    st.SetLabel(std::to_string(a.bodies.size()) + " files");
}

// ===== Matching =====

void bm_match_etsy(benchmark::State &st)
{
    const Etsy &e = etsy();
    size_t disallowed = 0;
    for (auto _ : st) {
        for (const std::string &p : e.paths) {
            rs_verdict v;
            rs_matcher_match(e.m, p.data(), p.size(), &v);
            disallowed += static_cast<size_t>(v.disallowed);
        }
    }
    benchmark::DoNotOptimize(disallowed);
    per_item(st, e.paths.size(), "URLs/s");
    st.SetLabel(std::string("kernels: ") + rs_simd_impl_name());
}

// URL -> path (rs_url_split + rs_url_path_of) -> verdict: the per-URL work of `urls` minus I/O.
void bm_url_to_verdict_etsy(benchmark::State &st)
{
    const Etsy &e = etsy();
    char scratch[4096];
    size_t disallowed = 0;
    for (auto _ : st) {
        for (const std::string &u : e.urls) {
            const rs_url_parts parts = rs_url_split(u.data(), u.size());
            const rs_str path = rs_url_path_of(u.data(), u.size(), &parts, scratch, sizeof scratch);
            rs_verdict v;
            rs_matcher_match(e.m, path.ptr, path.len, &v);
            disallowed += static_cast<size_t>(v.disallowed);
        }
    }
    benchmark::DoNotOptimize(disallowed);
    per_item(st, e.urls.size(), "URLs/s");
    st.SetLabel(std::string("kernels: ") + rs_simd_impl_name());
}

// ===== Kernels on the hot path, every table side by side =====

// find_any over the authority and the path of each URL, as rs_url_split/rs_url_path_of do.
void bm_find_any_urls(benchmark::State &st, const rs_simd_kernels *k)
{
    const Etsy &e = etsy();
    rs_byteset auth_end, path_end;
    rs_byteset_init(&auth_end, "/?;#", 4);
    rs_byteset_init(&path_end, "#\0", 2);
    size_t sum = 0;
    for (auto _ : st) {
        for (const std::string &u : e.urls) {
            const size_t a = 8 + k->find_any(u.data() + 8, u.size() - 8, &auth_end);
            sum += a + k->find_any(u.data() + a, u.size() - a, &path_end);
        }
    }
    benchmark::DoNotOptimize(sum);
    per_item(st, e.urls.size(), "URLs/s");
}

// find_substr of every wildcard segment of the etsy file in a sample of paths.
void bm_find_substr_paths(benchmark::State &st, const rs_simd_kernels *k)
{
    const Etsy &e = etsy();
    size_t sum = 0, calls = 0;
    for (auto _ : st) {
        calls = 0;
        for (size_t i = 0; i < e.paths.size(); i += 8) {
            const std::string &p = e.paths[i];
            for (const std::string &s : e.segments) {
                sum += k->find_substr(p.data(), p.size(), s.data(), s.size());
                calls++;
            }
        }
    }
    benchmark::DoNotOptimize(sum);
    per_item(st, calls, "searches/s");
}

// ===== Origins and sites =====

struct Sites {
    rs_sites *sites = nullptr;
    std::vector<std::string> urls;    // one URL per host of the shared data, shuffled
};

Sites &sites()
{
    static Sites s;
    if (s.sites) return s;
    const char *paths[] = { ROBOTS_DIR.c_str() };
    if (rs_sites_create(paths, 1, &s.sites) != RS_OK) {
        std::fprintf(stderr, "bench_match: rs_sites_create failed\n");
        std::exit(2);
    }
    const AllFiles &a = all_files();
    for (size_t i = 0; i < a.names.size(); i++)
        s.urls.push_back((i % 5 ? "https://" : "http://") + a.names[i] + "/some/path?q=1");
    std::shuffle(s.urls.begin(), s.urls.end(), std::mt19937(7));
    return s;
}

void bm_origin_parse(benchmark::State &st)
{
    const Sites &s = sites();
    char dst[RS_ORIGIN_MAX];
    size_t sum = 0;
    for (auto _ : st) {
        for (const std::string &u : s.urls) {
            rs_origin o;
            rs_origin_parse(u.data(), u.size(), dst, sizeof dst, &o);
            sum += o.origin.len;
        }
    }
    benchmark::DoNotOptimize(sum);
    per_item(st, s.urls.size(), "URLs/s");
}

// Lookups of already-compiled sites (the first pass, outside the timing, compiles them).
void bm_site_lookup(benchmark::State &st)
{
    Sites &s = sites();
    std::vector<rs_origin> origins(s.urls.size());
    std::vector<std::string> bufs(s.urls.size(), std::string(RS_ORIGIN_MAX, '\0'));
    for (size_t i = 0; i < s.urls.size(); i++) {
        rs_origin_parse(s.urls[i].data(), s.urls[i].size(), &bufs[i][0], RS_ORIGIN_MAX, &origins[i]);
        rs_site_result r;
        if (origins[i].error == RS_ORIGIN_OK) rs_site_lookup(s.sites, &origins[i], AGENT, std::strlen(AGENT), &r);
    }
    size_t sum = 0;
    for (auto _ : st) {
        for (const rs_origin &o : origins) {
            if (o.error != RS_ORIGIN_OK) continue;
            rs_site_result r;
            rs_site_lookup(s.sites, &o, AGENT, std::strlen(AGENT), &r);
            sum += r.matcher != nullptr;
        }
    }
    benchmark::DoNotOptimize(sum);
    per_item(st, origins.size(), "lookups/s");
}

int register_all()
{
    if (std::getenv("RS_BENCH_CHILD")) {   // the per-kernel-set runs (see run_match_per_kernel_set)
        benchmark::RegisterBenchmark("match/etsy", bm_match_etsy)->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark("url_to_verdict/etsy", bm_url_to_verdict_etsy)->Unit(benchmark::kMicrosecond);
        return 0;
    }
    benchmark::RegisterBenchmark("parse/etsy", bm_parse_etsy)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("compile/etsy", bm_compile_etsy)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("parse+compile/all_files", bm_parse_compile_all)->Unit(benchmark::kMillisecond);
    for (size_t i = 0; rs_simd_impl_at(i); i++) {
        const rs_simd_kernels *k = rs_simd_get(rs_simd_impl_at(i));
        if (!k) continue;
        benchmark::RegisterBenchmark((std::string("find_any_url_fields/") + k->name).c_str(), bm_find_any_urls, k)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark((std::string("find_substr_segments/") + k->name).c_str(), bm_find_substr_paths, k)
            ->Unit(benchmark::kMicrosecond);
    }
    benchmark::RegisterBenchmark("origin_parse", bm_origin_parse)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("site_lookup", bm_site_lookup)->Unit(benchmark::kMicrosecond);
    return 0;
}

const int registered = register_all();

// The match benchmarks again under each other kernel set, in child processes.
int run_match_per_kernel_set(int argc, char **argv)
{
    int rc = 0;
    for (size_t i = 0; rs_simd_impl_at(i); i++) {
        const char *name = rs_simd_impl_at(i);
        if (!rs_simd_get(name)) continue;
        std::fflush(stdout);
        const pid_t pid = fork();
        if (pid < 0) return 2;
        if (pid == 0) {
            setenv("RS_SIMD", name, 1);
            setenv("RS_BENCH_CHILD", "1", 1);
            std::vector<char *> args(argv, argv + argc);
            std::string filter = "--benchmark_filter=^(match|url_to_verdict)/";
            args.push_back(&filter[0]);
            args.push_back(nullptr);
            execv("/proc/self/exe", args.data());
            _exit(127);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = 2;
    }
    return rc;
}

}  // namespace

int main(int argc, char **argv)
{
    (void)registered;
    const bool child = std::getenv("RS_BENCH_CHILD") != nullptr;
    const int user_argc = argc;
    std::vector<char *> user_args(argv, argv + argc);
    benchmark::Initialize(&argc, argv);
    if (child) {
        std::fprintf(stderr, "== match benchmarks with kernel set %s\n", rs_simd_impl_name());
    } else {
        const AllFiles &a = all_files();
        std::fprintf(stderr, "active kernel set: %s; etsy: %zu paths; %zu robots files (%zu bytes)\n",
                     rs_simd_impl_name(), etsy().paths.size(), a.bodies.size(), a.bytes);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (child) return 0;
    return run_match_per_kernel_set(user_argc, user_args.data());
}
