import Cloud
import CloudClient
import Crypto
import Foundation

/// Where the console's operator commands act: the cloud directory on this machine, or a server, through an
/// operator's key signed in on this machine (`cloudnotes cloud operator-sign-in`).
enum OperatorConsole {
    case local(LocalCloud)
    case remote(RemoteOperator)

    /// What the commands say they act on.
    var place: String {
        switch self {
        case .local(let cloud): "cloud \(cloud.storageLocation)"
        case .remote(let remote): "cloud at \(remote.server.absoluteString)"
        }
    }

    func createAccount(name: String, email: String?) throws -> (account: Account, code: String) {
        switch self {
        case .local(let cloud): try cloud.createAccountWithCode(name: name, email: email)
        case .remote(let remote): try remote.createAccount(name: name, email: email)
        }
    }

    func enrolmentCode(forAccountNamed name: String) throws -> String {
        switch self {
        case .local(let cloud): try cloud.makeEnrolmentCode(forAccountNamed: name).code
        case .remote(let remote): try remote.enrolmentCode(forAccountNamed: name).code
        }
    }

    func dump() throws -> CloudDump {
        switch self {
        case .local(let cloud): try cloud.dump()
        case .remote(let remote): try remote.dump()
        }
    }

    /// Sets the fault plan (none: only says it); the plan in force, and why the plan cannot be read if it cannot.
    func faults(setting plan: FaultPlan?) throws -> (plan: FaultPlan, problem: String?) {
        switch self {
        case .local(let cloud):
            if let plan { try cloud.setFaultPlan(plan) }
            return (cloud.faultPlan, cloud.faultPlanProblem)
        case .remote(let remote): return try remote.faults(setting: plan)
        }
    }

    func purgeTombstones(olderThan age: TimeInterval) throws -> PurgeSummary {
        switch self {
        case .local(let cloud): try cloud.purgeTombstones(olderThan: age)
        case .remote(let remote): try remote.purgeTombstones(olderThan: age)
        }
    }
}

/// An operator's key for a server, kept on the operator's machine: `operator/HOST_PORT.json` (the server and
/// the key's ID) and `operator/HOST_PORT.pem` (the private key, readable by its owner only) in the data
/// directory (`$CLOUDNOTES_DATA`, else `$XDG_DATA_HOME/cloudnotes`), beside the devices'.
struct OperatorSignIn: Codable {
    var server: String
    var keyID: String

    static func directory() -> URL { DeviceOptions().dataDirectory.appendingPathComponent("operator") }

    private static func name(of server: URL) -> String {
        "\(server.host ?? "server")_\(server.port.map(String.init) ?? server.scheme ?? "")"
    }

    /// The operator's key for `server`, if this machine signed one in.
    static func load(server: URL) throws -> RemoteOperator? {
        let base = directory().appendingPathComponent(name(of: server))
        // (No file: this machine signed no operator in to that server; the caller says how to.)
        guard let data = try? Data(contentsOf: base.appendingPathExtension("json")) else { return nil }
        let saved = try JSONDecoder().decode(OperatorSignIn.self, from: data)
        // (Another server's file under the same name: not this server's key.)
        guard (try? ServerURL.normalized(saved.server)) == server else { return nil }
        let pem = try String(contentsOf: base.appendingPathExtension("pem"), encoding: .utf8)
        return RemoteOperator(server: server, keyID: saved.keyID, key: try P256.Signing.PrivateKey(pemRepresentation: pem))
    }

    /// Makes a key pair, trades the operator code for the registration of its public half, and keeps both; the key's ID.
    static func enrol(server: URL, code: String, name: String) throws -> String {
        let key = P256.Signing.PrivateKey()
        let keyID = try RemoteOperator.enrol(server: server, code: code, key: key, name: name)
        let base = directory().appendingPathComponent(self.name(of: server))
        try FileManager.default.createDirectory(at: directory(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try DeviceOptions.writePrivately(Data(key.pemRepresentation.utf8), to: base.appendingPathExtension("pem"))
        try DeviceOptions.writePrivately(try JSONEncoder().encode(OperatorSignIn(server: server.absoluteString, keyID: keyID)),
                                         to: base.appendingPathExtension("json"))
        return keyID
    }
}
