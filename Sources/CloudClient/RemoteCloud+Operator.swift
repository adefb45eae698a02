import Cloud
import CloudWire
import Crypto
import Foundation

/// The console's operator commands through a server, signed with an operator's key (`cloudnotes cloud
/// operator-sign-in`): what they do where the cloud directory lives, from another machine.
public struct RemoteOperator: Sendable {
    let remote: RemoteCloud

    /// The operator whose key signs with `keyID`.
    public init(server: URL, container: String = LocalCloud.defaultContainer, keyID: String, key: P256.Signing.PrivateKey) {
        remote = RemoteCloud(server: server, container: container, credentials: .init(keyID: keyID, key: key, account: RemoteCloud.nobody))
    }

    public var server: URL { remote.server }

    /// Trades an operator code for the registration of `key`; its ID.
    public static func enrol(server: URL, container: String = LocalCloud.defaultContainer, code: String, key: P256.Signing.PrivateKey,
                             name: String) throws(CloudError) -> String {
        struct Enrolled: Decodable { var keyID: String }
        let enrolled: Enrolled = try RemoteCloud.unsigned(server: server, container: container, operation: "operators/enrol",
                                                          code: code, key: key, name: name)
        return enrolled.keyID
    }

    public func createAccount(name: String, email: String?) throws(CloudError) -> (account: Account, code: String) {
        let answer = try ask("operator/accounts/create", OperatorRequest(name: name, email: email))
        guard let account = answer.account, let code = answer.code else { throw remote.missing("account and code", in: "operator/accounts/create") }
        return (account, code)
    }

    public func enrolmentCode(forAccountNamed name: String) throws(CloudError) -> (account: Account, code: String) {
        let answer = try ask("operator/enrol", OperatorRequest(name: name))
        guard let account = answer.account, let code = answer.code else { throw remote.missing("account and code", in: "operator/enrol") }
        return (account, code)
    }

    public func dump() throws(CloudError) -> CloudDump {
        guard let dump = try ask("operator/dump", OperatorRequest()).dump else { throw remote.missing("dump", in: "operator/dump") }
        return dump
    }

    /// Sets the cloud's fault plan (none: only says it); the plan, and why it cannot be read if it cannot.
    public func faults(setting plan: FaultPlan?) throws(CloudError) -> (plan: FaultPlan, problem: String?) {
        let answer = try ask("operator/faults", OperatorRequest(faults: plan))
        guard let current = answer.faults else { throw remote.missing("faults", in: "operator/faults") }
        return (current, answer.faultsProblem)
    }

    public func purgeTombstones(olderThan age: TimeInterval) throws(CloudError) -> PurgeSummary {
        guard let purged = try ask("operator/purge", OperatorRequest(olderThan: age)).purged else { throw remote.missing("purged", in: "operator/purge") }
        return purged
    }

    private func ask(_ operation: String, _ request: OperatorRequest) throws(CloudError) -> OperatorResponse {
        do {
            return try remote.call(nil, operation, request)
        } catch {
            guard case .notAuthenticated = error else { throw error }
            throw .notAuthenticated("the server did not accept this operator's key (revoked, or this machine's clock is more than 5 minutes off); "
                                    + "cloudnotes cloud operator-sign-in enrols a new one with a code from cloudnotes cloud operator-code")
        }
    }
}
