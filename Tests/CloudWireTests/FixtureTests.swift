import Cloud
@testable import CloudWire
import Foundation
import Testing
import TestSupport

/// Requests and answers written from Apple's documentation (Fixtures/README.md says which page each follows):
/// the server reads what CloudKit Web Services clients send, and answers in the keys they read.
@Suite struct FixtureTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }

    static func object(_ data: Data) throws -> [String: Any] { try JSONSerialization.jsonObject(with: data) as! [String: Any] }

    @Test func everyRequestDecodes() throws {
        _ = try WireJSON.decode(ZonesModifyRequest.self, from: Self.fixture("zones-modify.request.json"))
        _ = try WireJSON.decode(ZonesRequest.self, from: Self.fixture("zones-lookup.request.json"))
        _ = try WireJSON.decode(RecordsLookupRequest.self, from: Self.fixture("records-lookup.request.json"))
        _ = try WireJSON.decode(RecordsQueryRequest.self, from: Self.fixture("records-query.request.json"))
        _ = try WireJSON.decode(RecordsChangesRequest.self, from: Self.fixture("records-changes.request.json"))
        _ = try WireJSON.decode(ZoneChangesRequest.self, from: Self.fixture("changes-zone.request.json"))
        _ = try WireJSON.decode(DatabaseChangesRequest.self, from: Self.fixture("changes-database.request.json"))
        _ = try WireJSON.decode(UsersLookupRequest.self, from: Self.fixture("users-lookup-email.request.json"))
        _ = try WireJSON.decode(ShortGUIDsRequest.self, from: Self.fixture("records-resolve.request.json"))
        _ = try WireJSON.decode(ShortGUIDsRequest.self, from: Self.fixture("records-accept.request.json"))
        let modify = try WireJSON.decode(RecordsModifyRequest.self, from: try Self.withoutLocations(Self.fixture("records-modify.request.json")))
        #expect(modify.operations.map(\.operationType) == ["create", "update", "forceUpdate", "replace", "forceReplace", "delete", "forceDelete"])
    }

    /// CloudNotes has no location field type: a record holding one is refused, naming the field.
    @Test func aLocationFieldIsRefusedByName() throws {
        #expect { try WireJSON.decode(RecordsModifyRequest.self, from: try Self.fixture("records-modify.request.json")) } throws: { error in
            "\(error)".contains("LOCATION")
        }
    }

    @Test func everyAnswerDecodesWithTheClientsTypes() throws {
        for name in ["records-modify", "records-lookup", "records-query", "records-changes"] {
            _ = try WireJSON.decode(RecordsResponse.self, from: Self.withoutLocations(Self.fixture("\(name).response.json")))
        }
        let conflict = try WireJSON.decode(RecordsResponse.self, from: Self.fixture("error-conflict.response.json"))
        #expect(conflict.records.contains { if case .error(let e) = $0 { e.serverErrorCode == "CONFLICT" && e.recordName != nil } else { false } })
        _ = try WireJSON.decode(ZoneChangesResponse.self, from: Self.withoutLocations(Self.fixture("changes-zone.response.json")))
        _ = try WireJSON.decode(DatabaseChangesResponse.self, from: Self.fixture("changes-database.response.json"))
        for name in ["zones-list", "zones-lookup", "zones-modify"] { _ = try WireJSON.decode(ZonesResponse.self, from: Self.fixture("\(name).response.json")) }
        #expect(try WireJSON.decode(WireUser.self, from: Self.fixture("users-current.response.json")).userRecordName.hasPrefix("_"))
        _ = try WireJSON.decode(UsersResponse.self, from: Self.fixture("users-lookup-email.response.json"))
        #expect(try WireJSON.decode(WireError.self, from: Self.fixture("error-auth.response.json")).cloudError.code == "notAuthenticated")
        #expect(try WireJSON.decode(WireError.self, from: Self.fixture("error-throttled.response.json")).cloudError.isTransient)
    }

    /// Apple's requests, answered by the service from a real cloud: each answer carries the keys Apple's answer has.
    @Test func theServiceAnswersApplesRequestsInApplesKeys() throws {
        let test = try TestCloud()
        let ada = try test.cloud.createAccount(name: "ada")
        let service = WireService(cloud: test.cloud, uuids: { "u" })
        func call(_ operation: String, _ fixture: Data, scope: DatabaseScope = .private) throws -> [String: Any] {
            // The fixtures' zones are their owner's: here, ada's.
            let body = Data(String(decoding: fixture, as: UTF8.self).replacingOccurrences(of: Self.fixtureOwner, with: ada.id).utf8)
            let answer = service.handle(WirePath(container: test.cloud.container, scope: scope, operation: operation), body: body, caller: ada)
            #expect(answer.status == 200, "\(operation): \(String(decoding: answer.body, as: UTF8.self))")
            return try Self.object(answer.body)
        }
        func keys(_ object: Any?) -> Set<String> { Set((object as? [String: Any]).map { Array($0.keys) } ?? []) }

        let zones = try call("zones/modify", Self.fixture("zones-modify.request.json"))
        #expect(keys(zones).isSuperset(of: keys(try Self.object(Self.fixture("zones-modify.response.json")))))
        _ = try call("zones/modify", Data(#"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#.utf8))
        let modified = try call("records/modify", try Self.withoutLocations(Self.fixture("records-modify.request.json")))
        let saved = (modified["records"] as! [[String: Any]]).first { $0["serverErrorCode"] == nil && ($0["deleted"] as? Bool) != true }
        let documented = ((try Self.object(Self.fixture("records-modify.response.json")))["records"] as! [[String: Any]]).first!
        #expect(keys(saved).isSuperset(of: keys(documented).subtracting(["pluginFields", "shortGUID"])), "\(keys(saved))")
        let created = keys(saved?["created"])
        #expect(created.isSuperset(of: ["timestamp", "userRecordName"]))

        for (operation, fixture) in [("records/lookup", "records-lookup"), ("records/query", "records-query"), ("changes/zone", "changes-zone"),
                                     ("zones/lookup", "zones-lookup")] {
            var body = try Self.withoutLocations(Self.fixture("\(fixture).request.json"))
            body = Data(String(decoding: body, as: UTF8.self).replacingOccurrences(of: #""syncToken": "AQAAAAAAAAAof/////////8=","#, with: "").utf8)
            let answer = try call(operation, body)
            #expect(keys(answer).isSuperset(of: keys(try Self.object(Self.fixture("\(fixture).response.json"))).subtracting(["reverse", "continuationMarker"])),
                    "\(operation): \(keys(answer))")
        }
        let database = try call("changes/database", Data("{}".utf8))
        #expect(keys(database) == keys(try Self.object(Self.fixture("changes-database.response.json"))))
        #expect(keys(try call("zones/list", Data())).contains("zones"))
        #expect(try call("users/current", Data(), scope: .public)["userRecordName"] as? String == ada.id)
    }

    /// The user record name the fixtures' zones belong to.
    static let fixtureOwner = "_3f1c9a2b7d4e5f60718293a4b5c6d7e8"

    /// A fixture without its location and asset fields, wherever they are (CloudNotes has no such types), and
    /// without another server's continuation marker.
    static func withoutLocations(_ data: Data) throws -> Data {
        func strip(_ value: Any) -> Any {
            if let array = value as? [Any] { return array.map(strip) }
            guard var object = value as? [String: Any] else { return value }
            if var fields = object["fields"] as? [String: Any] {
                fields = fields.filter { !["LOCATION", "ASSET", "ASSETID"].contains(($0.value as? [String: Any])?["type"] as? String ?? "") }
                object["fields"] = fields
            }
            object["continuationMarker"] = nil
            return object.mapValues(strip)
        }
        return try JSONSerialization.data(withJSONObject: strip(try JSONSerialization.jsonObject(with: data)))
    }
}

@Suite struct WireLimitTests {
    @Test func aRequestNamingMoreThan400ItemsIsRefusedWhole() throws {
        let test = try TestCloud()
        let ada = try test.cloud.createAccount(name: "ada")
        let service = WireService(cloud: test.cloud, uuids: { "u" })
        let names = (0...400).map { RecordsLookupRequest.Name(recordName: "r\($0)") }
        let body = try JSONEncoder().encode(RecordsLookupRequest(records: names, zoneID: nil))
        let answer = service.handle(WirePath(container: test.cloud.container, scope: .private, operation: "records/lookup"), body: body, caller: ada)
        #expect(answer.status == 413)
        #expect(try WireJSON.decode(WireError.self, from: answer.body).serverErrorCode == "LIMIT_EXCEEDED")
        let fine = try JSONEncoder().encode(RecordsLookupRequest(records: Array(names.prefix(400)), zoneID: nil))
        #expect(service.handle(WirePath(container: test.cloud.container, scope: .private, operation: "records/lookup"), body: fine, caller: ada).status == 200)
    }
}
