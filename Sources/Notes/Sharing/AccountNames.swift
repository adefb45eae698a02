import Cloud

/// Turns user record IDs into account names for display.
public struct AccountNames: Sendable {
    private let byID: [String: String]

    public init(_ cloud: Cloud) throws {
        byID = Dictionary(uniqueKeysWithValues: try cloud.accounts().map { ($0.id, $0.name) })
    }

    public init(_ byID: [String: String]) { self.byID = byID }

    public func callAsFunction(_ id: String) -> String {
        id == ZoneID.defaultOwner ? "(public)" : byID[id] ?? id
    }
}
