import Cloud
import CloudPostgres
import Foundation
import Testing
import TestSupport

/// The cloud's connections to a PostgreSQL server that takes TLS with a real certificate: `require` checks the
/// certificate against the CA named by `sslrootcert` (or the system's), `prefer` encrypts without checking.
@Suite(.enabled(if: TestStore.isPostgres, "the PostgreSQL run's (CLOUDNOTES_TEST_STORE=postgresql)"))
struct PostgresTLSTests {
    /// Whether the connection that answers is encrypted, as the server sees it.
    private func encrypted(_ url: String) throws -> Bool {
        let storage = try PostgresStorage(url: url)
        return try storage.lookUp { db in try db.int64("SELECT ssl::int FROM pg_stat_ssl WHERE pid = pg_backend_pid()") } == 1
    }

    @Test func requireTrustsOnlyTheNamedCAAndPreferEncryptsAnyway() throws {
        let directory = TemporaryDirectory("pgtls")
        let server = try SelfSignedCertificate.make(in: directory)
        let stranger = try SelfSignedCertificate.make(in: directory, name: "stranger")
        let cluster = try PostgresCluster(tls: server)
        let base = "postgresql://postgres@127.0.0.1:\(cluster.port)/postgres"

        #expect(try encrypted(base + "?sslmode=require&sslrootcert=\(server.certificate)"))
        #expect(try encrypted(base + "?sslmode=prefer"), "prefer: encrypted, not checked")
        #expect(try !encrypted(base), "loopback's default is disable")

        // A certificate no trusted CA signed: refused, in words that say so.
        for url in [base + "?sslmode=require", base + "?sslmode=require&sslrootcert=\(stranger.certificate)"] {
            do {
                _ = try encrypted(url)
                Issue.record("\(url) connected to a server whose certificate it should not trust")
            } catch {
                #expect("\(error)".lowercased().contains("certificate") && !"\(error)".contains("\n"), "\(error)")
            }
        }
    }

    @Test func aRootCertificateFileThatCannotBeReadIsRefusedInOneLine() {
        #expect(throws: CloudError.invalidArguments("sslrootcert \("/nonexistent/ca.pem".inlineQuoted) is not a readable file")) {
            try PostgresLocation(parsing: "postgresql://postgres@db.example.org/cloud?sslmode=require&sslrootcert=/nonexistent/ca.pem")
        }
    }
}
