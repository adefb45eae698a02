import Foundation

/// A fresh directory under the system's temporary directory, removed when
/// the value goes away, so no test reaches outside its own sandbox.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ label: String = "test") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("cloudnotes-\(label)-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ component: String) -> URL { url.appendingPathComponent(component) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
