import Cloud

/// A change not made as asked that the person should hear about: which record, the cloud's error as it came,
/// what became of the change, and who decided.
public struct Refusal: Equatable, Sendable, CustomStringConvertible {
    public var id: RecordID
    public var error: CloudError
    /// What happened to the change here, when more than the error says.
    public var outcome: String?
    public var kind = Kind.refusedByCloud

    /// Who decided what became of the change.
    public enum Kind: Sendable {
        /// The cloud refused it.
        case refusedByCloud
        /// This device undid it before sending: it could not be done as asked any more.
        case undoneHere
        /// It was made, and kept, another way than asked (in a notebook brought back, say).
        case keptAnotherWay
    }

    public init(_ id: RecordID, _ error: CloudError, outcome: String? = nil, kind: Kind = .refusedByCloud) {
        self.id = id
        self.error = error
        self.outcome = outcome
        self.kind = kind
    }

    public var description: String { "\(id.name): \(outcome ?? "\(error)")" }
}
