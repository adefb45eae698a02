import Cloud

/// A change the cloud refused and the person should hear about: which
/// record, the cloud's error as it came, and what became of the change.
public struct Refusal: Equatable, Sendable, CustomStringConvertible {
    public var id: RecordID
    public var error: CloudError
    /// What happened to the change here, when more than the error says.
    public var outcome: String?
    /// Whether the cloud refused it; false where this device undid it before sending (it could not be done as
    /// asked any more).
    public var byCloud = true

    public init(_ id: RecordID, _ error: CloudError, outcome: String? = nil, byCloud: Bool = true) {
        self.id = id
        self.error = error
        self.outcome = outcome
        self.byCloud = byCloud
    }

    public var description: String { "\(id.name): \(outcome ?? "\(error)")" }
}
