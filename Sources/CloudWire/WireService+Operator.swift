import Cloud
import Foundation

/// The body of an operator's request (`operator/…`): what the console command takes.
public struct OperatorRequest: Codable, Sendable {
    /// `operator/accounts/create`, `operator/enrol`: the account.
    public var name: String?
    public var email: String?
    /// `operator/faults`: the plan to set (none: say the current one).
    public var faults: FaultPlan?
    /// `operator/purge`: seconds.
    public var olderThan: Double?

    public init(name: String? = nil, email: String? = nil, faults: FaultPlan? = nil, olderThan: Double? = nil) {
        self.name = name
        self.email = email
        self.faults = faults
        self.olderThan = olderThan
    }
}

/// What an operator's request answers.
public struct OperatorResponse: Codable, Sendable {
    public var account: Account?
    /// A one-time enrolment code for `account`.
    public var code: String?
    public var dump: CloudDump?
    public var faults: FaultPlan?
    /// Why the cloud's fault plan cannot be read (it is then ignored).
    public var faultsProblem: String?
    public var purged: PurgeSummary?

    public init() {}
}

extension WireService {
    /// The console's operator commands, for a caller the transport has found signs with an operator's key (never
    /// a device's): they act on the cloud as a whole, as they do where its directory lives.
    public func handleOperator(_ path: WirePath, body: Data) -> Answer {
        guard path.container == cloud.container else {
            return failure(WireError(uuid: uuids(), serverErrorCode: "NOT_FOUND", reason: "no container \(path.container) here"))
        }
        let operation = path.operation
        return answering {
            let request = try decode(OperatorRequest.self, body.isEmpty ? Data("{}".utf8) : body)
            var answer = OperatorResponse()
            switch operation {
            case "operator/accounts/create":
                guard let name = request.name else { throw WireFormatError("name is required") }
                (answer.account, answer.code) = try cloud.createAccountWithCode(name: name, email: request.email)
            case "operator/enrol":
                guard let name = request.name else { throw WireFormatError("name is required") }
                (answer.account, answer.code) = try cloud.makeEnrolmentCode(forAccountNamed: name)
            case "operator/dump":
                answer.dump = try cloud.dump()
            case "operator/faults":
                if let plan = request.faults { try cloud.setFaultPlan(plan) }
                answer.faults = cloud.faultPlan
                answer.faultsProblem = cloud.faultPlanProblem
            case "operator/purge":
                guard let age = request.olderThan, age >= 0, age.isFinite else { throw WireFormatError("olderThan is zero or more seconds") }
                answer.purged = try cloud.purgeTombstones(olderThan: age)
            default:
                throw WireFormatError("no operation \(operation) (docs/PROTOCOL.md lists them)")
            }
            return try ok(answer)
        }
    }
}
