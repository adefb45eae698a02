import Cloud
import CloudPostgres
import Foundation
import Testing
import TestSupport

/// The private PostgreSQL cluster the PostgreSQL store's tests run against (issue 20): it starts in a temporary
/// directory on a free loopback port, answers, and keeps what it committed across a crash.
@Suite(.enabled(if: PostgresCluster.runs, "PostgreSQL is not installed here: scripts/setup installs it"))
struct PostgresClusterTests {
    @Test func aPrivateClusterAnswersAndKeepsWhatItCommittedAcrossACrash() throws {
        let cluster = try PostgresCluster()
        try cluster.psql("CREATE TABLE t(x int); INSERT INTO t VALUES (1), (2)")
        #expect(try cluster.psql("SELECT sum(x) FROM t") == "3")
        try cluster.restart()  // an immediate stop: the server is gone as in a crash
        #expect(try cluster.psql("SELECT sum(x) FROM t") == "3")
        #expect(try cluster.psql("SHOW listen_addresses") == "127.0.0.1")
        #expect(try cluster.psql("SELECT current_setting('server_version_num')::int / 10000") == "15")
    }
}

/// A database whose cloud schema this program did not make (a newer server's, or a version tampered with) is
/// refused with one clear error, whatever the number, and nothing in it changes.
@Suite(.enabled(if: PostgresCluster.runs, "PostgreSQL is not installed here: scripts/setup installs it"))
struct PostgresSchemaVersionTests {
    @Test(arguments: [99, -5]) func aSchemaVersionThisProgramDidNotMakeIsRefused(version: Int) throws {
        let cluster = try PostgresCluster()
        try cluster.psql("CREATE DATABASE cloud")
        let url = "postgresql://postgres@127.0.0.1:\(cluster.port)/cloud"
        _ = try PostgresStorage(url: url)  // made at this program's version
        try cluster.psql("UPDATE schema_version SET version = \(version)", database: "cloud")
        // The rows, without the random key pg_dump guards each dump with (`\restrict`).
        let rows = { try cluster.dump(database: "cloud").split(separator: "\n").filter { !$0.contains("restrict ") } }
        let before = try rows()
        let refusal = #expect(throws: CloudError.self, "opened a database at schema version \(version)") { _ = try PostgresStorage(url: url) }
        #expect(refusal.map { "\($0)" }?.contains("(\(version))") == true, "\(String(describing: refusal))")
        #expect(try rows() == before)
    }

    /// Another program's database is not one to put a cloud in: refused, and it keeps only its own tables.
    @Test func anotherProgramsDatabaseIsRefusedAndLeftAlone() throws {
        let cluster = try PostgresCluster()
        try cluster.psql("CREATE DATABASE shop")
        // A table of the name the cloud keeps its version in, as other tools name theirs too.
        try cluster.psql("CREATE TABLE customers(id int PRIMARY KEY, name text); CREATE TABLE schema_version(version int); INSERT INTO schema_version VALUES (1)",
                         database: "shop")
        let refusal = #expect(throws: CloudError.self) { _ = try PostgresStorage(url: "postgresql://postgres@127.0.0.1:\(cluster.port)/shop") }
        #expect(refusal.map { "\($0)" }?.contains("another program's tables") == true, "\(String(describing: refusal))")
        #expect(try cluster.psql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'", database: "shop") == "customers,schema_version")
    }
}
