import Foundation
import ImageDecode

/// Reads originals from local files. The file's size and modification time play the validators' role:
/// an unchanged file is "not modified", a changed one is read again.
struct FileFetcher: Sendable {
    let maxBytes: Int

    func fetch(_ path: String, conditional: [(String, String)]) throws(PipelineError) -> FetchOutcome {
        let requestTime = Date()
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            if !FileManager.default.fileExists(atPath: path) { throw .fileNotFound(path: path) }
            throw .fileUnreadable(path: path, reason: "\(error.localizedDescription)")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        let modified = (attributes[.modificationDate] as? Date) ?? Date(timeIntervalSince1970: 0)
        let etag = "\"\(size)-\(Int64(modified.timeIntervalSince1970 * 1_000_000))\""
        // Files are always revalidated (cheap: one stat), so they carry no freshness lifetime.
        let headers = ["etag": etag, "last-modified": HTTPDate.format(modified), "cache-control": "no-cache"]
        if conditional.contains(where: { $0.0 == "If-None-Match" && $0.1 == etag }) {
            return .notModified(headers: headers, requestTime: requestTime, responseTime: Date())
        }
        guard size <= maxBytes else { throw .downloadTooLarge(url: "file://" + path, limit: maxBytes) }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .fileUnreadable(path: path, reason: "\(error.localizedDescription)")
        }
        guard ImageFormat.sniff(data) != nil else { throw .notAnImage(url: "file://" + path, contentType: nil) }
        return .body(FetchedOriginal(data: data), headers: headers, requestTime: requestTime, responseTime: Date())
    }
}
