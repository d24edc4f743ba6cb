// Live filter script: edit and save this file while `assetwatch demo` runs; the dashboard
// picks the change up within 200 ms. Save invalid UTF-8 to watch validation keep the last good copy.
function filter(asset) {
  return asset.state !== "MISSING" && !asset.id.startsWith("tmp-");
}
