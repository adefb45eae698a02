import Cloud
@testable import CloudPostgres
import Testing
import TestSupport

/// What the two stores must agree on, run on each (`TestStore`), and the translation of the rules' SQL for PostgreSQL.
@Suite struct StoreDialectTests {
    @Test func aNameOutsideASCIIIsFoundAsItWasWrittenAndCaseIsFoldedForASCIIOnly() throws {
        let test = try TestCloud()
        let emile = try test.cloud.createAccount(name: "Émile")
        #expect(try test.cloud.account(named: "Émile") == emile)
        #expect(try test.cloud.account(named: "ÉMILE") == emile, "ASCII letters fold")
        _ = try test.cloud.createAccount(name: "émile", email: "other@example.com")  // "é" is not "É" in either store: NOCASE folds ASCII only
        #expect(throws: CloudError.self) { try test.cloud.createAccount(name: "ÉMILE", email: "third@example.com") }
    }

    @Test func questionMarksBecomeNumberedParametersOutsideTextAndComments() {
        #expect(StatementCache.numbered("SELECT ? , ?") == "SELECT $1 , $2")
        #expect(StatementCache.numbered("WHERE a = ?1 AND b = ?2 OR c = ?1") == "WHERE a = $1 AND b = $2 OR c = $1")
        #expect(StatementCache.numbered("WHERE a = ?2 AND b = ?") == "WHERE a = $2 AND b = $3", "as SQLite numbers it")
        #expect(StatementCache.numbered("SELECT '?', \"?\", ? -- why?\n, ?") == "SELECT '?', \"?\", $1 -- why?\n, $2")
    }

    @Test func aPostgreSQLURLSaysWhereAndHowToConnect() throws {
        let local = try PostgresLocation(parsing: "postgresql://notes:secret@127.0.0.1:5433/cloud")
        #expect(local.user == "notes" && local.password == "secret" && local.port == 5433 && local.database == "cloud")
        #expect(local.sslMode == "disable" && local.description == "postgresql://notes@127.0.0.1:5433/cloud", "no password shown")
        let remote = try PostgresLocation(parsing: "postgres://notes@db.example.org/cloud")
        #expect(remote.sslMode == "prefer" && remote.port == 5432)
        let strict = try PostgresLocation(parsing: "postgresql://notes@db.example.org/cloud?sslmode=require")
        #expect(try PostgresLocation(parsing: strict.description) == strict, "the description names it again")
        let socket = try PostgresLocation(parsing: "postgresql://notes@localhost/cloud?host=/tmp/pg")
        #expect(socket.socketDirectory == "/tmp/pg" && socket.sslMode == "disable")
        #expect(try PostgresLocation(parsing: "postgresql://n@h/c?sslmode=verify-full").sslMode == "require", "libpq's name for it")
        // A misspelt parameter, or one given twice, would otherwise be left out quietly (a TLS mode, say).
        for bad in ["mysql://x/y", "postgresql://db.example.org/cloud", "postgresql://notes@db.example.org/", "postgresql://n@h/c?sslmode=maybe",
                    "postgresql://n@h/c?sslmod=require", "postgresql://n@h/c?sslmode=disable&sslmode=require", "postgresql://n@h:99999/c",
                    "postgresql://n@h:0/c"] {
            #expect(throws: CloudError.self, "\(bad)") { try PostgresLocation(parsing: bad) }
        }
        let refusal = #expect(throws: CloudError.self) { try PostgresLocation(parsing: "postgresql://notes:secret@h:99999/c") }
        #expect(refusal.map { "\($0)" }?.contains("secret") == false, "a refusal quotes no password: \(String(describing: refusal))")
    }
}
