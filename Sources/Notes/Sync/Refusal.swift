import Cloud

/// A change the cloud refused and the person should hear about: which
/// record, the cloud's error as it came, and what became of the change.
public struct Refusal: Equatable, Sendable, CustomStringConvertible {
    public var id: RecordID
    public var error: CloudError
    /// What happened to the change here, when more than the error says.
    public var outcome: String?

    public init(_ id: RecordID, _ error: CloudError, outcome: String? = nil) {
        self.id = id
        self.error = error
        self.outcome = outcome
    }

    public var description: String { "\(id.name): \(outcome ?? "\(error)")" }
}
