import Cloud
import CloudPostgres
import Foundation
import Testing
import TestSupport

/// A role that may only read a cloud's database opens the cloud and reads it (an operator's dump, a monitor's
/// listing); PostgreSQL refuses its writes. Opening a cloud used to write, which refused such a role outright.
@Suite(.enabled(if: TestStore.isPostgres, "the PostgreSQL run's"))
struct ReadOnlyRoleTests {
    @Test func aRoleThatMayOnlyReadOpensTheCloudAndReadsIt() throws {
        let directory = TemporaryDirectory("owned")
        let url = try #require(try TestStore.database(for: directory.url))
        _ = try LocalCloud(directory: directory.url, storage: PostgresStorage(url: url), environment: [:]).createAccount(name: "heather")
        let role = "reader_\(UUID().uuidString.prefix(8).lowercased())"  // roles are the cluster's, shared by the run's tests
        _ = try TestStore.psql("CREATE ROLE \(role) LOGIN", in: url)
        _ = try TestStore.psql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)", in: url)
        let readOnly = url.replacingOccurrences(of: "postgresql://postgres@", with: "postgresql://\(role)@")
        let reader = try LocalCloud(directory: TemporaryDirectory("reader").url, storage: PostgresStorage(url: readOnly), environment: [:])
        #expect(try reader.accounts().map(\.name) == ["heather"])
        let refused = #expect(throws: CloudError.self) { _ = try reader.createAccount(name: "mary") }
        #expect(refused.map { "\($0)" }?.contains("permission denied") == true, "\(String(describing: refused))")
    }
}
