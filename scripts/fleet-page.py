#!/usr/bin/env python3
"""Writes the exposition pages of a synthetic fleet of N instances x A assets, as
AssetWatchTestKit's SyntheticFleet does (same layout, same SplitMix64 choices, same seed), split
into shards of at most 1,000 instances: DIR/0.prom, DIR/1.prom, ... Each page speaks for its
instances (every series carries `instance` and `job`), to be scraped with honor_labels.

    scripts/fleet-page.py DIR INSTANCES ASSETS [SEED] [SHARD_SIZE] [NOW] [STAGED]

NOW (Unix seconds, default the current time) dates the last successes. STAGED (a whole
percent) makes the first asset's target a staged rollout at that percent, with instances held
back and a few rejecting it, as SyntheticFleet(staged:) does.
"""
import os
import sys
import time

M = (1 << 64) - 1
TARGET, PREVIOUS = "2026.11.10", "2026.11.9"


def mix(seed, a, b):
    z = (seed + a * 0x9E3779B97F4A7C15 + b * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def instance(i):
    return f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}:9464"


def page(rng, assets, seed, job, now, staged=None):
    no_target = assets - 1 if assets >= 3 else -1
    up = ["# TYPE up gauge"]
    info = ["# TYPE remote_assets_asset_info gauge"]
    behind = ["# TYPE remote_assets_asset_behind gauge"]
    success = ["# TYPE remote_assets_last_success_timestamp_seconds gauge"]
    failures = ["# TYPE remote_assets_consecutive_failures gauge"]
    held = ["# TYPE remote_assets_asset_held_back gauge"]
    percent = ["# TYPE remote_assets_asset_rollout_percent gauge"]
    rejected = ["# TYPE remote_assets_asset_rejected gauge"]
    probation = ["# TYPE remote_assets_asset_on_probation gauge"]
    for i in rng:
        inst = f'instance="{instance(i)}",job="{job}"'
        down = mix(seed, i, 0xD0) % 100 < 3
        up.append(f"up{{{inst}}} {0 if down else 1}")
        if down:
            continue
        for a in range(assets):
            roll = mix(seed, i, a + 1)
            kind = roll % 100
            if kind < 2:
                continue
            labels = f'{inst},asset="asset-{a}"'
            version, own, state, err, failed = TARGET, TARGET, "fresh", "", 0
            age = (roll >> 8) % 50
            is_staged = staged is not None and a == 0 and a != no_target
            is_held, is_rejected = False, False
            if is_staged and kind < 8:
                version, is_rejected = PREVIOUS, True
            elif is_staged and 74 <= kind < 84:
                version, own, is_held = PREVIOUS, PREVIOUS, True
                if kind < 76:
                    state, err, failed = "failed", "http", 2
            elif a == no_target:
                version, own = f"m{(roll >> 16) % 3}", ""
                if kind >= 85:
                    state = "stale"
            elif kind < 74:
                pass
            elif kind < 84:
                version, own = PREVIOUS, PREVIOUS
            elif kind < 90:
                version = PREVIOUS
            else:
                version, state = PREVIOUS, "failed"
                err = "http" if kind < 95 else "timeout"
                failed = 1 + (roll >> 24) % 9
                age += 300
            info.append(
                f'remote_assets_asset_info{{{labels},version="{version}",'
                f'target_version="{own}",state="{state}",error_kind="{err}"}} 1')
            behind.append(f"remote_assets_asset_behind{{{labels}}} {1 if own and version != own else 0}")
            success.append(f"remote_assets_last_success_timestamp_seconds{{{labels}}} {now - age}")
            failures.append(f"remote_assets_consecutive_failures{{{labels}}} {failed}")
            if is_staged:
                held.append(f"remote_assets_asset_held_back{{{labels}}} {1 if is_held else 0}")
                percent.append(f"remote_assets_asset_rollout_percent{{{labels}}} {staged}")
                if is_rejected:
                    rejected.append(f'remote_assets_asset_rejected{{{labels},version="{TARGET}"}} 1')
                on = not is_held and not is_rejected and version == TARGET and kind < 20
                probation.append(f"remote_assets_asset_on_probation{{{labels}}} {1 if on else 0}")
    staged_part = [] if staged is None else held + percent + rejected + probation
    return "\n".join(up + info + behind + success + failures + staged_part) + "\n"


def main():
    out, n, assets = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    shard = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
    os.makedirs(out, exist_ok=True)
    now = int(sys.argv[6]) if len(sys.argv) > 6 else int(time.time())
    staged = int(sys.argv[7]) if len(sys.argv) > 7 else None
    for s, start in enumerate(range(0, n, shard)):
        with open(os.path.join(out, f"{s}.prom"), "w") as f:
            f.write(page(range(start, min(n, start + shard)), assets, seed, "assets", now, staged))


if __name__ == "__main__":
    main()
