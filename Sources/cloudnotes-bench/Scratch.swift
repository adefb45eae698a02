import Cloud
import CloudPostgres
import Foundation
import Notes
import Sync

/// A temporary directory with a cloud and devices of one account, removed afterwards; with `store`, the cloud's
/// state is in a new database beside that one, dropped afterwards.
final class Scratch {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudnotes-bench-\(getpid())-\(UUID().uuidString.prefix(6))")
    let cloud: LocalCloud
    let account: Account
    /// The scratch's own database, when the cloud is on PostgreSQL.
    let database: PostgresLocation?
    private let admin: PostgresLocation?

    init(store: PostgresLocation? = nil) throws {
        admin = store
        database = try store?.creatingDatabase("bench_\(getpid())_\(UUID().uuidString.prefix(8).lowercased())")
        cloud = try LocalCloud(directory: directory.appendingPathComponent("cloud"), storage: database.map { try PostgresStorage($0) },
                               environment: [:])
        account = try cloud.accountCreatingIfNeeded(name: "bench")
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
        if let admin, let database { try? admin.droppingDatabase(database.database) }
    }

    /// A device as the app sets one up: its store, and the account's keyring (which seals locations).
    func device(_ name: String) throws -> NotesSync {
        let store = try DeviceStore(directory: directory.appendingPathComponent(name))
        store.keyring = try Keyring(directory: directory.appendingPathComponent("keychain"), account: account, cloud: cloud)
        return try NotesSync(store: store, cloud: cloud, account: FixedAccount(account))
    }

    /// `count` posts of about the size people write, by ID `prefix`NNNNNNN.
    static func posts(_ count: Int, in zone: ZoneID, prefix: String = "p") -> [Post] {
        let words = ["milk", "trip", "Hà Nội", "日本語", "meeting", "notes", "ideas", "plan", "draft", "🎉"]
        return (0..<count).map { i in
            Post(id: prefix + String(format: "%07d", i), zone: zone, title: "Post \(i) \(words[i % words.count])",
                 content: (0..<24).map { words[($0 * 7 + i) % words.count] }.joined(separator: " "), tags: ["bench"])
        }
    }
}
