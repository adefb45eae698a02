/// Roles and permissions as people read and type them.
extension SharePermission {
    public init?(text: String) {
        switch text.lowercased() {
        case "none": self = .none
        case "read-only", "readonly": self = .readOnly
        case "read-write", "readwrite": self = .readWrite
        default: return nil
        }
    }

    public var text: String {
        switch self {
        case .none: "none"
        case .readOnly: "read-only"
        case .readWrite: "read-write"
        }
    }
}

extension ShareRole {
    public var text: String {
        switch self {
        case .owner: "owner"
        case .administrator: "administrator"
        case .privateUser: "private user"
        case .publicUser: "public user"
        }
    }
}
