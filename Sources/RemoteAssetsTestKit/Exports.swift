// The test doubles an app can use too live in the `RemoteAssetsTesting` product; the engine-level
// helpers here (servers, scopes, event waits) come with them.
@_exported import RemoteAssetsTesting
