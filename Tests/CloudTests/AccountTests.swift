import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct AccountTests {
    @Test func createdAccountsCanBeLookedUpByNameEmailAndID() throws {
        let test = try TestCloud()
        let heather = try test.cloud.createAccount(name: "heather")
        let mary = try test.cloud.createAccount(name: "mary", email: "mary@corp.test")

        #expect(heather.email == "heather@example.com")
        #expect(try test.cloud.account(named: "HEATHER") == heather)
        #expect(try test.cloud.account(email: "mary@corp.test") == mary)
        #expect(try test.cloud.account(id: mary.id) == mary)
        #expect(try test.cloud.account(email: "nobody@example.com") == nil)
        #expect(try test.cloud.accounts().map(\.name) == ["heather", "mary"])
    }

    @Test func userRecordIDsAreRandomButReplayableFromTheSeed() throws {
        let a = try TestCloud(seed: 7), b = try TestCloud(seed: 7), c = try TestCloud(seed: 8)
        let idA = try a.cloud.createAccount(name: "x").id
        #expect(idA == (try b.cloud.createAccount(name: "x").id))
        #expect(idA != (try c.cloud.createAccount(name: "x").id))
        #expect(idA.count == 33)
    }

    @Test func duplicateAndMalformedAccountsAreRefused() throws {
        let test = try TestCloud()
        try test.cloud.createAccount(name: "heather")
        #expect(throws: CloudError.invalidArguments("an account named Heather already exists")) {
            try test.cloud.createAccount(name: "Heather", email: "other@example.com")
        }
        #expect(throws: CloudError.invalidArguments("an account with the email heather@example.com already exists")) {
            try test.cloud.createAccount(name: "h2", email: "heather@example.com")
        }
        for bad in ["", "has space", "semi;colon", String(repeating: "a", count: 65)] {
            #expect(throws: CloudError.self) { try test.cloud.createAccount(name: bad) }
        }
        #expect(throws: CloudError.self) { try test.cloud.createAccount(name: "ok", email: "not-an-email") }
        #expect(throws: CloudError.unknownAccount("nobody")) { try test.cloud.account(named: "nobody") }
        #expect(try test.cloud.accounts().count == 1)
    }

    @Test func accountCreatingIfNeededReturnsTheSameAccount() throws {
        let test = try TestCloud()
        let first = try test.cloud.accountCreatingIfNeeded(name: "jermaine")
        #expect(try test.cloud.accountCreatingIfNeeded(name: "jermaine") == first)
    }
}
