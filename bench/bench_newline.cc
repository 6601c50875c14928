// bench_newline.cc - the input layer's throughput: newline count and line
// splitting per kernel set against plain memchr, and the reader end to end
// (plain and zstd files) with the line iterator.
//
// Data: the lines of ../shared/data/urls/ada-url-kasztp.txt (real URLs,
// ~46 bytes a line) repeated to ~64 MiB. Set RS_BENCH_MIB to change the size.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <zstd.h>

extern "C" {
#include "robotscan.h"
}

#ifndef RS_SHARED_DIR
#define RS_SHARED_DIR "../shared"
#endif

namespace {

struct Data {
    std::string text;        // the buffer, complete lines
    size_t lines = 0;
    std::string plain_path;  // the same bytes as files, for the reader
    std::string zstd_path;
};

Data &data()
{
    static Data d;
    if (!d.text.empty()) return d;
    const char *path = RS_SHARED_DIR "/data/urls/ada-url-kasztp.txt";
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "bench_newline: cannot open %s\n", path);
        std::exit(2);
    }
    std::string src;
    char tmp[1 << 16];
    size_t k;
    while ((k = std::fread(tmp, 1, sizeof tmp, f)) > 0) src.append(tmp, k);
    std::fclose(f);
    if (src.compare(0, 3, "\xEF\xBB\xBF") == 0) src.erase(0, 3);
    if (!src.empty() && src.back() != '\n') src.push_back('\n');
    const char *mib = std::getenv("RS_BENCH_MIB");
    const size_t target = (mib ? std::strtoul(mib, nullptr, 10) : 64) << 20;
    d.text.reserve(target + src.size());
    while (d.text.size() < target) d.text += src;
    for (char c : d.text) d.lines += c == '\n';

    char dir[] = "/tmp/rs_bench_XXXXXX";
    if (!mkdtemp(dir)) std::exit(2);
    d.plain_path = std::string(dir) + "/urls.txt";
    d.zstd_path = std::string(dir) + "/urls.txt.zst";
    FILE *p = std::fopen(d.plain_path.c_str(), "wb");
    std::fwrite(d.text.data(), 1, d.text.size(), p);
    std::fclose(p);
    std::string z(ZSTD_compressBound(d.text.size()), '\0');
    const size_t zn = ZSTD_compress(&z[0], z.size(), d.text.data(), d.text.size(), 3);
    if (ZSTD_isError(zn)) std::exit(2);
    FILE *zf = std::fopen(d.zstd_path.c_str(), "wb");
    std::fwrite(z.data(), 1, zn, zf);
    std::fclose(zf);
    std::atexit([] {
        std::remove(data().plain_path.c_str());
        std::remove(data().zstd_path.c_str());
        std::string dir_path = data().plain_path.substr(0, data().plain_path.rfind('/'));
        rmdir(dir_path.c_str());
    });
    return d;
}

void set_counters(benchmark::State &st, size_t bytes, size_t lines)
{
    st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * bytes));
    st.counters["lines/s"] = benchmark::Counter(static_cast<double>(st.iterations() * lines),
                                                benchmark::Counter::kIsRate);
}

void bm_count(benchmark::State &st, const rs_simd_kernels *k)
{
    const Data &d = data();
    for (auto _ : st) benchmark::DoNotOptimize(k->count_newlines(d.text.data(), d.text.size()));
    set_counters(st, d.text.size(), d.lines);
}

// Line splitting as a consumer does it: find each '\n', touch the line.
void bm_split(benchmark::State &st, const rs_simd_kernels *k)
{
    const Data &d = data();
    for (auto _ : st) {
        const char *p = d.text.data(), *end = p + d.text.size();
        size_t sum = 0;
        while (p < end) {
            const size_t n = k->find_newline(p, static_cast<size_t>(end - p));
            sum += n;
            p += n + 1;
        }
        benchmark::DoNotOptimize(sum);
    }
    set_counters(st, d.text.size(), d.lines);
}

void bm_split_memchr(benchmark::State &st)
{
    const Data &d = data();
    for (auto _ : st) {
        const char *p = d.text.data(), *end = p + d.text.size();
        size_t sum = 0;
        while (p < end) {
            const char *nl = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
            if (!nl) nl = end;
            sum += static_cast<size_t>(nl - p);
            p = nl + 1;
        }
        benchmark::DoNotOptimize(sum);
    }
    set_counters(st, d.text.size(), d.lines);
}

// The rs_lines iterator over one in-memory block (no I/O).
void bm_lines_iterator(benchmark::State &st)
{
    const Data &d = data();
    rs_block b{};
    b.ptr = d.text.data();
    b.len = d.text.size();
    b.first_line = 1;
    b.lines = d.lines;
    for (auto _ : st) {
        rs_lines it;
        rs_line ln;
        rs_lines_init(&it, &b);
        size_t sum = 0;
        while (rs_line_next(&it, &ln)) sum += ln.text.len;
        benchmark::DoNotOptimize(sum);
    }
    set_counters(st, d.text.size(), d.lines);
}

// End to end: open, read blocks, iterate lines (page cache warm).
void bm_reader(benchmark::State &st, bool zstd)
{
    const Data &d = data();
    const std::string &path = zstd ? d.zstd_path : d.plain_path;
    for (auto _ : st) {
        rs_reader *r = nullptr;
        if (rs_reader_open(path.c_str(), nullptr, &r) != RS_OK) {
            st.SkipWithError(rs_reader_errmsg(r));
            rs_reader_free(r);
            return;
        }
        rs_block b;
        size_t sum = 0, lines = 0;
        while (rs_reader_next_block(r, &b) == RS_OK) {
            rs_lines it;
            rs_line ln;
            rs_lines_init(&it, &b);
            while (rs_line_next(&it, &ln)) {
                sum += ln.text.len;
                lines++;
            }
        }
        rs_reader_free(r);
        if (lines != d.lines) st.SkipWithError("wrong line count");
        benchmark::DoNotOptimize(sum);
    }
    set_counters(st, d.text.size(), d.lines);
}

// What the zstd library alone costs: decompress into a reused buffer.
void bm_zstd_only(benchmark::State &st)
{
    const Data &d = data();
    FILE *f = std::fopen(d.zstd_path.c_str(), "rb");
    std::string z;
    char tmp[1 << 16];
    size_t k;
    while ((k = std::fread(tmp, 1, sizeof tmp, f)) > 0) z.append(tmp, k);
    std::fclose(f);
    std::string out(1 << 20, '\0');
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    for (auto _ : st) {
        ZSTD_DCtx_reset(dc, ZSTD_reset_session_only);
        ZSTD_inBuffer in{z.data(), z.size(), 0};
        size_t total = 0;
        while (in.pos < in.size) {
            ZSTD_outBuffer o{&out[0], out.size(), 0};
            if (ZSTD_isError(ZSTD_decompressStream(dc, &o, &in))) break;
            total += o.pos;
        }
        benchmark::DoNotOptimize(total);
    }
    ZSTD_freeDCtx(dc);
    set_counters(st, d.text.size(), d.lines);
}

int register_all()
{
    for (size_t i = 0; rs_simd_impl_at(i); i++) {
        const rs_simd_kernels *k = rs_simd_get(rs_simd_impl_at(i));
        if (!k) continue;
        benchmark::RegisterBenchmark((std::string("count_newlines/") + k->name).c_str(), bm_count, k)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark((std::string("split_lines/") + k->name).c_str(), bm_split, k)
            ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark("split_lines/memchr", bm_split_memchr)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("rs_lines_iterator", bm_lines_iterator)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("reader+lines/plain", bm_reader, false)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("reader+lines/zstd", bm_reader, true)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("zstd_decompress_only", bm_zstd_only)->Unit(benchmark::kMillisecond);
    return 0;
}

const int registered = register_all();

}  // namespace

int main(int argc, char **argv)
{
    (void)registered;
    benchmark::Initialize(&argc, argv);
    std::fprintf(stderr, "active kernel set: %s; data: %zu bytes, %zu lines\n", rs_simd_impl_name(),
                 data().text.size(), data().lines);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
