#!/usr/bin/python3
"""Runs hnswlib on the dataset prepared by annbench and prints the same
figures, for a side-by-side comparison with ragd's HNSW.

Needs Debian's python3-hnswlib and python3-numpy
(apt-get install -y python3-hnswlib python3-numpy). Run it with
/usr/bin/python3: a pyenv python earlier on PATH does not see Debian's
packages.

    /usr/bin/python3 hnswlib_peer.py -data DIR [-workers 2]
"""

import argparse
import json
import os
import resource
import time

import hnswlib
import numpy as np


def load(d):
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    n, q, dims, gtk = meta["n"], meta["queries"], meta["dims"], meta["gt_k"]
    base = np.fromfile(os.path.join(d, "base.f32"), dtype="<f4").reshape(n, dims)
    queries = np.fromfile(os.path.join(d, "queries.f32"), dtype="<f4").reshape(q, dims)
    gt = np.fromfile(os.path.join(d, "gt.i32"), dtype="<i4").reshape(q, gtk)
    return meta, base, queries, gt


def rss_mib():
    # ru_maxrss is the peak resident set in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(index, queries, gt, ef, k=10):
    """One query at a time on one thread, as annbench does; returns recall@k
    and the mean latency in ms (including the Python call overhead, a few
    microseconds)."""
    index.set_ef(ef)
    index.set_num_threads(1)
    hits = 0
    total = 0.0
    for i in range(len(queries)):
        q = queries[i : i + 1]
        t0 = time.perf_counter()
        labels, _ = index.knn_query(q, k=k)
        total += time.perf_counter() - t0
        hits += len(set(labels[0].tolist()) & set(gt[i, :k].tolist()))
    return hits / (k * len(queries)), total * 1000 / len(queries)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-data", required=True)
    ap.add_argument("-m", type=int, default=16)
    ap.add_argument("-efc", type=int, default=200)
    ap.add_argument("-ef", default="10,20,40,80,120,160,180,200,400")
    ap.add_argument("-workers", type=int, default=2)
    ap.add_argument("-churn", type=float, default=0.2)
    a = ap.parse_args()
    efs = [int(x) for x in a.ef.split(",")]

    meta, base, queries, gt = load(a.data)
    n, dims = base.shape
    print(f"dataset: {n} base × {dims}-d, {len(queries)} queries ({meta['source']}); "
          f"M={a.m} efConstruction={a.efc}; hnswlib {getattr(hnswlib, '__version__', '(Debian python3-hnswlib)')}")

    rss0 = rss_mib()
    index = hnswlib.Index(space="cosine", dim=dims)
    index.init_index(max_elements=n, ef_construction=a.efc, M=a.m, random_seed=100)
    labels = np.arange(n)
    t0 = time.perf_counter()
    index.add_items(base, labels, num_threads=a.workers)
    build = time.perf_counter() - t0
    print(f"build: {build:.3f}s with {a.workers} threads, {n / build:.0f} inserts/s")
    print(f"memory: peak RSS grew by {rss_mib() - rss0:.1f} MiB "
          f"(index incl. hnswlib's own copy of the vectors)")

    print("search (one thread), k=10:")
    print(f"  {'ef':>6}  {'recall@10':>9}  {'ms/query':>10}  {'QPS':>8}")
    for ef in efs:
        r, ms = measure(index, queries, gt, ef)
        print(f"  {ef:>6}  {r:>9.4f}  {ms:>10.4f}  {1000 / ms:>8.0f}")

    # Same victims as annbench (rand seeded 7 there; numpy here: the sets
    # differ but have the same size and distribution).
    rng = np.random.default_rng(7)
    victims = rng.permutation(n)[: int(a.churn * n)]
    t0 = time.perf_counter()
    for v in victims:
        index.mark_deleted(int(v))
    dt = time.perf_counter() - t0
    t0 = time.perf_counter()
    # Re-adding a deleted label un-marks it and updates its vector and links.
    index.add_items(base[victims], victims, num_threads=a.workers)
    rt = time.perf_counter() - t0
    print(f"churn: deleted {len(victims)} in {dt:.3f}s ({len(victims) / dt:.0f}/s), "
          f"re-added in {rt:.3f}s ({len(victims) / rt:.0f}/s)")
    print(f"  {'ef':>6}  {'recall@10':>9}  {'ms/query':>10}")
    for ef in efs:
        r, ms = measure(index, queries, gt, ef)
        print(f"  {ef:>6}  {r:>9.4f}  {ms:>10.4f}")


if __name__ == "__main__":
    main()
