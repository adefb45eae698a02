import Foundation
import Testing
import TestSupport

/// Nothing typed is refused a place on the device, whatever the cloud's state: a server whose certificate does not
/// verify, a revoked device, a dead server. The write is kept, waits, and the message says why it was not sent.
@Suite(.serialized) struct WritesAlwaysKeptTests {
    @Test func aWriteIsKeptWhenTheCloudCannotTakeItAndTheMessageSaysWhy() throws {
        let directory = TemporaryDirectory("kept")
        let cloudDirectory = directory.path("cloud")
        let cloud = try TestStore.open(directory: cloudDirectory, faults: nil)
        let tls = try SelfSignedCertificate.make(in: directory)
        let server = try TestServer(cloud: cloudDirectory, tls: tls)
        let (_, code) = try cloud.createAccountWithCode(name: "heather", email: nil)
        let data = directory.path("data").path
        let trusting = ["CLOUDNOTES_DATA": data, "CLOUDNOTES_ACCOUNT": "heather", "CLOUDNOTES_CA_FILE": tls.certificate]
        let signIn = try CloudNotesBinary.run(["sign-in", "heather", "--cloud", server.url.absoluteString, "--code", code], environment: trusting)
        try #require(signIn.status == 0, "\(signIn.stderr)")
        func new(_ title: String, _ environment: [String: String]) throws -> ProcessResult {
            try CloudNotesBinary.run(["new", title, "--body", "typed"], environment: environment)
        }
        func pending() throws -> Int {
            let status = try CloudNotesBinary.run(["status", "--json"], environment: trusting)
            return (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["pending"] as? Int ?? -1
        }

        let untrusted = try new("Untrusted", trusting.merging(["CLOUDNOTES_CA_FILE": ""]) { $1 })
        #expect(untrusted.status == 0 && untrusted.stdout.contains("created") && untrusted.stdout.contains("certificate could not be verified"),
                "\(untrusted.status) \(untrusted.stdout) \(untrusted.stderr)")
        #expect(try pending() == 0, "sent once the certificate is trusted")

        let device = try #require(try cloud.devices(of: try cloud.account(named: "heather")).first)
        try cloud.revokeDevice(keyID: device.keyID)
        let revoked = try new("Revoked", trusting)
        #expect(revoked.status == 0 && revoked.stdout.contains("created") && revoked.stdout.contains("not signed in"), "\(revoked)")
        #expect(try pending() == 1)

        server.kill()
        let dead = try new("Dead", trusting)
        #expect(dead.status == 0 && dead.stdout.contains("created") && dead.stdout.contains("network unavailable"), "\(dead)")
        #expect(try pending() == 2)
        let listed = try CloudNotesBinary.run(["list"], environment: trusting)
        #expect(["Untrusted", "Revoked", "Dead"].allSatisfy(listed.stdout.contains), "\(listed)")
    }
}
