#!/usr/bin/env python3
"""Watchers of an engine's control socket for scripts/bench.sh's attach case.

    watchers.py SOCKET read N SECONDS     N watchers that read everything; prints bytes/watcher/s
    watchers.py SOCKET stall N SECONDS    N watchers that read only the hello, then nothing

One process, one thread: the readers are served by a selector, so their own cost stays small
and the engine's CPU is what the bench measures.
"""
import selectors
import socket
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def main():
    path, mode, n, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    socks = [connect(path) for _ in range(n)]
    if mode == "stall":
        # Read the hello line only (it proves the subscription exists), then never again.
        for s in socks:
            got = b""
            while b"\n" not in got:
                chunk = s.recv(1)
                if not chunk:
                    break
                got += chunk
        print("ready", flush=True)
        time.sleep(seconds)
        for s in socks:
            s.close()
        return
    sel = selectors.DefaultSelector()
    counts = {}
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        counts[s] = 0
    # The first second is the snapshot: counted apart, so the rate is the steady state.
    start = time.monotonic()
    settled = start + 1.0
    steady = {s: 0 for s in socks}
    while time.monotonic() < start + seconds:
        for key, _ in sel.select(timeout=0.2):
            data = key.fileobj.recv(1 << 16)
            if not data:
                sel.unregister(key.fileobj)
                continue
            counts[key.fileobj] += len(data)
            if time.monotonic() >= settled:
                steady[key.fileobj] += len(data)
    per = sum(steady.values()) / n / max(0.001, seconds - 1.0)
    print(f"{per:.0f}", flush=True)
    for s in socks:
        s.close()


if __name__ == "__main__":
    main()
