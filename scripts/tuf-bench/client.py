"""The peer of `assetwatch tuf-client` in scripts/bench.sh: python-tuf's ngclient Updater.

Usage: client.py METADATA_DIR METADATA_URL TARGET_PATH
Refreshes the top-level metadata (the trusted root must already be METADATA_DIR/root.json), then
looks TARGET_PATH up; exits 1 when it is not found.
"""

import sys

from tuf.ngclient import Updater

metadata_dir, metadata_url, target = sys.argv[1:4]
# bootstrap=None: the trusted root is the one already in metadata_dir (as for assetwatch).
updater = Updater(metadata_dir=metadata_dir, metadata_base_url=metadata_url, bootstrap=None)
updater.refresh()
sys.exit(0 if updater.get_targetinfo(target) else 1)
