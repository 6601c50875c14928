#!/usr/bin/env python3
"""perf_phases.py PERF_SCRIPT_OUTPUT [SPLIT_SECONDS]: where a `robotscan urls` run's samples went, by
phase of work, from `perf script -F tid,time,ip,sym,dso` output. A symbol is put in a category by its
name (load: read + parse + compile + site lookups; match: scan and matcher walk; spill: partition
files and libzstd; kernel symbols by what they serve: path walks, page faults and frees with
loading, copies and the page cache as io); samples before SPLIT_SECONDS (from the first sample: the
"split" time of `--verbose`) are counted apart from the rest. Name-based, so approximate: a shared
helper (memmove, rs_map_find) lands in one category whatever called it.
Used for bench/RESULTS.md 2026-11-27f (the 1,000,000-site job).
"""
import re,collections,sys
cat = {
 'load': ['rs_matcher_create','rs_robots_parse','on_line','merge_sort','sort_cands','rs_site_lookup_agents','new_site','ascii_host','rs_map_find','pass_resolve','any_missing','compile','trie','rs_sites','load','parse','build','index','intern','dir'],
 'match': ['rs_matcher_match','pass_match','rs_scan_get','pass_lines','rs_matcher_prefetch','rs_find_substr','rs_url_split','pass_group','rs_find_any','mask_url','scan','run_worker','byte_mask','rs_simd'],
 'spill': ['spill','split_line','ZSTD','zstd','HUF','FSE','hll'],
}
kern = {
 'load': ['d_lookup','may_open','path','link_path','walk_component','do_filp_open','open','dput','lookup','alloc_file','fput','close','errseq','clear_page','fault','handle_mm','lru','unmap','zap','readdir','filldir','dentry','inode','getname','kmem_cache','kmalloc','kfree','strncpy_from_user','step_into','generic_permission'],
 'io': ['copy_to_iter','filemap','read','write','copy_from','ext4','iomap','xas','folio'],
}
rows=[]
for l in open(sys.argv[1]):
    m=re.match(r'\s*(\d+)\s+([\d.]+):\s+\S+\s+(\S+)\s+\((.*)\)',l)
    if not m: continue
    rows.append((int(m.group(1)),float(m.group(2)),m.group(3),m.group(4)))
t0=min(r[1] for r in rows); split=float(sys.argv[2]) if len(sys.argv)>2 else 0
def classify(sym,dso):
    if 'zstd' in dso: return 'spill (libzstd)'
    if 'kernel' in dso:
        for c,ks in kern.items():
            if any(k in sym for k in ks): return 'kernel-'+c
        return 'kernel-other'
    for c,ks in cat.items():
        if any(k in sym for k in ks): return c
    if 'libc' in dso: return 'libc '+sym if sym.startswith('__mem') else 'libc-other'
    return 'other'
tot=collections.Counter(); byphase=collections.defaultdict(collections.Counter)
syms=collections.Counter()
for tid,t,sym,dso in rows:
    c=classify(sym,dso); tot[c]+=1
    ph='split' if t-t0<split else 'partitions'
    byphase[ph][c]+=1
    if c in('other','libc-other','kernel-other'): syms[(sym,dso)]+=1
n=len(rows)
print(n,'samples; span %.1f s'%(max(r[1] for r in rows)-t0))
for c,v in tot.most_common(): print('%-34s %5.1f%%'%(c,100*v/n))
for ph,cnt in byphase.items():
    s=sum(cnt.values()); print(ph, s, '%.1f%% of samples'%(100*s/n))
    for c,v in cnt.most_common(8): print('   %-32s %5.1f%%'%(c,100*v/n))
print('unclassified top:', syms.most_common(20))
