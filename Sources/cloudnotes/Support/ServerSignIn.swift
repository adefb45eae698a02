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

    /// The device's sign-in to its cloud's servers, if it has one (whichever server it enrolled through: the
    /// cloud's other servers know the device as well; `DeviceCloud` says which cloud it is).
    static func load(from directory: URL) throws -> RemoteCloud.Credentials? {
        guard let saved = try saved(in: directory) else { return nil }
        let pem = try String(contentsOf: directory.appendingPathComponent(keyFile), encoding: .utf8)
        return RemoteCloud.Credentials(keyID: saved.keyID, key: try P256.Signing.PrivateKey(pemRepresentation: pem), account: saved.account)
    }

    private static func saved(in directory: URL) throws -> ServerSignIn? {
        let url = directory.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(ServerSignIn.self, from: Data(contentsOf: url))
    }

    /// The place of a device signed in to a server before devices kept `cloud.json`: the server it enrolled through.
    static func place(of directory: URL) throws -> DeviceCloud? {
        guard let saved = try saved(in: directory) else { return nil }
        // (A URL that does not normalise is kept as written: opening it says what is wrong.)
        return DeviceCloud(directory: nil, store: nil, servers: [(try? ServerURL.normalized(saved.server))?.absoluteString ?? saved.server],
                           identity: nil)
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
