"""Builds the repository states the TUF updater tests serve over HTTP (python-tuf's Metadata API).

Usage: make_updater_repo.py OUT_DIR NOW_EPOCH_SECONDS

OUT_DIR/trusted_root.json is the root shipped with the app (version 1). Every other sub-folder of
OUT_DIR is one state of the same repository, laid out as a server publishes it (consistent
snapshots: N.root.json, V.snapshot.json, V.targets.json, hash-prefixed targets):

  initial/  root 1, timestamp 1, snapshot 1, targets 1 (lists files/hello.txt, delegates
            project/* to the role "project"), project 1 (lists project/data.bin)
  bumped/   initial + timestamp 2, snapshot 2 (targets unchanged)
  rotated/  initial + root 2 (new root key, new timestamp key, signed by old and new root keys),
            timestamp 2 signed by the new timestamp key, snapshot 2
  ff/       rotated, then a fast-forward recovery: timestamp 1 and snapshot 1 again (versions
            lower than the ones the old keys signed), root 3 rotating the timestamp and
            snapshot keys once more
  expired/  bumped + timestamp 3, expired an hour before NOW (the engine's refusal tests)
  rollback/ bumped + timestamp 3 naming snapshot version 1 again (a snapshot rollback)
  unsigned/ bumped + timestamp 3 signed by the snapshot key (the timestamp threshold not met)
  staged/   initial + targets 2: hello v2 (custom.version 2026.12-signed) in a staged rollout at
            0 % whose `from` is hello v1; snapshot 3, timestamp 3
  badproject/ bumped + snapshot 3 pinning project 2, which the targets key signed instead of
            the project key (a refused delegated role; the top-level metadata verifies)
  diamond/  root 1; targets 2 delegates team-a/* to parent-a and team-b/* to parent-b, which both
            delegate "release" (each to its own key); release 1 is signed by parent-a's key only

Each state folder has `metadata/` and `targets/`; tests map `metadata/X` to `/metadata/X` and
`targets/X` to `/targets/X`. OUT_DIR/targets.json lists the target paths and contents.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from datetime import datetime, timedelta, timezone

from securesystemslib.signer import CryptoSigner
from tuf.api.metadata import (
    DelegatedRole,
    Delegations,
    Metadata,
    MetaFile,
    Root,
    Snapshot,
    TargetFile,
    Targets,
    Timestamp,
)
from tuf.api.serialization.json import JSONSerializer

OUT = sys.argv[1]
NOW = datetime.fromtimestamp(int(sys.argv[2]), tz=timezone.utc)
FUTURE = NOW + timedelta(days=30)
SER = JSONSerializer(compact=False)

K = {name: CryptoSigner.generate_ed25519() for name in
     ["root", "root2", "timestamp", "timestamp2", "timestamp3", "snapshot", "snapshot3",
      "targets", "project"]}

TARGETS = {
    "files/hello.txt": b"hello from a signed repository\n",
    "project/data.bin": bytes(range(256)) * 800,  # 200 KiB: read back in several pieces
}


def signed(md: Metadata, *signers) -> bytes:
    md.signatures.clear()
    for s in signers:
        md.sign(s, append=True)
    return md.to_bytes(SER)


def target_name(path: str, tf: TargetFile) -> str:
    head, _, tail = path.rpartition("/")
    return (head + "/" if head else "") + f"{tf.hashes['sha256']}.{tail}"


class State:
    def __init__(self):
        self.files: dict[str, bytes] = {}

    def write(self, name: str) -> None:
        base = os.path.join(OUT, name)
        for rel, data in self.files.items():
            full = os.path.join(base, rel)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)

    def copy(self) -> "State":
        s = State()
        s.files = dict(self.files)
        return s


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    root = Metadata(Root(expires=FUTURE, consistent_snapshot=True))
    for role in ["root", "timestamp", "snapshot", "targets"]:
        root.signed.add_key(K[role].public_key, role)
    root1 = signed(root, K["root"])

    project = Metadata(Targets(expires=FUTURE))
    tf = TargetFile.from_data("project/data.bin", TARGETS["project/data.bin"], ["sha256"])
    project.signed.targets["project/data.bin"] = tf
    project_bytes = signed(project, K["project"])

    targets = Metadata(Targets(expires=FUTURE))
    hello = TargetFile.from_data("files/hello.txt", TARGETS["files/hello.txt"], ["sha256", "sha512"])
    hello.unrecognized_fields["custom"] = {"version": "2026.11-signed"}
    targets.signed.targets["files/hello.txt"] = hello
    key = K["project"].public_key
    targets.signed.delegations = Delegations(
        keys={key.keyid: key},
        roles={"project": DelegatedRole("project", [key.keyid], 1, True, paths=["project/*"])},
    )
    targets_bytes = signed(targets, K["targets"])

    def snapshot_bytes(version: int, signer, project_version: int = 1) -> bytes:
        md = Metadata(Snapshot(version=version, expires=FUTURE))
        md.signed.meta = {"targets.json": MetaFile(1), "project.json": MetaFile(project_version)}
        return signed(md, signer)

    def timestamp_bytes(version: int, snapshot: bytes, snapshot_version: int, signer,
                        expires=FUTURE) -> bytes:
        md = Metadata(Timestamp(version=version, expires=expires))
        md.signed.snapshot_meta = MetaFile.from_data(snapshot_version, snapshot, ["sha256"])
        return signed(md, signer)

    initial = State()
    initial.files["metadata/1.root.json"] = root1
    snap1 = snapshot_bytes(1, K["snapshot"])
    initial.files["metadata/1.snapshot.json"] = snap1
    initial.files["metadata/timestamp.json"] = timestamp_bytes(1, snap1, 1, K["timestamp"])
    initial.files["metadata/1.targets.json"] = targets_bytes
    initial.files["metadata/1.project.json"] = project_bytes
    for path, data in TARGETS.items():
        info = hello if path == "files/hello.txt" else tf
        # python-tuf names a consistent target by the first hash listed (sha256 here).
        initial.files["targets/" + target_name(path, info)] = data
    initial.write("initial")

    bumped = initial.copy()
    snap2 = snapshot_bytes(2, K["snapshot"])
    bumped.files["metadata/2.snapshot.json"] = snap2
    bumped.files["metadata/timestamp.json"] = timestamp_bytes(2, snap2, 2, K["timestamp"])
    bumped.write("bumped")

    expired = bumped.copy()
    expired.files["metadata/timestamp.json"] = timestamp_bytes(
        3, snap2, 2, K["timestamp"], expires=NOW - timedelta(hours=1))
    expired.write("expired")

    rollback = bumped.copy()
    rollback.files["metadata/timestamp.json"] = timestamp_bytes(3, snap1, 1, K["timestamp"])
    rollback.write("rollback")

    unsigned = bumped.copy()
    unsigned.files["metadata/timestamp.json"] = timestamp_bytes(3, snap2, 2, K["snapshot"])
    unsigned.write("unsigned")

    badproject = bumped.copy()
    project2 = copy.deepcopy(project)
    project2.signed.version = 2
    badproject.files["metadata/2.project.json"] = signed(project2, K["targets"])  # not its key
    snap3 = snapshot_bytes(3, K["snapshot"], project_version=2)
    badproject.files["metadata/3.snapshot.json"] = snap3
    badproject.files["metadata/timestamp.json"] = timestamp_bytes(3, snap3, 3, K["timestamp"])
    badproject.write("badproject")

    # A staged rollout of hello v2 at 0 % (halted): every instance is held back on v1, which
    # the signed custom names as `from` (its hash-prefixed path, size and sha256).
    staged = initial.copy()
    hello2_bytes = b"hello v2 from a signed, staged rollout\n"
    hello2 = TargetFile.from_data("files/hello.txt", hello2_bytes, ["sha256"])
    hello2.unrecognized_fields["custom"] = {
        "version": "2026.12-signed",
        "rollout": {"percent": 0, "from": {
            "version": "2026.11-signed", "url": target_name("files/hello.txt", hello),
            "size": len(TARGETS["files/hello.txt"]), "sha256": hello.hashes["sha256"]}},
    }
    targets2 = copy.deepcopy(targets)
    targets2.signed.version = 2
    targets2.signed.targets["files/hello.txt"] = hello2
    staged.files["metadata/2.targets.json"] = signed(targets2, K["targets"])
    staged.files["targets/" + target_name("files/hello.txt", hello2)] = hello2_bytes
    snap_staged = Metadata(Snapshot(version=3, expires=FUTURE))
    snap_staged.signed.meta = {"targets.json": MetaFile(2), "project.json": MetaFile(1)}
    snap_staged_bytes = signed(snap_staged, K["snapshot"])
    staged.files["metadata/3.snapshot.json"] = snap_staged_bytes
    staged.files["metadata/timestamp.json"] = timestamp_bytes(3, snap_staged_bytes, 3, K["timestamp"])
    staged.write("staged")

    rotated = initial.copy()
    root2 = copy.deepcopy(root)
    root2.signed.version = 2
    root2.signed.revoke_key(K["root"].public_key.keyid, "root")
    root2.signed.add_key(K["root2"].public_key, "root")
    root2.signed.revoke_key(K["timestamp"].public_key.keyid, "timestamp")
    root2.signed.add_key(K["timestamp2"].public_key, "timestamp")
    rotated.files["metadata/2.root.json"] = signed(root2, K["root"], K["root2"])
    rotated.files["metadata/2.snapshot.json"] = snap2
    rotated.files["metadata/timestamp.json"] = timestamp_bytes(2, snap2, 2, K["timestamp2"])
    rotated.write("rotated")

    ff = rotated.copy()
    root3 = copy.deepcopy(root2)
    root3.signed.version = 3
    root3.signed.revoke_key(K["timestamp2"].public_key.keyid, "timestamp")
    root3.signed.add_key(K["timestamp3"].public_key, "timestamp")
    root3.signed.revoke_key(K["snapshot"].public_key.keyid, "snapshot")
    root3.signed.add_key(K["snapshot3"].public_key, "snapshot")
    ff.files["metadata/3.root.json"] = signed(root3, K["root2"])
    snap_ff = snapshot_bytes(1, K["snapshot3"])
    ff.files["metadata/1.snapshot.json"] = snap_ff
    del ff.files["metadata/2.snapshot.json"]
    ff.files["metadata/timestamp.json"] = timestamp_bytes(1, snap_ff, 1, K["timestamp3"])
    ff.write("ff")

    # A diamond: parent-a (team-a/*) and parent-b (team-b/*) both delegate "release", each to
    # its own key; release is signed by parent-a's key only, so it is trusted through parent-a
    # and must be refused when a later lookup reaches it through parent-b.
    diamond = State()
    diamond.files["metadata/1.root.json"] = root1
    release_keys = {name: CryptoSigner.generate_ed25519() for name in ["a", "b"]}
    parent_signers = {name: CryptoSigner.generate_ed25519() for name in ["a", "b"]}
    release = Metadata(Targets(expires=FUTURE))
    for team in ["a", "b"]:
        path = f"team-{team}/app.json"
        release.signed.targets[path] = TargetFile.from_data(path, b"release " + team.encode(), ["sha256"])
    diamond.files["metadata/1.release.json"] = signed(release, release_keys["a"])
    top = Metadata(Targets(version=2, expires=FUTURE))
    top_keys = {}
    top_roles = {}
    for team in ["a", "b"]:
        parent = Metadata(Targets(expires=FUTURE))
        rk = release_keys[team].public_key
        parent.signed.delegations = Delegations(
            keys={rk.keyid: rk},
            roles={"release": DelegatedRole("release", [rk.keyid], 1, False, paths=[f"team-{team}/*"])},
        )
        diamond.files[f"metadata/1.parent-{team}.json"] = signed(parent, parent_signers[team])
        pk = parent_signers[team].public_key
        top_keys[pk.keyid] = pk
        top_roles[f"parent-{team}"] = DelegatedRole(
            f"parent-{team}", [pk.keyid], 1, False, paths=[f"team-{team}/*"])
    top.signed.delegations = Delegations(keys=top_keys, roles=top_roles)
    diamond.files["metadata/2.targets.json"] = signed(top, K["targets"])
    snap = Metadata(Snapshot(version=1, expires=FUTURE))
    snap.signed.meta = {
        "targets.json": MetaFile(2), "parent-a.json": MetaFile(1), "parent-b.json": MetaFile(1),
        "release.json": MetaFile(1),
    }
    snap_d = signed(snap, K["snapshot"])
    diamond.files["metadata/1.snapshot.json"] = snap_d
    diamond.files["metadata/timestamp.json"] = timestamp_bytes(1, snap_d, 1, K["timestamp"])
    diamond.write("diamond")

    with open(os.path.join(OUT, "trusted_root.json"), "wb") as f:
        f.write(root1)
    with open(os.path.join(OUT, "targets.json"), "w") as f:
        json.dump({p: d.hex() for p, d in TARGETS.items()}, f)


main()
