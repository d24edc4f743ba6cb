import Foundation

extension AssetFetcher {
  /// Fetches `request` into a new partial file in `folder` (named `.<random>.part`, created by
  /// the first byte, mode 0600), with every limit of the fetcher (`maxBytes`, the expected
  /// size, redirects, timeouts, proxy) and of ``DownloadSink``. The caller owns the returned
  /// sink: it renames the partial into place (``DownloadSink/withPartial(_:)``) or discards it.
  /// On a throw nothing is left in `folder`.
  ///
  /// - Throws: ``FetchError``; a `304` (the request sent no validators) is `.httpStatus`.
  func fetchToPartial(_ request: FetchRequest, in folder: DirectoryHandle) async throws(FetchError)
    -> DownloadSink
  {
    let partial = PartialFile(
      folder: folder, deferredName: ".\(UniqueSuffix.next()).part")
    let sink = DownloadSink(
      partial: partial, maxBytes: request.maxBytes, expectedSize: request.expectedSize
    ) { _ in }
    do {
      switch try await fetch(request, into: sink) {
      case .downloaded: return sink
      case .notModified:
        throw FetchError(.httpStatus, "HTTP 304 to a request without validators", status: 304)
      }
    } catch {
      sink.discard()
      if let error = error as? FetchError { throw error }
      throw FetchError(.network, "\(error)")
    }
  }

  /// Fetches a small body (at most `request.maxBytes`) into memory, through a partial file in
  /// `scratch` that is removed before this returns.
  ///
  /// - Throws: ``FetchError``.
  func fetchBytes(_ request: FetchRequest, scratch: DirectoryHandle) async throws(FetchError)
    -> [UInt8]
  {
    let sink = try await fetchToPartial(request, in: scratch)
    defer { sink.discard() }
    do {
      return [UInt8](try sink.readBody())
    } catch {
      throw FetchError(.storage, "reading the downloaded body failed: \(error)")
    }
  }
}
