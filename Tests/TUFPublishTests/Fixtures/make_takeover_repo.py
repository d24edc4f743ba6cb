"""A repository python-tuf's Metadata API made, for `assetwatch publish` to take over.

Usage: make_takeover_repo.py OUT NOW_EPOCH_SECONDS [plain]

With "plain" the root says consistent_snapshot false: snapshot.json, targets.json, project.json
and targets under their own names (the layout of the list below otherwise).

OUT/repo/metadata/  1.root.json (consistent snapshots, one ed25519 key per role), 1.targets.json
                    listing files/hello.txt (custom.version "py-1") and delegating project/* to
                    the role "project" (its own key), 1.project.json listing project/data.bin,
                    1.snapshot.json, timestamp.json (pretty-printed, as python-tuf writes them)
OUT/repo/targets/files/SHA256.hello.txt
OUT/keys/ROLE.key   the private keys: the raw seed in hex, but targets as a PKCS#8 PEM
OUT/keyids.json     {ROLE: the key id python-tuf gave the key}
"""

import json
import os
import sys
from datetime import datetime, timedelta, timezone

from cryptography.hazmat.primitives import serialization
from securesystemslib.signer import CryptoSigner
from tuf.api.metadata import (
    DelegatedRole, Delegations, Metadata, MetaFile, Root, Snapshot, TargetFile, Targets, Timestamp)
from tuf.api.serialization.json import JSONSerializer

OUT = sys.argv[1]
NOW = datetime.fromtimestamp(int(sys.argv[2]), tz=timezone.utc)
CONSISTENT = not (len(sys.argv) > 3 and sys.argv[3] == "plain")
FUTURE = NOW + timedelta(days=30)
SER = JSONSerializer(compact=False)
ROLES = ["root", "targets", "snapshot", "timestamp"]
K = {role: CryptoSigner.generate_ed25519() for role in ROLES + ["project"]}

repo = os.path.join(OUT, "repo")
os.makedirs(os.path.join(repo, "metadata"))
os.makedirs(os.path.join(repo, "targets", "files"))
os.makedirs(os.path.join(OUT, "keys"))


def write(path, data):
    with open(os.path.join(repo, path), "wb") as f:
        f.write(data)


def sign(md, role):
    md.sign(K[role])
    return md.to_bytes(SER)


root = Metadata(Root(expires=FUTURE, consistent_snapshot=CONSISTENT))


def meta(name, version=1):
    return f"metadata/{version}.{name}" if CONSISTENT else f"metadata/{name}"


def stored(path, tf):
    head, _, tail = path.rpartition("/")
    return f"targets/{head}/{tf.hashes['sha256']}.{tail}" if CONSISTENT else f"targets/{path}"
for role in ROLES:
    root.signed.add_key(K[role].public_key, role)
write("metadata/1.root.json", sign(root, "root"))

hello = b"hello from python-tuf\n"
tf = TargetFile.from_data("files/hello.txt", hello, ["sha256"])
tf.unrecognized_fields["custom"] = {"version": "py-1"}
targets = Metadata(Targets(expires=FUTURE))
targets.signed.targets["files/hello.txt"] = tf
targets.signed.delegations = Delegations(
    keys={K["project"].public_key.keyid: K["project"].public_key},
    roles={"project": DelegatedRole("project", [K["project"].public_key.keyid], 1, True,
                                    paths=["project/*"])})
write(meta("targets.json"), sign(targets, "targets"))
write(stored("files/hello.txt", tf), hello)

data = bytes(range(256)) * 4
df = TargetFile.from_data("project/data.bin", data, ["sha256"])
project = Metadata(Targets(expires=FUTURE))
project.signed.targets["project/data.bin"] = df
write(meta("project.json"), sign(project, "project"))
os.makedirs(os.path.join(repo, "targets", "project"))
write(stored("project/data.bin", df), data)

snapshot = Metadata(Snapshot(expires=FUTURE))
snapshot.signed.meta = {"targets.json": MetaFile(1), "project.json": MetaFile(1)}
write(meta("snapshot.json"), sign(snapshot, "snapshot"))

timestamp = Metadata(Timestamp(expires=FUTURE))
timestamp.signed.snapshot_meta = MetaFile(1)
write("metadata/timestamp.json", sign(timestamp, "timestamp"))

for role in ROLES:
    private = K[role]._private_key
    if role == "targets":
        text = private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()).decode()
    else:
        text = private.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
            serialization.NoEncryption()).hex() + "\n"
    with open(os.path.join(OUT, "keys", f"{role}.key"), "w") as f:
        f.write(text)
with open(os.path.join(OUT, "keyids.json"), "w") as f:
    json.dump({role: K[role].public_key.keyid for role in ROLES}, f)
