// Bundled filter script: shown until the live copy in examples/live/filter.js is picked up.
function filter(asset) {
  return asset.state !== "MISSING";
}
