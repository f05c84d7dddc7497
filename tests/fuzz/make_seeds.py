#!/usr/bin/env python3
"""Writes the starting corpus of both fuzzers into a folder (default
tests/fuzz/seeds-new/); `-merge=1` then keeps what adds coverage into
tests/fuzz/corpus/ (see README.md). Deterministic."""
import os
import random
import shutil
import sqlite3
import struct
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "fuzz", "seeds-new")
SEEDS = 11  # trace_mutator.cc kSeedNames


def write(sub, name, data):
    d = os.path.join(OUT, sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def tiny_copy(src, keep_rows):
    """A real trace shrunk to a few rows per table, 512-byte pages."""
    tmp = tempfile.mkdtemp()
    dst = os.path.join(tmp, "t.sqlite")
    shutil.copy(src, dst)
    db = sqlite3.connect(dst)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for t in tables:
        try:
            db.execute(f'DELETE FROM "{t}" WHERE rowid NOT IN (SELECT rowid FROM "{t}" ORDER BY rowid LIMIT {keep_rows})')
        except sqlite3.OperationalError:  # WITHOUT ROWID: small key/value tables, kept whole
            pass
    for idx in [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL")]:
        db.execute(f'DROP INDEX "{idx}"')
    db.commit()
    db.execute("PRAGMA page_size = 512")
    db.execute("VACUUM")
    db.close()
    with open(dst, "rb") as f:
        data = f.read()
    shutil.rmtree(tmp)
    return data


def loader_seeds():
    # Raw files: shrunk real traces, then truncated and bit-flipped copies.
    for name in ["overlapped", "launch_graph", "event_pipeline", "racy"]:
        data = tiny_copy(os.path.join(DATA, name + ".sqlite"), 3)
        write("trace_loader", f"raw_tiny_{name}", data)
        if name == "overlapped":
            for cut in [16, 100, 512, len(data) // 2, len(data) - 1]:
                write("trace_loader", f"raw_truncated_{cut}", data[:cut])
            for pos in [18, 28, 56, 60, 100, 600, 1100]:
                flipped = bytearray(data)
                flipped[pos] ^= 0xFF
                write("trace_loader", f"raw_flipped_{pos}", bytes(flipped))
    write("trace_loader", "raw_header_only", b"SQLite format 3\0")
    # Programs of edits (trace_mutator.cc): seed, report flags, edit count,
    # edits..., byte edit count, byte edits.
    for seed in range(SEEDS):
        write("trace_loader", f"edit_none_{seed}", bytes([seed, 0, 0, 0]))
        write("trace_loader", f"edit_nvtx_{seed}", bytes([seed, 1, 0, 0]))
    rng = random.Random(7)
    for i in range(300):
        prog = bytes([rng.randrange(SEEDS), rng.randrange(256), 1 + rng.randrange(8)])
        prog += bytes(rng.randrange(256) for _ in range(rng.randrange(8, 64)))
        if prog[0] == ord("S"):
            continue
        write("trace_loader", f"edit_random_{i:03d}", prog)


def cli_seeds():
    lines = [
        ["report", "a.sqlite"],
        ["report", "a.sqlite", "--nvtx", "measured"],
        ["report", "a.sqlite", "--nvtx", "measured", "--nvtx-instance", "2"],
        ["report", "a.sqlite", "--nvtx", "x' OR '1'='1"],
        ["report", "a.sqlite", "--nvtx", "\"; DROP TABLE kernel; --"],
        ["report", "a.sqlite", "--from", "0", "--to", "1000000"],
        ["report", "a.sqlite", "--from", "-5", "--to", "9223372036854775807", "--absolute"],
        ["report", "a.sqlite", "b.sqlite", "--format", "json", "--top", "3", "--gap-threshold", "0.5"],
        ["report", "a.sqlite", "--format", "csv", "--save"],
        ["report", "n.sqlite", "--window", "whole", "-o", "out.txt"],
        ["report", "a.sqlite", "-o", "a.sqlite"],
        ["diagnose", "a.sqlite", "--nvtx", "measured", "--format", "json"],
        ["diagnose", "b.sqlite", "--from", "10", "--to", "20"],
        ["compare", "b.sqlite", "--", "a.sqlite"],
        ["compare", "--nvtx", "measured", "--noise", "5", "b.sqlite", "--", "a.sqlite"],
        ["compare", "--format", "json", "--goal", "overlap", "--min-overlap", "10", "b.sqlite", "--", "a.sqlite"],
        ["compare", "--nvtx", "whole", "--nvtx-instance", "1", "a.sqlite", "--", "n.sqlite"],
        ["export", "a.sqlite", "--html", "out.html", "--perfetto", "out.json", "--title", "<script>"],
        ["export", "n.sqlite", "--perfetto", "p.json", "--nvtx", "measured", "--max-ops", "1", "--no-analysis"],
        ["export", "a.sqlite", "--html", "h.html", "--from", "0", "--to", "5", "--force"],
        ["report", "--help"],
        ["report", "missing.sqlite"],
    ]
    for i, line in enumerate(lines):
        write("cli_args", f"cmd_{i:02d}", b"\0".join(a.encode() for a in line))


if __name__ == "__main__":
    loader_seeds()
    cli_seeds()
    print("seeds in", OUT)
