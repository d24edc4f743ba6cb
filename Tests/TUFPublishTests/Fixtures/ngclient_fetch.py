"""python-tuf's client (ngclient) reading a repository folder `assetwatch publish` wrote.

Usage: ngclient_fetch.py OUT REPO_DIR METADATA_DIR TRUSTED_ROOT TARGET_PATH...

Serves REPO_DIR over http on 127.0.0.1 (a port of its own), then runs ngclient's Updater with
METADATA_DIR as its trusted metadata folder (TRUSTED_ROOT copied in as root.json when the folder
has none, so a second run continues from the first: root rotation, rollback checks): refresh, then
each target's info and download. Writes OUT/result.json:
  {"root_version": N, "timestamp_version": N, "targets": {PATH: {"hex": ..., "custom": ...} | null}}
Any ngclient refusal exits 1 with the error on stderr.
"""

import functools
import json
import os
import shutil
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from tuf.ngclient import Updater

out, repo, md, trusted_root, *paths = sys.argv[1:]
os.makedirs(out, exist_ok=True)
os.makedirs(md, exist_ok=True)
if not os.path.exists(os.path.join(md, "root.json")):
    shutil.copyfile(trusted_root, os.path.join(md, "root.json"))


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=repo))
threading.Thread(target=server.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{server.server_address[1]}"
downloads = os.path.join(out, "downloads")
os.makedirs(downloads, exist_ok=True)
try:
    updater = Updater(md, f"{base}/metadata/", downloads, f"{base}/targets/", bootstrap=None)
    updater.refresh()
    result = {"targets": {}}
    for path in paths:
        info = updater.get_targetinfo(path)
        if info is None:
            result["targets"][path] = None
            continue
        file = updater.download_target(info, os.path.join(downloads, path.replace("/", "%2F")))
        with open(file, "rb") as f:
            result["targets"][path] = {"hex": f.read().hex(), "custom": info.custom}
    with open(os.path.join(md, "root.json"), "rb") as f:
        result["root_version"] = json.load(f)["signed"]["version"]
    with open(os.path.join(md, "timestamp.json"), "rb") as f:
        result["timestamp_version"] = json.load(f)["signed"]["version"]
finally:
    server.shutdown()
with open(os.path.join(out, "result.json"), "w") as f:
    json.dump(result, f)
