"""Prints the bench's manifest for DIR/model.bin and its chunk index DIR/model.bin.chunks
(relative URLs, resolved against the manifest's own).

    python3 manifest.py DIR VERSION
"""
import hashlib
import json
import os
import sys


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(8 << 20):
            h.update(chunk)
    return h.hexdigest()


d, version = sys.argv[1], sys.argv[2]
model, index = os.path.join(d, "model.bin"), os.path.join(d, "model.bin.chunks")
entry = {
    "id": "model", "url": "model.bin", "version": version,
    "size": os.path.getsize(model), "sha256": sha256(model),
    "chunks": {"url": "model.bin.chunks", "size": os.path.getsize(index), "sha256": sha256(index)},
}
print(json.dumps({"version": version, "assets": [entry]}))
