import Foundation

/// Queries on `signed_requests`: the signatures of the requests the cloud's servers answered with a write.
enum SignedRequestTable {
    /// Records a request's signature and drops those past their time, without waiting for either answer; the
    /// returned closure says whether the signature was new (read before the transaction commits).
    static func record(_ db: any SQLTransaction, _ signature: ServedRequest.Signature, now: Date) throws -> () throws -> Bool {
        try db.send("DELETE FROM signed_requests WHERE until < ?", [.real(now.timeIntervalSince1970)])
        let inserted = try db.ask("INSERT INTO signed_requests(signature, until) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING 1",
                                  [.text(signature.id), .real(signature.until.timeIntervalSince1970)])
        return { try !inserted.rows().isEmpty }
    }
}
