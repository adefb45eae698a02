import Cloud
import Foundation

/// Where a request goes: `/database/1/{container}/{environment}/{database}/{operation}`,
/// as CloudKit Web Services addresses it, or without the database for the
/// operations that have none (`tokens/create`, `devices/enrol`). CloudNotes
/// serves one environment per cloud and answers to both names.
public struct WirePath: Hashable, Sendable {
    public static let version = "1"
    public static let environments: Set<String> = ["development", "production"]

    public var container: String
    public var environment: String
    /// Nil for an operation outside any database.
    public var scope: DatabaseScope?
    /// `records/modify`, `changes/zone`, …
    public var operation: String

    public init(container: String, environment: String = "production", scope: DatabaseScope?, operation: String) {
        self.container = container
        self.environment = environment
        self.scope = scope
        self.operation = operation
    }

    /// Parses a request's path (without its query string); nil for anything else.
    public init?(parsing path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 7, parts[0].isEmpty, parts[1] == "database", parts[2] == Self.version,
              !parts[3].isEmpty, Self.environments.contains(parts[4]), parts[5...].allSatisfy({ !$0.isEmpty }) else { return nil }
        let scope = DatabaseScope(rawValue: parts[5])
        self.init(container: parts[3], environment: parts[4], scope: scope,
                  operation: parts[(scope == nil ? 5 : 6)...].joined(separator: "/"))
    }

    /// The operations that only read. A server runs them on threads apart from the writes, which wait in turn for
    /// the cloud's writers' lock: a fetch never waits for a thread a waiting save holds.
    public static let readOnlyOperations: Set<String> = [
        "changes/database", "changes/zone", "cloud/identity", "invitations/list", "records/changes", "records/history",
        "records/lookup", "records/query", "records/trash", "requests/list", "shares/ended", "shares/list", "shares/lookup",
        "users/current", "users/list", "users/lookup/email", "users/lookup/id", "users/lookup/name", "zones/list", "zones/lookup",
    ]

    /// Whether the operation only reads (`readOnlyOperations`).
    public var onlyReads: Bool { Self.readOnlyOperations.contains(operation) }

    public var path: String {
        "/database/\(Self.version)/\(container)/\(environment)/" + (scope.map { "\($0.rawValue)/" } ?? "") + operation
    }
}
