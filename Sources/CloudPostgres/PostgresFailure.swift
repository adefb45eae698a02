import Cloud
import NIOCore
import NIOSSL
import PostgresNIO

/// What a failure of PostgreSQL's (or of reaching it) means to the cloud's client.
extension PSQLError: StorageFailure {
    public var cloudError: CloudError { PostgresFailure(self).cloudError }
}

struct PostgresFailure: StorageFailure {
    let error: any Error

    init(_ error: any Error) { self.error = error }

    /// What went wrong, in a few words (PostgreSQL's own message, or why it could not be reached).
    var reason: String {
        if let cloudError = error as? CloudError { return cloudError.description }
        guard let psql = error as? PSQLError else { return "\(error)" }
        if let message = psql.serverInfo?[.message] { return message }
        if let underlying = psql.underlying { return "\(underlying)" }
        return "\(psql.code)"
    }

    var cloudError: CloudError {
        if let cloudError = error as? CloudError { return cloudError }
        if let tls = Self.tlsFailure(error) {
            // Not a database that is away for now: one this server must not trust until told to.
            return .permissionFailure("the PostgreSQL server's TLS certificate could not be verified (\(tls)); "
                                      + "for a private CA, add sslrootcert=FILE (its PEM file) to the URL")
        }
        guard let psql = error as? PSQLError else {
            // The pool could not connect (refused, timed out, reset): the database is not there now.
            return .serviceUnavailable(retryAfter: 2)
        }
        switch psql.code {
        case .server:
            let state = psql.serverInfo?[.sqlState] ?? ""
            // Serialization failure, deadlock, a lock or statement timed out, the server shutting down or starting up.
            if ["40001", "40P01", "55P03", "57014", "25P03", "57P01", "57P02", "57P03", "53300"].contains(state) {
                return .serviceUnavailable(retryAfter: 1)
            }
            // A prepared statement whose columns a newer server's schema step changed ("cached plan must not
            // change result type"): the failure makes the connection prepare its statements afresh, so a retry
            // is answered. Known by the function that raises it, not by its message, which may be translated.
            if state == "0A000", psql.serverInfo?[.routine] == "RevalidateCachedQuery" {
                return .serviceUnavailable(retryAfter: 1)
            }
            return .storage("PostgreSQL: \(reason) (\(state))")
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return .serviceUnavailable(retryAfter: 2)
        default:
            return .storage("PostgreSQL: \(reason)")
        }
    }

    /// The failure to verify the server's certificate or name behind `error`, if that is what it is. Other TLS
    /// failures (a connection cut mid-handshake, an unclean shutdown when the database stops) are the database
    /// being away, as over plain TCP.
    private static func tlsFailure(_ error: any Error) -> (any Error)? {
        let underlying = (error as? PSQLError)?.underlying ?? error
        if let extra = underlying as? NIOSSLExtraError,
           extra == .failedToValidateHostname || extra == .serverHostnameImpossibleToMatch { return extra }
        guard let tls = underlying as? NIOSSLError else { return nil }
        switch tls {
        case .noCertificateToValidate, .unableToValidateCertificate, .cannotMatchULabel:
            return tls
        case .handshakeFailed(let reason) where "\(reason)".lowercased().contains("certificate"):
            return tls
        default:
            return nil
        }
    }
}
