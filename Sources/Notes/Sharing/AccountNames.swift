import Cloud
import Foundation

/// Turns user record IDs into account names for display.
public struct AccountNames: Sendable {
    private let byID: [String: String]

    /// The cloud's names; while it cannot say (a server down or untrusted, a device revoked, a cloud that changed),
    /// none: IDs show until it can. Names only decorate; what failed is said by the sync that meets it, and nothing a
    /// person typed may wait on them (a command that writes opens the cloud's names first).
    public init(_ cloud: any Cloud) throws {
        let accounts: [Account]
        do {
            accounts = try cloud.accounts()
        } catch {
            accounts = []
        }
        byID = Dictionary(uniqueKeysWithValues: accounts.map { ($0.id, $0.name) })
    }

    public init(_ byID: [String: String]) { self.byID = byID }

    public func callAsFunction(_ id: String) -> String {
        id == ZoneID.defaultOwner ? "(public)" : byID[id] ?? id
    }
}

/// Account names for a long-running process: people who sign up while it
/// runs are looked up again (at most once a second), not shown as IDs.
public final class AccountDirectory: @unchecked Sendable {
    private let cloud: any Cloud
    private let lock = NSLock()
    private var names: AccountNames
    private var loadedAt = Date()

    public init(cloud: any Cloud) throws {
        self.cloud = cloud
        names = try AccountNames(cloud)
    }

    public func name(_ id: String) -> String {
        lock.withLock {
            var name = names(id)
            // (A cloud that cannot answer now keeps the names loaded: the ID shows, and is asked again after a second.)
            if name == id, Date().timeIntervalSince(loadedAt) > 1, let fresh = try? AccountNames(cloud) {
                names = fresh
                loadedAt = Date()
                name = names(id)
            }
            return name
        }
    }
}
