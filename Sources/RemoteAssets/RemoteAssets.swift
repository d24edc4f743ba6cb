@_exported import AssetModel
