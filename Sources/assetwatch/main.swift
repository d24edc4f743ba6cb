print("assetwatch: under construction")
