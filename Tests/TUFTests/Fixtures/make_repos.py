"""Builds the TUF fixture repositories the TUFTests check the Swift verifier against.

Usage: make_repos.py OUT_DIR NOW_EPOCH_SECONDS

Every scenario is a sub-folder of OUT_DIR holding metadata files written with python-tuf's
Metadata API and a `steps.json`: the files in the order the TUF client workflow (spec section 5)
feeds them, each with python-tuf's own verdict (`TrustedMetadataSet` with `reference_time` = NOW,
or the `Updater` for target lookups). The Swift tests assert that the Swift verifier agrees with
the reference on every step. All dates are relative to NOW, so the tests pass the same NOW.

OUT_DIR/reference.json holds python-tuf's / securesystemslib's own answers for unit tests:
canonical JSON bytes of some signed objects, glob matches, hash-bin names, path-hash prefixes.
"""

from __future__ import annotations

import base64
import copy
import fnmatch
import hashlib
import json
import os
import shutil
import sys
import tempfile
from datetime import datetime, timedelta, timezone

from securesystemslib.formats import encode_canonical
from securesystemslib.signer import CryptoSigner
from tuf.api import exceptions
from tuf.api.metadata import (
    DelegatedRole,
    Delegations,
    Metadata,
    MetaFile,
    Root,
    Snapshot,
    SuccinctRoles,
    TargetFile,
    Targets,
    Timestamp,
)
from tuf.api.serialization.json import JSONSerializer
from tuf.ngclient import Updater
from tuf.ngclient._internal.trusted_metadata_set import TrustedMetadataSet
from tuf.ngclient.config import EnvelopeType
from tuf.ngclient.fetcher import FetcherInterface

OUT = sys.argv[1]
NOW = datetime.fromtimestamp(int(sys.argv[2]), tz=timezone.utc)
FUTURE = NOW + timedelta(days=30)
PAST = NOW - timedelta(hours=2)

# Keys are made once per run: signatures differ between runs, verdicts do not.
ED = [CryptoSigner.generate_ed25519() for _ in range(8)]
EC = [CryptoSigner.generate_ecdsa() for _ in range(2)]
RSA = [CryptoSigner.generate_rsa(size=2048)]

SERIALIZER = JSONSerializer(compact=False)


def verdict(fn) -> str:
    """'ok' or the python-tuf exception class name."""
    try:
        fn()
        return "ok"
    except exceptions.RepositoryError as e:
        return type(e).__name__
    except ValueError as e:  # malformed metadata
        return "ValueError"


class Repo:
    """A repository: metadata objects, their signers, the files written so far."""

    def __init__(self, name: str, keys=None, consistent: bool = False, hash_algorithms=None):
        self.dir = os.path.join(OUT, name)
        os.makedirs(self.dir, exist_ok=True)
        keys = keys or {"root": [ED[0]], "timestamp": [ED[1]], "snapshot": [ED[2]], "targets": [ED[3]]}
        self.signers = dict(keys)
        self.consistent = consistent
        self.root = Metadata(Root(expires=FUTURE, consistent_snapshot=consistent))
        for role, signers in keys.items():
            for s in signers:
                self.root.signed.add_key(s.public_key, role)
        self.timestamp = Metadata(Timestamp(expires=FUTURE))
        self.snapshot = Metadata(Snapshot(expires=FUTURE))
        self.targets = Metadata(Targets(expires=FUTURE))
        self.delegated: dict[str, Metadata] = {}
        self.delegated_signers: dict[str, list] = {}
        self.target_bytes: dict[str, bytes] = {}
        self.hash_algorithms = hash_algorithms
        self.steps = []
        self.files = {}

    # -- writing --------------------------------------------------------------------------------

    def sign(self, md: Metadata, signers) -> bytes:
        md.signatures.clear()
        for s in signers:
            md.sign(s, append=True)
        return md.to_bytes(SERIALIZER)

    def write(self, filename: str, data: bytes) -> str:
        with open(os.path.join(self.dir, filename), "wb") as f:
            f.write(data)
        return filename

    def add_target(self, path: str, data: bytes, role: Metadata | None = None) -> None:
        role = role or self.targets
        tf = TargetFile.from_data(path, data, self.hash_algorithms or ["sha256"])
        role.signed.targets[path] = tf
        self.target_bytes[path] = data
        name = path
        if self.consistent:
            head, _, tail = path.rpartition("/")
            name = (head + "/" if head else "") + f"{tf.hashes['sha256']}.{tail}"
        full = os.path.join(self.dir, "targets", name)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
        self.files.setdefault("targets", {})[path] = "targets/" + name

    def publish_root(self, signers=None) -> str:
        data = self.sign(self.root, signers if signers is not None else self.signers["root"])
        return self.write(f"{self.root.signed.version}.root.json", data)

    def publish_delegated(self, role: str, bump: bool = False) -> str:
        md = self.delegated[role]
        if bump:
            md.signed.version += 1
        data = self.sign(md, self.delegated_signers[role])
        name = f"{md.signed.version}.{role}.json" if self.consistent else f"{role}.json"
        self.snapshot.signed.meta[f"{role}.json"] = MetaFile(md.signed.version)
        return self.write(name, data)

    def publish_rest(self, pin_lengths=False) -> dict[str, str]:
        """Targets, delegated roles, snapshot and timestamp (in that order), returns file names."""
        names = {}
        for role in self.delegated:
            names[role] = self.publish_delegated(role)
        data = self.sign(self.targets, self.signers["targets"])
        v = self.targets.signed.version
        names["targets"] = self.write(f"{v}.targets.json" if self.consistent else "targets.json", data)
        self.snapshot.signed.meta["targets.json"] = MetaFile(v)
        snap = self.sign(self.snapshot, self.signers["snapshot"])
        sv = self.snapshot.signed.version
        names["snapshot"] = self.write(f"{sv}.snapshot.json" if self.consistent else "snapshot.json", snap)
        if pin_lengths:
            self.timestamp.signed.snapshot_meta = MetaFile.from_data(sv, snap, ["sha256"])
        else:
            self.timestamp.signed.snapshot_meta = MetaFile(sv)
        names["timestamp"] = self.write("timestamp.json", self.sign(self.timestamp, self.signers["timestamp"]))
        return names

    # -- the reference's verdicts ---------------------------------------------------------------

    def trusted_set(self, root_file: str) -> TrustedMetadataSet:
        with open(os.path.join(self.dir, root_file), "rb") as f:
            ts = TrustedMetadataSet(f.read(), EnvelopeType.METADATA)
        ts.reference_time = NOW
        # a new client session starts from this trusted root
        self.steps.append({"op": "session", "file": root_file, "reference": "ok"})
        return ts

    def step(self, ts: TrustedMetadataSet | None, op: str, file: str, role: str | None = None,
             delegator: str | None = None, cached: bool = False) -> str:
        with open(os.path.join(self.dir, file), "rb") as f:
            data = f.read()
        if op == "root":
            v = verdict(lambda: ts.update_root(data))
        elif op == "timestamp":
            v = verdict(lambda: ts.update_timestamp(data))
        elif op == "snapshot":
            v = verdict(lambda: ts.update_snapshot(data))
        elif op == "targets":
            v = verdict(lambda: ts.update_targets(data))
        elif op == "delegated":
            v = verdict(lambda: ts.update_delegated_targets(data, role, delegator))
        else:
            raise ValueError(op)
        self.steps.append({"op": op, "file": file, "role": role, "delegator": delegator, "reference": v,
                           "cached": cached})
        return v

    def lookups(self, root_file: str, paths: list[str]) -> None:
        """Target lookups through python-tuf's Updater, one Updater for all paths (in order)."""
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(os.path.join(self.dir, root_file), os.path.join(tmp, "root.json"))
            updater = Updater(tmp, "https://repo.invalid/metadata/", fetcher=DirFetcher(self.dir),
                              bootstrap=None)
            updater._trusted_set  # noqa: B018 (created in the constructor)
            for path in paths:
                entry = {"op": "lookup", "path": path}
                try:
                    info = updater.get_targetinfo(path)
                    entry["reference"] = "ok"
                    entry["found"] = None if info is None else {"length": info.length, "hashes": info.hashes}
                except exceptions.RepositoryError as e:
                    entry["reference"] = type(e).__name__
                self.steps.append(entry)

    def save(self, extra=None) -> None:
        doc = {"steps": self.steps, "files": self.files}
        if extra:
            doc.update(extra)
        with open(os.path.join(self.dir, "steps.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)


class DirFetcher(FetcherInterface):
    """Serves a scenario folder to python-tuf's Updater: URL path -> file in the folder."""

    def __init__(self, folder: str):
        self.folder = folder

    def _fetch(self, url: str):
        name = url.split("/metadata/", 1)[1]
        path = os.path.join(self.folder, name)
        if not os.path.exists(path):
            raise exceptions.DownloadHTTPError(f"{name} not found", 404)
        with open(path, "rb") as f:
            yield f.read()


def basic(name: str, keys=None, consistent=False, hash_algorithms=None) -> Repo:
    repo = Repo(name, keys, consistent, hash_algorithms)
    repo.add_target("file.txt", b"hello, world\n")
    repo.add_target("dir/sub/data.bin", bytes(range(256)))
    return repo


def full_update(repo: Repo, names: dict[str, str], root_file="1.root.json") -> TrustedMetadataSet:
    ts = repo.trusted_set(root_file)
    for op in ["timestamp", "snapshot", "targets"]:
        if repo.step(ts, op, names[op]) != "ok":
            break  # python-tuf refuses to go on (RuntimeError) after a refusal
    return ts


# -- scenarios -------------------------------------------------------------------------------------


def good_repos() -> None:
    for name, keys in [
        ("good-ed25519", None),
        ("good-ecdsa", {"root": [EC[0]], "timestamp": [EC[1]], "snapshot": [EC[0]], "targets": [EC[1]]}),
        ("good-rsa", {"root": [RSA[0]], "timestamp": [RSA[0]], "snapshot": [RSA[0]], "targets": [RSA[0]]}),
        ("good-mixed", {"root": [ED[0], EC[0], RSA[0]], "timestamp": [EC[1]], "snapshot": [RSA[0]],
                        "targets": [ED[3]]}),
    ]:
        repo = basic(name, keys, hash_algorithms=["sha256", "sha512"])
        if name == "good-mixed":
            repo.root.signed.roles["root"].threshold = 3
        root = repo.publish_root()
        names = repo.publish_rest(pin_lengths=True)
        full_update(repo, names, root)
        repo.lookups(root, ["file.txt", "dir/sub/data.bin", "missing.txt"])
        repo.save()


def root_rotation() -> None:
    # 1 -> 2 -> 3, the root key changes each time (each new root signed by old and new keys).
    repo = basic("root-rotation")
    repo.publish_root()
    ts_files = []
    for new_key in [ED[4], ED[5]]:
        old = repo.signers["root"]
        repo.root.signed.revoke_key(old[0].public_key.keyid, "root")
        repo.root.signed.add_key(new_key.public_key, "root")
        repo.root.signed.version += 1
        repo.signers["root"] = [new_key]
        ts_files.append(repo.publish_root(signers=old + [new_key]))
    names = repo.publish_rest()
    ts = repo.trusted_set("1.root.json")
    for f in ts_files:
        repo.step(ts, "root", f)
    repo.step(ts, "timestamp", names["timestamp"])
    repo.save()

    # A rotation that removes a key (threshold 2 of 3 -> 2 of 2), then a root signed by the
    # removed key and only one remaining one: the new root lacks its own threshold.
    repo = basic("root-rotation-removed-key", {"root": [ED[0], ED[4], ED[5]], "timestamp": [ED[1]],
                                               "snapshot": [ED[2]], "targets": [ED[3]]})
    repo.root.signed.roles["root"].threshold = 2
    repo.publish_root()
    repo.root.signed.revoke_key(ED[5].public_key.keyid, "root")
    repo.root.signed.version = 2
    f2 = repo.publish_root(signers=[ED[0], ED[4]])
    repo.root.signed.version = 3
    f3 = repo.publish_root(signers=[ED[0], ED[5]])  # ED[5] no longer counts for root v2's role
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "root", f2)
    repo.step(ts, "root", f3)
    repo.save()

    # The new root's own threshold is not met: v2 sets threshold 2 but is signed by one key.
    repo = basic("root-rotation-new-threshold-unmet", {"root": [ED[0]], "timestamp": [ED[1]],
                                                       "snapshot": [ED[2]], "targets": [ED[3]]})
    repo.publish_root()
    repo.root.signed.add_key(ED[4].public_key, "root")
    repo.root.signed.roles["root"].threshold = 2
    repo.root.signed.version = 2
    f2 = repo.publish_root(signers=[ED[0]])
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "root", f2)
    repo.save()

    # Not signed by the old root's threshold: v2 replaces the key and is signed only by the new one.
    repo = basic("root-rotation-old-threshold-unmet")
    repo.publish_root()
    repo.root.signed.revoke_key(ED[0].public_key.keyid, "root")
    repo.root.signed.add_key(ED[4].public_key, "root")
    repo.root.signed.version = 2
    f2 = repo.publish_root(signers=[ED[4]])
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "root", f2)
    repo.save()

    # Version skipped: 1 -> 3.
    repo = basic("root-version-skipped")
    repo.publish_root()
    repo.root.signed.version = 3
    f3 = repo.publish_root()
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "root", f3)
    repo.save()

    # Wrong type: a timestamp offered as root v2.
    repo = basic("root-wrong-type")
    repo.publish_root()
    names = repo.publish_rest()
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "root", names["timestamp"])
    repo.save()

    # The final root (after a good rotation) is expired: the timestamp step refuses it.
    repo = basic("root-expired")
    repo.publish_root()
    repo.root.signed.version = 2
    repo.root.signed.expires = PAST
    f2 = repo.publish_root()
    names = repo.publish_rest()
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "root", f2)
    repo.step(ts, "timestamp", names["timestamp"])
    repo.save()


def threshold_two_one_valid() -> None:
    # targets requires 2 of ED[3], ED[6]; one signature is good, the other is by a key outside
    # the role (ED[7] under ED[6]'s keyid cannot be made; so: ED[3] signs twice? no: duplicate
    # keyids are malformed). We sign with ED[3] and ED[7] (not authorized).
    repo = basic("threshold-two-one-valid", {"root": [ED[0]], "timestamp": [ED[1]], "snapshot": [ED[2]],
                                             "targets": [ED[3], ED[6]]})
    repo.root.signed.roles["targets"].threshold = 2
    repo.signers["targets"] = [ED[3], ED[7]]
    repo.publish_root()
    names = repo.publish_rest()
    full_update(repo, names)
    repo.save()

    # A bad signature value (bit flipped) under an authorized key id: 1 of 2 again.
    repo = basic("threshold-two-bad-signature", {"root": [ED[0]], "timestamp": [ED[1]], "snapshot": [ED[2]],
                                                 "targets": [ED[3], ED[6]]})
    repo.root.signed.roles["targets"].threshold = 2
    repo.publish_root()
    names = repo.publish_rest()
    path = os.path.join(repo.dir, names["targets"])
    doc = json.load(open(path))
    for sig in doc["signatures"]:
        if sig["keyid"] == ED[6].public_key.keyid:
            b = bytearray(bytes.fromhex(sig["sig"]))
            b[0] ^= 1
            sig["sig"] = b.hex()
    open(path, "w").write(json.dumps(doc, indent=1))
    # snapshot meta only pins versions here, so the edited file still passes the pinning.
    full_update(repo, names)
    repo.save()


def expired_each() -> None:
    for role in ["timestamp", "snapshot", "targets"]:
        repo = basic(f"expired-{role}")
        md = {"timestamp": repo.timestamp, "snapshot": repo.snapshot, "targets": repo.targets}[role]
        md.signed.expires = PAST
        repo.publish_root()
        names = repo.publish_rest()
        full_update(repo, names)
        repo.save()
    # An expired (cached) timestamp is kept as intermediate: a newer one still loads after it,
    # and an older one is still a rollback.
    repo = basic("expired-timestamp-intermediate")
    repo.publish_root()
    repo.timestamp.signed.version = 2
    repo.timestamp.signed.expires = PAST
    old = repo.publish_rest()["timestamp"]
    os.replace(os.path.join(repo.dir, old), os.path.join(repo.dir, "timestamp-v2-expired.json"))
    repo.timestamp.signed.version = 1
    repo.timestamp.signed.expires = FUTURE
    os.replace(os.path.join(repo.dir, repo.publish_rest()["timestamp"]),
               os.path.join(repo.dir, "timestamp-v1.json"))
    repo.timestamp.signed.version = 3
    names = repo.publish_rest()
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", "timestamp-v2-expired.json", cached=True)
    repo.step(ts, "timestamp", "timestamp-v1.json")
    repo.step(ts, "timestamp", names["timestamp"])
    repo.step(ts, "snapshot", names["snapshot"])
    repo.save()

    repo = basic("expired-delegated")
    add_delegation(repo, "project", ["project/*"], [ED[4]], expires=PAST)
    repo.publish_root()
    names = repo.publish_rest()
    ts = full_update(repo, names)
    if repo.steps[-1]["reference"] == "ok":
        repo.step(ts, "delegated", names["project"], "project", "targets")
    repo.save()


def rollback_each() -> None:
    # Each role: a trusted version 5, then a version 4 offered where the spec checks it.
    def keep(repo: Repo, names: dict[str, str], prefix: str) -> dict[str, str]:
        kept = {}
        for role, name in names.items():
            os.replace(os.path.join(repo.dir, name), os.path.join(repo.dir, f"{prefix}-{name}"))
            kept[role] = f"{prefix}-{name}"
        return kept

    # timestamp: trusted v5, offered v4.
    repo = basic("rollback-timestamp")
    repo.publish_root()
    repo.timestamp.signed.version = 5
    v5 = keep(repo, repo.publish_rest(), "v5")
    repo.timestamp.signed.version = 4
    v4 = keep(repo, repo.publish_rest(), "v4")
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", v5["timestamp"])
    repo.step(ts, "timestamp", v4["timestamp"])
    repo.save()

    # snapshot: timestamp v1 pins snapshot v5; a snapshot v4 is offered.
    repo = basic("rollback-snapshot")
    repo.publish_root()
    repo.snapshot.signed.version = 4
    v4 = keep(repo, repo.publish_rest(), "v4")
    repo.snapshot.signed.version = 5
    v5 = keep(repo, repo.publish_rest(), "v5")
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", v5["timestamp"])
    repo.step(ts, "snapshot", v4["snapshot"])
    repo.save()

    # targets: snapshot pins targets v5; a targets v4 is offered.
    repo = basic("rollback-targets")
    repo.publish_root()
    repo.targets.signed.version = 4
    v4 = keep(repo, repo.publish_rest(), "v4")
    repo.targets.signed.version = 5
    v5 = keep(repo, repo.publish_rest(), "v5")
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", v5["timestamp"])
    repo.step(ts, "snapshot", v5["snapshot"])
    repo.step(ts, "targets", v4["targets"])
    repo.save()

    # delegated: snapshot pins project v5; project v4 is offered.
    repo = basic("rollback-delegated")
    d = add_delegation(repo, "project", ["project/*"], [ED[4]])
    repo.publish_root()
    d.signed.version = 4
    v4 = keep(repo, repo.publish_rest(), "v4")
    d.signed.version = 5
    v5 = keep(repo, repo.publish_rest(), "v5")
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", v5["timestamp"])
    repo.step(ts, "snapshot", v5["snapshot"])
    repo.step(ts, "targets", v5["targets"])
    repo.step(ts, "delegated", v4["project"], "project", "targets")
    repo.save()

    # Equal timestamp version: "no change".
    repo = basic("timestamp-equal-version")
    repo.publish_root()
    names = repo.publish_rest()
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", names["timestamp"])
    repo.step(ts, "timestamp", names["timestamp"])
    repo.save()

    # Timestamp newer, but its snapshot version older than the trusted timestamp's.
    repo = basic("timestamp-snapshot-version-rollback")
    repo.publish_root()
    repo.timestamp.signed.version = 2
    repo.snapshot.signed.version = 5
    first = repo.publish_rest()["timestamp"]
    os.replace(os.path.join(repo.dir, first), os.path.join(repo.dir, "timestamp-v2.json"))
    repo.timestamp.signed.version = 3
    repo.snapshot.signed.version = 4
    second = repo.publish_rest()["timestamp"]
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", "timestamp-v2.json")
    repo.step(ts, "timestamp", second)
    repo.save()

    # Trusted snapshot lists targets v5; the new one lists targets v4 (rollback), and another
    # drops targets.json from meta (removal).
    for variant in ["lower", "removed"]:
        repo = basic(f"snapshot-targets-{variant}")
        repo.publish_root()
        repo.targets.signed.version = 5
        names = repo.publish_rest()
        os.replace(os.path.join(repo.dir, names["snapshot"]), os.path.join(repo.dir, "snapshot-trusted.json"))
        repo.snapshot.signed.version = 2
        repo.timestamp.signed.version = 2
        snap_meta = dict(repo.snapshot.signed.meta)
        if variant == "lower":
            snap_meta["targets.json"] = MetaFile(4)
        else:
            snap_meta = {"other.json": MetaFile(1)}
        repo.snapshot.signed.meta = snap_meta
        data = repo.sign(repo.snapshot, repo.signers["snapshot"])
        repo.write("snapshot-new.json", data)
        repo.timestamp.signed.snapshot_meta = MetaFile(2)
        repo.write("timestamp-new.json", repo.sign(repo.timestamp, repo.signers["timestamp"]))
        # python-tuf loads the trusted snapshot as intermediate, then the new one, in one set:
        # the old timestamp pins v1, so the trusted snapshot is loaded with trusted=True.
        ts = repo.trusted_set("1.root.json")
        repo.step(ts, "timestamp", "timestamp-new.json")
        snap_old = open(os.path.join(repo.dir, "snapshot-trusted.json"), "rb").read()
        v = verdict(lambda: ts.update_snapshot(snap_old, trusted=True))
        repo.steps.append({"op": "snapshot", "file": "snapshot-trusted.json", "cached": True, "reference": v})
        repo.step(ts, "snapshot", "snapshot-new.json")
        repo.save()


def mix_and_match() -> None:
    # The snapshot pins targets v2 (with hash); the server offers targets v1 (a valid, older,
    # signed file), and a targets v2 whose bytes differ from the pinned hash.
    repo = basic("mix-and-match")
    repo.publish_root()
    names = repo.publish_rest()
    os.replace(os.path.join(repo.dir, names["targets"]), os.path.join(repo.dir, "targets-v1.json"))
    repo.targets.signed.version = 2
    data = repo.sign(repo.targets, repo.signers["targets"])
    repo.write("targets.json", data)
    repo.snapshot.signed.meta["targets.json"] = MetaFile.from_data(2, data, ["sha256"])
    repo.snapshot.signed.version = 2
    snap = repo.sign(repo.snapshot, repo.signers["snapshot"])
    repo.write("snapshot.json", snap)
    repo.timestamp.signed.snapshot_meta = MetaFile(2, len(snap), {"sha256": hashlib.sha256(snap).hexdigest()})
    repo.timestamp.signed.version = 2
    repo.write("timestamp.json", repo.sign(repo.timestamp, repo.signers["timestamp"]))
    # targets v2 with other bytes: same version, different expiry, signed.
    repo.targets.signed.expires = FUTURE + timedelta(days=1)
    repo.write("targets-v2-other.json", repo.sign(repo.targets, repo.signers["targets"]))
    # a snapshot whose bytes differ from the hash timestamp pins
    repo.snapshot.signed.expires = FUTURE + timedelta(days=1)
    repo.write("snapshot-other.json", repo.sign(repo.snapshot, repo.signers["snapshot"]))
    for targets_file in ["targets-v1.json", "targets-v2-other.json", "snapshot-other.json", "targets.json"]:
        ts = repo.trusted_set("1.root.json")
        repo.step(ts, "timestamp", "timestamp.json")
        if targets_file == "snapshot-other.json":
            repo.step(ts, "snapshot", "snapshot-other.json")
            continue
        repo.step(ts, "snapshot", "snapshot.json")
        repo.step(ts, "targets", targets_file)
    repo.save()


def oversized_timestamp() -> None:
    repo = basic("oversized-timestamp")
    repo.publish_root()
    repo.timestamp.signed.unrecognized_fields["padding"] = "x" * 20000
    names = repo.publish_rest()
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", names["timestamp"])  # python-tuf's limit is the download's
    repo.save({"sizes": {"timestamp": os.path.getsize(os.path.join(repo.dir, names["timestamp"]))}})


def add_delegation(repo: Repo, name: str, paths, signers, parent: Metadata | None = None,
                   terminating=False, hash_prefixes=None, expires=None) -> Metadata:
    parent = parent or repo.targets
    if parent.signed.delegations is None:
        parent.signed.delegations = Delegations(keys={}, roles={})
    for s in signers:
        parent.signed.delegations.keys[s.public_key.keyid] = s.public_key
    parent.signed.delegations.roles[name] = DelegatedRole(
        name, [s.public_key.keyid for s in signers], 1, terminating,
        paths=None if hash_prefixes is not None else paths, path_hash_prefixes=hash_prefixes)
    md = Metadata(Targets(expires=expires or FUTURE))
    repo.delegated[name] = md
    repo.delegated_signers[name] = signers
    return md


def delegations() -> None:
    repo = basic("delegations")
    # targets -> a (paths "a/*", not terminating) -> a-deep ("a/deep/*")
    #         -> term (paths "t/*", terminating) ; after it -> shadow (paths "t/*") never reached
    #         -> glob (paths "g/*.tx?", "g/[!x]*/file") ; hashed (path_hash_prefixes)
    a = add_delegation(repo, "a", ["a/*", "a/*/*"], [ED[4]])
    repo.add_target("a/one.txt", b"a-one", a)
    deep = add_delegation(repo, "a-deep", ["a/deep/*"], [ED[5]], parent=a)
    repo.add_target("a/deep/two.txt", b"a-deep-two", deep)
    term = add_delegation(repo, "term", ["t/*"], [ED[6]], terminating=True)
    repo.add_target("t/in-term.txt", b"term", term)
    shadow = add_delegation(repo, "shadow", ["t/*"], [ED[7]])
    repo.add_target("t/shadowed.txt", b"shadow", shadow)
    glob = add_delegation(repo, "glob", ["g/*.tx?", "g/[!x]*/file"], [ED[4]])
    repo.add_target("g/name.txt", b"g1", glob)
    repo.add_target("g/yes/file", b"g2", glob)
    repo.add_target("g/xno/file", b"g3", glob)
    repo.add_target("g/sub/name.txt", b"g4", glob)
    prefix = hashlib.sha256(b"h/file.bin").hexdigest()[:2]
    hashed = add_delegation(repo, "hashed", None, [ED[5]], hash_prefixes=[prefix])
    repo.add_target("h/file.bin", b"hashed", hashed)
    repo.add_target("h/other.bin", b"hashed-other", hashed)
    repo.publish_root()
    names = repo.publish_rest()
    ts = full_update(repo, names)
    for role, delegator in [("a", "targets"), ("a-deep", "a"), ("term", "targets")]:
        repo.step(ts, "delegated", names[role], role, delegator)
    repo.lookups("1.root.json", ["file.txt", "a/one.txt", "a/deep/two.txt", "t/in-term.txt",
                                 "t/shadowed.txt", "g/name.txt", "g/yes/file", "g/xno/file",
                                 "g/sub/name.txt", "h/file.bin", "h/other.bin", "nowhere/x"])
    repo.save()

    # Succinct hash bins (TAP 15): 16 bins, a few targets.
    repo = basic("succinct-bins")
    repo.targets.signed.delegations = Delegations(
        keys={ED[4].public_key.keyid: ED[4].public_key}, roles=None,
        succinct_roles=SuccinctRoles([ED[4].public_key.keyid], 1, 4, "bin"))
    paths = [f"pkg/{i}.tar" for i in range(6)]
    for name in repo.targets.signed.delegations.succinct_roles.get_roles():
        repo.delegated[name] = Metadata(Targets(expires=FUTURE))
        repo.delegated_signers[name] = [ED[4]]
    for p in paths:
        name = repo.targets.signed.delegations.succinct_roles.get_role_for_target(p)
        repo.add_target(p, p.encode(), repo.delegated[name])
    repo.publish_root()
    repo.publish_rest()
    repo.lookups("1.root.json", paths + ["pkg/none.tar"])
    repo.save({"bins": {p: repo.targets.signed.delegations.succinct_roles.get_role_for_target(p)
                        for p in paths}})


def delegator_changed() -> None:
    # targets -> A -> shared. A.json delegates shared to ED[6]; A-variant.json, the same version
    # of A (snapshot pins only the version), delegates shared to ED[7]. shared.json is signed by
    # ED[6]: trusted under A.json, not under A-variant.json.
    repo = basic("delegator-changed")
    a = add_delegation(repo, "A", ["x/*"], [ED[4]])
    shared = add_delegation(repo, "shared", ["x/*"], [ED[6]], parent=a)
    repo.add_target("x/file", b"x", shared)
    repo.publish_root()
    names = repo.publish_rest()
    variant = copy.deepcopy(a)
    variant.signed.delegations.keys = {ED[7].public_key.keyid: ED[7].public_key}
    variant.signed.delegations.roles["shared"].keyids = [ED[7].public_key.keyid]
    repo.write("A-variant.json", repo.sign(variant, [ED[4]]))
    ts = full_update(repo, names)
    repo.step(ts, "delegated", names["A"], "A", "targets")
    repo.step(ts, "delegated", names["shared"], "shared", "A")
    repo.step(ts, "delegated", "A-variant.json", "A", "targets")
    repo.step(ts, "delegated", names["shared"], "shared", "A")
    repo.save()


def delegation_chain() -> None:
    # targets -> r0 -> r1 -> ... -> r39, each trusted for "chain/*"; r5 also delegates back to
    # r2 (a cycle, skipped as visited). Targets at depths around the bound: python-tuf's walk
    # stops once more than max_delegations (32) roles, top-level targets included, were visited.
    repo = basic("delegation-chain")
    parent = repo.targets
    for i in range(40):
        md = add_delegation(repo, f"r{i}", ["chain/*"], [ED[4 + i % 4]], parent=parent)
        parent = md
    cycle = repo.delegated["r5"]
    cycle.signed.delegations.roles["r2"] = DelegatedRole("r2", [ED[6].public_key.keyid], 1, False,
                                                         paths=["chain/*"])
    cycle.signed.delegations.keys[ED[6].public_key.keyid] = ED[6].public_key
    depths = [0, 10, 30, 31, 32, 33, 39]
    for d in depths:
        repo.add_target(f"chain/at-{d}", f"depth {d}".encode(), repo.delegated[f"r{d}"])
    repo.publish_root()
    repo.publish_rest()
    repo.lookups("1.root.json", [f"chain/at-{d}" for d in depths] + ["chain/none"])
    repo.save()


def delegator_reverification() -> None:
    # targets -> A (paths "x/*", key ED[4]) -> shared (key ED[6])
    #         -> B (paths "y/*", key ED[5]) -> shared (key ED[7])
    # shared.json is signed by ED[6] only: valid through A, invalid through B.
    repo = basic("delegator-reverification")
    a = add_delegation(repo, "A", ["x/*"], [ED[4]])
    b = add_delegation(repo, "B", ["y/*"], [ED[5]])
    shared = add_delegation(repo, "shared", ["x/*", "y/*"], [ED[6]], parent=a)
    b.signed.delegations = Delegations(keys={ED[7].public_key.keyid: ED[7].public_key}, roles={})
    b.signed.delegations.roles["shared"] = DelegatedRole("shared", [ED[7].public_key.keyid], 1, False,
                                                         paths=["x/*", "y/*"])
    repo.add_target("x/file", b"x", shared)
    repo.add_target("y/file", b"y", shared)
    repo.publish_root()
    names = repo.publish_rest()
    ts = full_update(repo, names)
    repo.step(ts, "delegated", names["A"], "A", "targets")
    repo.step(ts, "delegated", names["B"], "B", "targets")
    repo.step(ts, "delegated", names["shared"], "shared", "A")
    repo.step(ts, "delegated", names["shared"], "shared", "B")
    repo.lookups("1.root.json", ["x/file", "y/file"])
    repo.save()


def consistent_snapshot() -> None:
    repo = basic("consistent-snapshot", consistent=True)
    d = add_delegation(repo, "project", ["project/*"], [ED[4]])
    repo.add_target("project/app.bin", b"app bytes", d)
    repo.publish_root()
    repo.targets.signed.version = 3
    repo.snapshot.signed.version = 2
    names = repo.publish_rest()
    ts = full_update(repo, names)
    repo.step(ts, "delegated", names["project"], "project", "targets")
    repo.lookups("1.root.json", ["file.txt", "project/app.bin"])
    repo.files["metadata"] = names
    repo.save()


def bad_target() -> None:
    repo = basic("bad-target")
    repo.publish_root()
    names = repo.publish_rest()
    full_update(repo, names)
    good = repo.target_bytes["file.txt"]
    tf = repo.targets.signed.targets["file.txt"]
    cases = {}
    for label, data in [("good", good), ("other-bytes", b"hellO, world\n"), ("longer", good + b"x")]:
        try:
            tf.verify_length_and_hashes(data)
            cases[label] = {"hex": data.hex(), "reference": "ok"}
        except exceptions.LengthOrHashMismatchError:
            cases[label] = {"hex": data.hex(), "reference": "LengthOrHashMismatchError"}
    repo.save({"target_checks": cases})


def fast_forward() -> None:
    # Session 1 trusts root v1 and timestamp v1000 (timestamp key ED[1]). The repository recovers
    # from a key compromise: root v2 rotates the timestamp key to ED[6] and restarts at version 1.
    repo = basic("fast-forward-recovery")
    repo.publish_root()
    repo.timestamp.signed.version = 1000
    names = repo.publish_rest()
    os.replace(os.path.join(repo.dir, names["timestamp"]), os.path.join(repo.dir, "timestamp-v1000.json"))
    repo.root.signed.revoke_key(ED[1].public_key.keyid, "timestamp")
    repo.root.signed.add_key(ED[6].public_key, "timestamp")
    repo.root.signed.version = 2
    repo.signers["timestamp"] = [ED[6]]
    repo.publish_root()
    repo.timestamp.signed.version = 1
    names = repo.publish_rest()
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", "timestamp-v1000.json")  # session 1
    ts = repo.trusted_set("1.root.json")  # session 2: cached timestamp v1000, then root v2
    repo.step(ts, "root", "2.root.json")
    repo.step(ts, "timestamp", "timestamp-v1000.json", cached=True)
    repo.step(ts, "timestamp", names["timestamp"])
    repo.save()
    # without the rotation, v1 after v1000 is a rollback
    repo = basic("fast-forward-no-rotation")
    repo.publish_root()
    repo.timestamp.signed.version = 1000
    names = repo.publish_rest()
    os.replace(os.path.join(repo.dir, names["timestamp"]), os.path.join(repo.dir, "timestamp-v1000.json"))
    repo.timestamp.signed.version = 1
    names = repo.publish_rest()
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "timestamp", "timestamp-v1000.json")
    repo.step(ts, "timestamp", names["timestamp"])
    repo.save()


def key_identity() -> None:
    """Two deliberate differences from python-tuf, recorded as such (`deviation`)."""
    from securesystemslib.signer import Signature, SSlibKey

    # The same ed25519 key under two key ids, targets threshold 2, "signed" twice by it:
    # python-tuf counts key ids (2 of 2); the Swift verifier counts each key once (1 of 2).
    repo = basic("same-key-two-keyids")
    alias = SSlibKey("alias-of-" + ED[3].public_key.keyid[:16], ED[3].public_key.keytype,
                     ED[3].public_key.scheme, dict(ED[3].public_key.keyval))
    repo.root.signed.add_key(alias, "targets")
    repo.root.signed.roles["targets"].threshold = 2
    repo.publish_root()
    names = repo.publish_rest()
    path = os.path.join(repo.dir, names["targets"])
    md = Metadata.from_file(path)
    md.signatures[alias.keyid] = Signature(alias.keyid, md.signatures[ED[3].public_key.keyid].signature)
    md.to_file(path, SERIALIZER)
    full_update(repo, names)
    repo.steps[-1]["deviation"] = "python-tuf counts key ids, the Swift verifier counts keys"
    repo.save()

    # root lists a key of a type neither knows, next to a good key: python-tuf refuses the whole
    # root; the Swift verifier ignores the unknown key (it is never counted).
    repo = basic("unknown-key-type")
    repo.publish_root()
    path = os.path.join(repo.dir, "1.root.json")
    doc = json.load(open(path))
    doc["signed"]["keys"]["unknown-key"] = {"keytype": "future-type", "scheme": "future-scheme",
                                           "keyval": {"public": "00"}}
    doc["signed"]["roles"]["timestamp"]["keyids"].append("unknown-key")
    # sign the edited root (with the unknown key) by hand: canonical bytes of the dict
    doc["signed"]["version"] = 2
    payload = encode_canonical(doc["signed"]).encode()
    doc["signatures"] = [{"keyid": ED[0].public_key.keyid, "sig": ED[0].sign(payload).signature}]
    open(os.path.join(repo.dir, "2.root.json"), "w").write(json.dumps(doc, indent=1))
    names = repo.publish_rest()
    ts = repo.trusted_set("1.root.json")
    repo.step(ts, "root", "2.root.json")
    repo.steps[-1]["deviation"] = "python-tuf refuses unknown key types, the Swift verifier ignores them"
    repo.save()


def reference_answers() -> None:
    """python-tuf's and securesystemslib's own answers for the unit tests."""
    ref = {}
    # canonical JSON of signed objects
    repo = basic("canonical")
    add_delegation(repo, "project", ["project/*"], [EC[0], RSA[0]])
    repo.targets.signed.unrecognized_fields["x-custom"] = {"b": [1, -2, "q\"uo\\te"], "a": None,
                                                           "ü": "ünïcode ☃ \u0001", "t": True}
    repo.publish_root()
    names = repo.publish_rest()
    canon = {}
    for role in ["root", "timestamp", "snapshot", "targets", "project"]:
        f = names.get(role, "1.root.json")
        data = open(os.path.join(repo.dir, f), "rb").read()
        md = Metadata.from_bytes(data)
        canon[f] = base64.b64encode(encode_canonical(md.signed.to_dict()).encode()).decode()
    ref["canonical"] = canon
    # signatures per key type: payload, key, signature (as python-tuf emits them)
    sigs = []
    for signer in [ED[0], EC[0], RSA[0]]:
        payload = b"payload for " + signer.public_key.keytype.encode()
        sig = signer.sign(payload)
        bad = bytearray(bytes.fromhex(sig.signature))
        bad[-1] ^= 1
        sigs.append({"key": signer.public_key.to_dict(), "keyid": signer.public_key.keyid,
                     "payload": payload.hex(), "sig": sig.signature, "bad_sig": bad.hex()})
    ref["signatures"] = sigs
    # glob matching, as DelegatedRole._is_target_in_pathpattern answers
    patterns = ["*", "*.txt", "a/*", "a/*/c", "a/b*", "?", "a?c", "[abc]x", "[!abc]x", "[a-c]x",
                "[z-a]x", "[!z-a]x", "[]a]x", "[!]a]x", "[a-]x", "[-a]x", "[x", "x]", "[^a]x",
                "a\\*", "*/*", "**", "a/**/c", "ü*", "[a-cx-z]q", "[--0]x", "dir/", "*.tar.gz",
                "[a-c-e]x", "[!a-]x", "[z-a-q]x", "a[b-]c", "[\\]x", "[[]x", "[a-z0-9]*", "?*?",
                "*a*b*c", "*.tar.*", "[!!]x", "[]-a]x", "[!]-a]x", "[a-a]x", "[b-a]x", "[]]x",
                "[!a-c-e]x", "*?", "[ü-☃]z", "x*y*z"]
    paths = ["a", "a.txt", "a/b", "a/b/c", "a/bc", "ax", "bx", "dx", "zx", "-x", "]x", "^x", "[x",
             "x]", "a*", "a\\*", "abc", "a/x/y/c", "üz", "qq", "yq", "dir/", "dir/x", "p.tar.gz",
             "/x", "x\ny", "", "/", "!x", "\\x", "ex", "cx", "0x", "abxc", "a-c", "abc/", "xayz",
             "xyyzz", "p.tar.", "☃z", "ſz", "bq"]
    globs = []
    for pat in patterns:
        for path in paths:
            globs.append({"pattern": pat, "path": path,
                          "match": DelegatedRole._is_target_in_pathpattern(path, pat)})
    ref["globs"] = globs
    # hash-bin names
    bins = []
    for bit_length in [1, 2, 4, 5, 8, 12, 16, 32]:
        sr = SuccinctRoles([], 1, bit_length, "bins")
        for p in ["", "a", "file.txt", "dir/sub/file", "ü/☃", "x" * 300]:
            bins.append({"bit_length": bit_length, "prefix": "bins", "path": p,
                         "role": sr.get_role_for_target(p)})
    ref["bins"] = bins
    # path hash prefixes
    hp = []
    for p in ["file.txt", "a/b", "ü"]:
        digest = hashlib.sha256(p.encode()).hexdigest()
        for prefix in [digest[:1], digest[:3], "0" if digest[0] != "0" else "1", ""]:
            role = DelegatedRole("r", [], 1, False, path_hash_prefixes=[prefix])
            hp.append({"path": p, "prefix": prefix, "match": role.is_delegated_path(p)})
    ref["hash_prefixes"] = hp
    from tuf.ngclient.config import UpdaterConfig
    config = UpdaterConfig()
    ref["limits"] = {"root": config.root_max_length, "timestamp": config.timestamp_max_length,
                     "snapshot": config.snapshot_max_length, "targets": config.targets_max_length,
                     "max_root_rotations": config.max_root_rotations,
                     "max_delegations": config.max_delegations}
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    good_repos()
    root_rotation()
    threshold_two_one_valid()
    expired_each()
    rollback_each()
    mix_and_match()
    oversized_timestamp()
    delegations()
    delegator_reverification()
    delegation_chain()
    delegator_changed()
    consistent_snapshot()
    bad_target()
    fast_forward()
    key_identity()
    reference_answers()
    with open(os.path.join(OUT, "done"), "w") as f:
        f.write(str(int(NOW.timestamp())))


if __name__ == "__main__":
    main()
