import Foundation

/// Whether an asset is fetched with `Accept-Encoding: gzip` (pure: no I/O).
///
/// Text-like bodies (JSON, text, scripts, most binary models) shrink several times under gzip;
/// images, archives, media and fonts are compressed already, so asking would only cost the
/// server CPU (and a `.gz` file labelled `Content-Encoding: gzip` by its server would reach the
/// cache decoded, no longer the file published). A resumed transfer never asks, whatever this
/// says: a range of an encoded representation cannot be spliced onto decoded bytes.
package enum CompressionPolicy {
  /// Extensions (lowercase, without the dot) of formats that are compressed already.
  package static let compressedExtensions: Set<String> = [
    // archives and compressed streams
    "gz", "tgz", "zip", "zst", "zstd", "xz", "txz", "bz2", "tbz", "tbz2", "br", "7z", "rar", "lz",
    "lz4", "lzma", "z", "cab", "jar", "war", "ear", "apk", "aab", "ipa", "xpi", "whl", "nupkg",
    "deb", "rpm", "dmg", "crx", "vsix", "epub", "docx", "xlsx", "pptx", "odt", "ods", "odp",
    // images
    "png", "jpg", "jpeg", "gif", "webp", "avif", "heic", "heif", "jxl", "jp2",
    // audio and video
    "mp4", "m4v", "m4a", "mov", "webm", "mkv", "avi", "mp3", "ogg", "oga", "ogv", "opus", "flac",
    "aac",
    // fonts
    "woff", "woff2",
    // models and data stored compressed
    "npz", "pdf",
  ]

  /// The formats whose bodies are compressed already.
  package static let compressedFormats: Set<AssetFormat> = [.png, .jpeg]

  /// Whether to ask for gzip for an asset of `format` at `path` (the URL's path).
  ///
  /// Read over the path's bytes: the last non-empty segment, its extension lowercased in ASCII.
  /// Splitting the path into strings and lowercasing through Unicode took about 12,000
  /// instructions a refresh, on the engine's actor; an extension that is not ASCII takes that
  /// way still (Unicode lowercasing can turn a non-ASCII letter into an ASCII one).
  package static func asksForGzip(format: AssetFormat, path: String) -> Bool {
    if compressedFormats.contains(format) { return false }
    let bytes = path.utf8
    guard let last = bytes.lastIndex(where: { $0 != 0x2F }) else { return true }
    let nameEnd = bytes.index(after: last)
    let nameStart =
      bytes[..<nameEnd].lastIndex(of: 0x2F).map { bytes.index(after: $0) }
      ?? bytes.startIndex
    guard let dot = bytes[nameStart..<nameEnd].lastIndex(of: 0x2E), dot != nameStart else {
      return true
    }
    let ext = bytes[bytes.index(after: dot)..<nameEnd]
    guard ext.allSatisfy({ $0 < 0x80 }) else {
      return !compressedExtensions.contains(String(Substring(ext)).lowercased())
    }
    let lowered = String(
      decoding: ext.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    return !compressedExtensions.contains(lowered)
  }

  /// Whether to ask for gzip for `url` (its path decides, not its query).
  package static func asksForGzip(format: AssetFormat, url: URL) -> Bool {
    asksForGzip(format: format, path: url.path)
  }
}
