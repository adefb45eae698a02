import Cloud
@testable import CloudPostgres
import NIOSSL
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
        #expect(try encrypted(base + "?sslrootcert=\(server.certificate)"), "a CA named without sslmode: require")
        #expect(try encrypted(base + "?sslmode=prefer"), "prefer: encrypted, not checked")
        #expect(try !encrypted(base), "loopback's default is disable")

        // A certificate no trusted CA signed: refused, in words that say so, and not as a database that is away
        // for now (which a server would wait for, for ever).
        for url in [base + "?sslmode=require", base + "?sslmode=require&sslrootcert=\(stranger.certificate)",
                    base + "?sslrootcert=\(stranger.certificate)"] {
            do {
                _ = try encrypted(url)
                Issue.record("\(url) connected to a server whose certificate it should not trust")
            } catch {
                #expect("\(error)".lowercased().contains("certificate") && !"\(error)".contains("\n"), "\(error)")
                if case CloudError.serviceUnavailable = error { Issue.record("refused as unavailable: \(error)") }
            }
        }
    }

    /// The database stopping under a TLS connection (its close is no clean TLS shutdown) is the database being
    /// away, which clients retry, not a certificate to distrust.
    @Test func aDatabaseThatStopsUnderTLSIsUnavailableNotUntrusted() throws {
        let directory = TemporaryDirectory("pgtls-stop")
        let server = try SelfSignedCertificate.make(in: directory)
        let cluster = try PostgresCluster(tls: server)
        let storage = try PostgresStorage(url: "postgresql://postgres@127.0.0.1:\(cluster.port)/postgres?sslrootcert=\(server.certificate)")
        #expect(try storage.lookUp { db in try db.int64("SELECT 1") } == 1)
        cluster.stop()
        do {
            _ = try storage.lookUp { db in try db.int64("SELECT 1") }
            Issue.record("a stopped database answered")
        } catch {
            guard case CloudError.serviceUnavailable = error else { Issue.record("\(error)"); return }
        }
        try cluster.start()
        #expect(try storage.lookUp { db in try db.int64("SELECT 1") } == 1, "and the connection is made again once it is back")
    }

    @Test func aRootCertificateFileThatCannotBeReadIsRefusedInOneLine() {
        #expect(throws: CloudError.invalidArguments("sslrootcert \("/nonexistent/ca.pem".inlineQuoted) is not a readable file")) {
            try PostgresLocation(parsing: "postgresql://postgres@db.example.org/cloud?sslmode=require&sslrootcert=/nonexistent/ca.pem")
        }
    }
}

/// What a TLS failure means to the cloud's clients: a certificate or name that does not verify is a refusal in
/// words, never retried; a connection cut (the database stopping mid-session) is the database being away.
@Suite struct PostgresTLSFailureTests {
    @Test func aNameThatDoesNotVerifyIsRefusedAndACutConnectionIsRetried() {
        #expect({ if case .permissionFailure = PostgresFailure(NIOSSLExtraError.failedToValidateHostname).cloudError { true } else { false } }())
        #expect({ if case .permissionFailure = PostgresFailure(NIOSSLError.unableToValidateCertificate).cloudError { true } else { false } }())
        for cut in [NIOSSLError.uncleanShutdown, .readInInvalidTLSState, .handshakeFailed(.syscallError)] {
            #expect({ if case .serviceUnavailable = PostgresFailure(cut).cloudError { true } else { false } }(), "\(cut)")
        }
    }
}
