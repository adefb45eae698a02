import Foundation

/// Puts a cloud's SQLite file back to an older state, or empties it, in
/// place, as an operator restoring a backup (or a careless `: > cloud.sqlite`)
/// would. Only between requests: SQLite holds no lock on the file then, so
/// plain I/O on it drops none.
public struct CloudFileTampering {
    public let file: URL

    public init(cloudDirectory: URL) { file = cloudDirectory.appendingPathComponent("cloud.sqlite") }

    /// The file's bytes now, to put back later.
    public func snapshot() throws -> Data { try Data(contentsOf: file) }

    /// Writes `bytes` over the file, in place (same inode), so open connections read them at their next request.
    public func restore(_ bytes: Data) throws {
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
    }

    public func empty() throws { try restore(Data()) }
}
