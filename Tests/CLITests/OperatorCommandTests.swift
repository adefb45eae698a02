import Foundation
import Testing
import TestSupport

/// The console's operator commands from a machine without the cloud directory: refused, in one line, until an
/// operator's key is signed in there; then they work through the server.
@Suite struct OperatorCommandTests {
    @Test func operatorCommandsWorkThroughTheServerOnlyWithAnOperatorsKey() throws {
        let app = try App(.server)
        let laptop = app.environment(of: "ops")
        let refused = try CloudNotesBinary.run(["cloud", "create-account", "zoe"], environment: laptop)
        #expect(refused.status == 64)
        #expect(refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("operator-sign-in"), "\(refused.stderr)")

        let made = try CloudNotesBinary.run(["cloud", "operator-code", "--json"], environment: app.environment)
        let code = try #require((try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: String])?["code"])
        let signIn = try CloudNotesBinary.run(["cloud", "operator-sign-in", "--code", code, "--name", "laptop"], environment: laptop)
        #expect(signIn.status == 0, "\(signIn.stderr)")

        let created = try CloudNotesBinary.run(["cloud", "create-account", "zoe", "--json"], environment: laptop)
        #expect(created.status == 0, "\(created.stderr)")
        // The new account's code signs its first device in, on yet another machine.
        let zoeCode = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["code"] as? String)
        let phone = app.environment(of: "zoe")
        let device = try CloudNotesBinary.run(["sign-in", "zoe", "--device", "phone", "--code", zoeCode, "--cloud", phone["CLOUDNOTES_CLOUD"]!],
                                              environment: phone)
        #expect(device.status == 0, "\(device.stderr)")
        let dump = try CloudNotesBinary.run(["cloud", "dump"], environment: laptop)
        #expect(dump.stdout.contains("zoe <zoe@example.com>"), "\(dump.stdout)")
        #expect(try CloudNotesBinary.run(["cloud", "faults", "--unreachable"], environment: laptop).stdout.contains("unreachable"))
        #expect(try CloudNotesBinary.run(["cloud", "faults"], environment: app.environment).stdout.contains("unreachable"), "set for the cloud")
        #expect(try CloudNotesBinary.run(["cloud", "faults", "--off"], environment: laptop).stdout.contains("faults: off"))

        // Revoked where the directory is: the laptop's next command is refused.
        let keys = try CloudNotesBinary.run(["cloud", "operators", "--json"], environment: app.environment)
        let keyID = try #require((try JSONSerialization.jsonObject(with: Data(keys.stdout.utf8)) as? [[String: Any]])?.first?["keyID"] as? String)
        #expect(try CloudNotesBinary.run(["cloud", "revoke-operator", String(keyID.prefix(8))], environment: app.environment).status == 0)
        let late = try CloudNotesBinary.run(["cloud", "purge", "--older-than", "0"], environment: laptop)
        #expect(late.status != 0)
        #expect(late.stderr.split(separator: "\n").count == 1, "\(late.stderr)")
    }
}
