"""Writes a TUF repository with N targets for scripts/bench.sh (python-tuf's Metadata API).

Usage: make_repo.py OUT_DIR N

OUT_DIR/root.json is the trusted root (version 1); OUT_DIR/www/metadata/ holds what a server
publishes (consistent snapshots: 1.root.json, timestamp.json, 1.snapshot.json, 1.targets.json);
OUT_DIR/www/targets/ holds the hash-prefixed target files. Targets are `t/<i>.json`, small JSON
documents with a `custom.version` each; one key per role, ed25519.
"""

from __future__ import annotations

import hashlib
import os
import sys
from datetime import datetime, timedelta, timezone

from securesystemslib.signer import CryptoSigner
from tuf.api.metadata import Metadata, MetaFile, Root, Snapshot, TargetFile, Targets, Timestamp
from tuf.api.serialization.json import JSONSerializer

out, count = sys.argv[1], int(sys.argv[2])
expires = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=30)
keys = {role: CryptoSigner.generate_ed25519() for role in ["root", "timestamp", "snapshot", "targets"]}
ser = JSONSerializer(compact=True)

root = Metadata(Root(expires=expires, consistent_snapshot=True))
for role, signer in keys.items():
    root.signed.add_key(signer.public_key, role)
targets = Metadata(Targets(expires=expires))
os.makedirs(f"{out}/www/metadata", exist_ok=True)
os.makedirs(f"{out}/www/targets/t", exist_ok=True)
for i in range(count):
    path = f"t/{i}.json"
    data = b'{"index": %d}\n' % i
    info = TargetFile.from_data(path, data, ["sha256"])
    info.unrecognized_fields["custom"] = {"version": f"1.{i}"}
    targets.signed.targets[path] = info
    with open(f"{out}/www/targets/t/{hashlib.sha256(data).hexdigest()}.{i}.json", "wb") as f:
        f.write(data)


def publish(md: Metadata, role: str, name: str) -> bytes:
    md.sign(keys[role])
    data = md.to_bytes(ser)
    with open(f"{out}/www/metadata/{name}", "wb") as f:
        f.write(data)
    return data


root_bytes = publish(root, "root", "1.root.json")
with open(f"{out}/root.json", "wb") as f:
    f.write(root_bytes)
targets_bytes = publish(targets, "targets", "1.targets.json")
snapshot = Metadata(Snapshot(expires=expires))
snapshot.signed.meta["targets.json"] = MetaFile(version=1)
snapshot_bytes = publish(snapshot, "snapshot", "1.snapshot.json")
timestamp = Metadata(Timestamp(expires=expires))
timestamp.signed.snapshot_meta = MetaFile(version=1)
publish(timestamp, "timestamp", "timestamp.json")
print(f"{count} targets; targets.json {len(targets_bytes)} bytes")
