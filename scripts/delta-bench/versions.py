"""Writes the bench's second version of a large file: 1 % of its bytes changed in place (16
regions spread over the file) and a 4 MiB insertion in the middle. Streams; never holds the file.

    python3 versions.py V1 V2 [PERCENT] [INSERT_MIB]
"""
import os
import sys

src, dst = sys.argv[1], sys.argv[2]
percent = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
insert = int(float(sys.argv[4]) * 1048576) if len(sys.argv) > 4 else 4 * 1048576
size = os.path.getsize(src)
regions = 16
region = int(size * percent / 100 / regions)
starts = [int(size * (i + 0.5) / regions) for i in range(regions)]
middle = size // 2
block = 16 << 20
with open(src, "rb") as f, open(dst, "wb") as out:
    pos = 0
    while pos < size:
        n = min(block, size - pos)
        if pos <= middle < pos + n:
            n = middle - pos or n
        data = bytearray(f.read(n))
        for s in starts:
            lo, hi = max(s, pos), min(s + region, pos + n)
            if lo < hi:
                data[lo - pos:hi - pos] = os.urandom(hi - lo)
        out.write(data)
        pos += n
        if pos == middle and insert:
            out.write(os.urandom(insert))
            insert = 0
