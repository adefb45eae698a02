import Cloud
import CloudClient
import Crypto
import Foundation

/// What a device keeps of its sign-in to a server: the server, the account, the key ID, and the private key
/// (`device-key.pem`, readable by its owner only; it never leaves the device).
struct ServerSignIn: Codable {
    static let file = "server.json"
    static let keyFile = "device-key.pem"

    var server: String
    var keyID: String
    var account: Account

    /// The device's sign-in to `server`, if it has one.
    static func load(from directory: URL, server: URL) throws -> RemoteCloud.Credentials? {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(file)) else { return nil }
        let saved = try JSONDecoder().decode(ServerSignIn.self, from: data)
        guard saved.server == server.absoluteString else { return nil }
        let pem = try String(contentsOf: directory.appendingPathComponent(keyFile), encoding: .utf8)
        return RemoteCloud.Credentials(keyID: saved.keyID, key: try P256.Signing.PrivateKey(pemRepresentation: pem), account: saved.account)
    }

    /// Makes the device's key pair, trades the enrolment code for the registration of its public half, and keeps
    /// what signing in gave.
    static func enrol(_ directory: URL, server: URL, code: String, deviceName: String) throws -> Account {
        let key = P256.Signing.PrivateKey()
        let credentials = try RemoteCloud.enrol(server: server, code: code, key: key, deviceName: deviceName)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try DeviceOptions.writePrivately(Data(key.pemRepresentation.utf8), to: directory.appendingPathComponent(keyFile))
        let saved = ServerSignIn(server: server.absoluteString, keyID: credentials.keyID, account: credentials.account)
        try DeviceOptions.writePrivately(try JSONEncoder().encode(saved), to: directory.appendingPathComponent(file))
        return saved.account
    }
}
