import CloudPostgres
import Foundation
import Testing
import TestSupport

/// A store's password need not be in its URL (where `ps` shows it to everyone): it comes from where libpq looks.
@Suite struct StorePasswordTests {
    @Test func aPasswordComesFromThePasswordFileWhenTheURLHoldsNone() throws {
        let dir = TemporaryDirectory("pgpass")
        let file = dir.path("pgpass")
        try "# comment\nother:5432:*:notes:wrong\n127.0.0.1:5433:cloud:notes:s\\:ecret\n*:*:*:*:fallback\n".write(to: file, atomically: true, encoding: .utf8)
        let found = try PostgresLocation(parsing: "postgresql://notes@127.0.0.1:5433/cloud?passfile=\(file.path)")
        #expect(found.password == "s:ecret")
        let fallback = try PostgresLocation(parsing: "postgresql://kim@db.test/other?passfile=\(file.path)")
        #expect(fallback.password == "fallback")
        let given = try PostgresLocation(parsing: "postgresql://notes:inurl@127.0.0.1:5433/cloud?passfile=\(file.path)")
        #expect(given.password == "inurl" && !given.description.contains("inurl"))
        #expect(PostgresLocation.holdsPassword("postgresql://notes:inurl@h/db") && !PostgresLocation.holdsPassword("postgresql://notes@h/db"))
    }
}
