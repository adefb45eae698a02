import Foundation

/// What careless operators do to a cloud's file: empty it (`: > cloud.sqlite`),
/// or put back an older copy, in place, so open connections read it at their
/// next request. Only between requests: SQLite holds no lock on the file then,
/// so plain I/O on it drops none.
///
/// SQLite's connections tell that a file changed under them by its change
/// counter (a header field every commit moves on). An older copy carries an
/// older counter, which a connection may still hold cached from before, and
/// would then read stale pages: so the copy put back gets a counter the live
/// file never had, as a restore through SQLite's own backup would leave it.
public struct CloudTampering: Sendable {
    public let file: URL

    public init(directory: URL) { file = directory.appendingPathComponent("cloud.sqlite") }

    /// The file's bytes now, to put back later.
    public func snapshot() throws -> Data { try Data(contentsOf: file) }

    public func restore(_ bytes: Data) throws {
        var copy = bytes
        // (No live file to outdo: the copy goes back as it was.)
        if copy.count >= 100, let live = try? Data(contentsOf: file), live.count >= 100 {
            let counter = max(Self.counter(live), Self.counter(copy)) &+ 1
            for offset in [24, 92] {  // the change counter, and the "version valid for" number that must match it
                copy.replaceSubrange(offset..<(offset + 4), with: withUnsafeBytes(of: counter.bigEndian) { Data($0) })
            }
        }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: copy)
        try handle.close()
    }

    public func empty() throws {
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 0)
        try handle.close()
    }

    private static func counter(_ header: Data) -> UInt32 {
        header[header.startIndex + 24 ..< header.startIndex + 28].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
